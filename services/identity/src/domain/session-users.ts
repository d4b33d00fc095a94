/**
 * The session service keeps its own copy of each signed-in user (it never calls identity, so the call graph
 * stays acyclic: docs/adr/0004-session-service-keeps-user-copies.md). Identity pushes the copy with CreateSession and PutUserCopy. Sessions
 * created before the session service kept copies have none: at start identity pushes the user of each of
 * them once (a backfill), and until it has, such a session reads as signed out on a cache miss.
 */
import type { Logger } from "@auth-platform/runtime/log";
import type { Registry } from "./ports.js";

type Deps = Pick<Registry, "store" | "sessions">;

export const BACKFILL_PAGE_SIZE = 200;

/**
 * One pass over the users with sessions but no copy: pushes each existing user; a deleted user's leftover
 * sessions are revoked (what deleting the user would have done). Returns how many users it handled.
 */
export async function backfillSessionUsers(deps: Deps, pageSize = BACKFILL_PAGE_SIZE): Promise<number> {
  let after = "";
  let handled = 0;
  for (;;) {
    const ids = await deps.sessions.usersMissingSnapshot(after, pageSize);
    for (const id of ids) {
      const user = await deps.store.findUserById(id);
      if (user) await deps.sessions.putUserCopy(user);
      else await deps.sessions.revokeUserSessions(id, undefined, "user-deleted");
      handled++;
    }
    if (ids.length < pageSize) return handled;
    after = ids[ids.length - 1]!;
  }
}

export interface SessionUserBackfill {
  /** Settles when a pass succeeded (or the backfill was stopped). */
  done: Promise<void>;
  stop(): void;
}

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 60_000;

/**
 * Runs the backfill in the background until one pass succeeds: the session service may start after
 * identity, so a failed pass is retried with a growing delay. Every replica runs it; a pass is idempotent.
 */
export function startSessionUserBackfill(deps: Deps & { log: Logger }, retryMs = FIRST_RETRY_MS): SessionUserBackfill {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const attempt = async (delay: number): Promise<void> => {
    if (stopped) return;
    try {
      const handled = await backfillSessionUsers(deps);
      if (handled) deps.log.info("pushed the user of sessions created before the session service kept users", { users: handled });
      finish();
    } catch (error) {
      if (stopped) return;
      deps.log.warn("session user backfill failed; will retry", { error: error instanceof Error ? error.message : String(error), retryInMs: delay });
      timer = setTimeout(() => void attempt(Math.min(delay * 2, MAX_RETRY_MS)), delay);
      timer.unref();
    }
  };
  void attempt(retryMs);
  return {
    done,
    stop() {
      stopped = true;
      clearTimeout(timer);
      finish();
    },
  };
}
