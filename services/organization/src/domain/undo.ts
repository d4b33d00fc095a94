/**
 * A write followed by a call to another service (identity, session) is answered as one: when the call
 * fails, the write is undone before the failure is answered, so a 503 means nothing was kept and a retry by
 * the client starts afresh (a retry of a create with the same slug works).
 */
import { describeError } from "@auth-platform/runtime/log";
import type { Registry } from "./ports.js";

/** Runs `next` after a committed write; when it fails, runs `undo`, then rethrows. A failed undo is logged. */
export async function undoOnFailure<T>(deps: Pick<Registry, "log">, what: string, undo: () => Promise<unknown>, next: () => Promise<T>): Promise<T> {
  try {
    return await next();
  } catch (error) {
    try {
      await undo();
    } catch (undoError) {
      deps.log.error(`${what}: a later step failed and the write could not be undone`, { error: describeError(error), undoError: describeError(undoError) });
    }
    throw error;
  }
}
