/**
 * Mail requests: forget-password and send-verification-email answer after one insert, the same for every
 * address, and the lookup, the token and SendEmail happen afterwards in the worker. Queued in the identity
 * database, so a request survives a crash or restart of the process that took it (any replica's worker
 * picks it up). The worker is mail-request-worker.ts.
 */
import type { Language } from "@auth-platform/runtime/language";
import { newId } from "@auth-platform/runtime/random";
import type { MailRequestDetails, MailRequestKind } from "../store/identity-store.js";
import type { Registry } from "./ports.js";

/**
 * How long after it is queued a request becomes due. The answer that queued it must be out of this process,
 * and through the gateway, before the worker starts the lookup and writes (SQLite runs them on the event
 * loop, and every process shares the CPU): else a known address would still slow its own answer down.
 */
export const MAIL_REQUEST_DELAY_MS = 250;

/** Queues a request for an already normalised address, due MAIL_REQUEST_DELAY_MS from now, and wakes the worker then. */
export async function enqueueMailRequest(
  deps: Pick<Registry, "store" | "now" | "mailRequests">,
  input: { kind: MailRequestKind; email: string; callbackUrl?: string; language?: Language; details?: MailRequestDetails },
): Promise<void> {
  const now = deps.now();
  const due = new Date(now.getTime() + MAIL_REQUEST_DELAY_MS);
  await deps.store.enqueueMailRequest({
    id: newId(),
    kind: input.kind,
    email: input.email,
    callbackUrl: input.callbackUrl ?? null,
    language: input.language ?? null,
    ...(input.details ? { details: input.details } : {}),
    nextAttemptAt: due,
    createdAt: now,
  });
  deps.mailRequests.wake(MAIL_REQUEST_DELAY_MS);
}
