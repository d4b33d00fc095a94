/**
 * Mail requests: forget-password and send-verification-email answer after one insert, the same for every
 * address, and the lookup, the token and SendEmail happen afterwards in the worker. Queued in the identity
 * database, so a request survives a crash or restart of the process that took it (any replica's worker
 * picks it up). The worker is mail-request-worker.ts.
 */
import { newId } from "@auth-platform/runtime/random";
import type { MailRequestKind } from "../store/identity-store.js";
import type { Registry } from "./ports.js";

/** Queues a request for an already normalised address and wakes the worker. */
export async function enqueueMailRequest(
  deps: Pick<Registry, "store" | "now" | "mailRequests">,
  input: { kind: MailRequestKind; email: string; callbackUrl?: string },
): Promise<void> {
  const now = deps.now();
  await deps.store.enqueueMailRequest({ id: newId(), kind: input.kind, email: input.email, callbackUrl: input.callbackUrl ?? null, nextAttemptAt: now, createdAt: now });
  deps.mailRequests.wake();
}
