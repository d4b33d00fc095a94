/**
 * The invitation mail worker: takes due mails from the invitation_mail outbox (written with their
 * invitation), hands each to the notification service's SendEmail, and deletes it. Each mail is leased first
 * (one conditional UPDATE only one replica's worker can win); a failure frees it for a later attempt with a
 * growing delay (runtime/backoff.ts), up to MAX_ATTEMPTS; a worker that dies mid-mail leaves its lease to
 * run out, and the mail is handed over again under the same idempotency key, which notification answers
 * without queueing a second message. A mail whose invitation is no longer pending as it was mailed
 * (canceled, answered, expired, deleted, or renewed by a resend, whose own mail carries it) is dropped unsent.
 */
import { retryDelay } from "@auth-platform/runtime/backoff";
import { handleEach, type PollingWorker, startPollingWorker } from "@auth-platform/runtime/polling-worker";
import type { InvitationMailRecord, InvitationRecord } from "../store/organization-store.js";
import type { Registry } from "./ports.js";

type Deps = Pick<Registry, "store" | "mail" | "now" | "log">;

export const BATCH_SIZE = 10;
/** Longer than one mail takes (a store read and a SendEmail under its 5 s deadline). */
export const LEASE_MS = 60_000;
/** With RETRY, the attempts span one to two hours of outage (the delays grow to ten minutes, then stay). */
export const MAX_ATTEMPTS = 20;
export const RETRY = { baseMs: 1_000, maxMs: 600_000 };
export const POLL_INTERVAL_MS = 1_000;

/**
 * SendEmail's idempotency key of an invitation's mail: one per invitation and expiry. A resend renews the
 * expiry, and with it the key: a new mail; a retry after a lost answer keeps it: no second mail.
 */
export const invitationMailKey = (invitation: Pick<InvitationRecord, "id" | "expiresAt">) => `organization-invitation:${invitation.id}:${invitation.expiresAt.getTime()}`;

/** Whether the invitation is still the pending one this mail was written for. */
function stillMailable(invitation: InvitationRecord | null, mail: InvitationMailRecord, now: Date): boolean {
  return !!invitation && invitation.status === "pending" && invitation.expiresAt > now && invitationMailKey(invitation) === mail.idempotencyKey;
}

async function handle(deps: Deps, mail: InvitationMailRecord): Promise<void> {
  const now = deps.now();
  if (!(await deps.store.claimInvitationMail(mail.id, mail.attempts, now, new Date(now.getTime() + LEASE_MS)))) return;
  const attempts = mail.attempts + 1;
  // The recipient's address is not logged: the invitation id says which mail it is.
  const fields = { mailId: mail.id, invitationId: mail.invitationId, attempts };
  if (!stillMailable(await deps.store.findInvitation(mail.invitationId), mail, now)) {
    await deps.store.deleteInvitationMail(mail.id);
    deps.log.info("invitation mail dropped: the invitation is no longer pending as mailed", fields);
    return;
  }
  try {
    await deps.mail.sendInvitation(mail.recipient, mail.variables, mail.idempotencyKey, mail.language ?? undefined);
  } catch (error) {
    if (attempts >= MAX_ATTEMPTS) {
      await deps.store.deleteInvitationMail(mail.id);
      deps.log.error("invitation mail abandoned", { ...fields, error });
      return;
    }
    const delay = retryDelay(attempts, RETRY);
    await deps.store.retryInvitationMail(mail.id, attempts, new Date(deps.now().getTime() + delay));
    deps.log.warn("invitation mail not handed over; will retry", { ...fields, retryInMs: delay, error });
    return;
  }
  await deps.store.deleteInvitationMail(mail.id);
}

/** One pass: every due mail (up to a batch) claimed and handed over. Returns how many were due. */
export async function deliverDueInvitationMails(deps: Deps): Promise<number> {
  const due = await deps.store.findDueInvitationMails(deps.now(), BATCH_SIZE);
  await handleEach(due, (mail) => handle(deps, mail), deps.log, "invitation mail");
  return due.length;
}

/** Starts the worker: a pass now, then one every pollIntervalMs, and one whenever woken. */
export function startInvitationMailWorker(deps: Deps, pollIntervalMs = POLL_INTERVAL_MS): PollingWorker {
  return startPollingWorker({ name: "invitation mails", pass: () => deliverDueInvitationMails(deps), batchSize: BATCH_SIZE, pollIntervalMs, log: deps.log });
}
