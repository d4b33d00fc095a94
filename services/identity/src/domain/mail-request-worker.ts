/**
 * The mail request worker: takes due requests from the mail_request table, does what each asks (look the
 * address up; for a user, make the token and SendEmail), and deletes it. Each request is leased first (one
 * conditional UPDATE only one replica's worker can win); a failure frees it for a later attempt with a
 * growing delay, up to MAX_ATTEMPTS; a worker that dies mid-request leaves its lease to run out, and the
 * request is done again (a reset then issues a fresh token, which voids the first).
 */
import { type BackoffPolicy, retryDelay } from "@auth-platform/runtime/backoff";
import { handleEach, type PollingWorker, startPollingWorker } from "@auth-platform/runtime/polling-worker";
import type { MailRequestRecord } from "../store/identity-store.js";
import { mailEmailOtp, mailMagicLink } from "./mail-sign-in.js";
import { mailResetLink } from "./password-reset.js";
import type { Registry } from "./ports.js";
import { mailVerificationIfUnverified } from "./verification.js";

type Deps = Pick<Registry, "config" | "store" | "mail" | "now" | "log">;

export const BATCH_SIZE = 10;
/** Longer than any one request takes (two store calls and a SendEmail under its deadline). */
export const LEASE_MS = 60_000;
export const MAX_ATTEMPTS = 10;
export const POLL_INTERVAL_MS = 1_000;
const RETRY: BackoffPolicy = { baseMs: 1_000, maxMs: 300_000 };

/** Does what one request asks. */
export async function processMailRequest(deps: Deps, request: MailRequestRecord): Promise<void> {
  const callbackUrl = request.callbackUrl ?? undefined;
  const language = request.language ?? undefined;
  switch (request.kind) {
    case "password-reset":
      return mailResetLink(deps, { email: request.email, redirectTo: callbackUrl, language });
    case "email-verification":
      return mailVerificationIfUnverified(deps, { email: request.email, callbackUrl, language });
    case "magic-link":
      return mailMagicLink(deps, { email: request.email, callbackUrl, details: request.details ?? {}, language });
    case "email-otp": {
      const purpose = request.details?.purpose;
      if (purpose !== "sign-in" && purpose !== "email-verification" && purpose !== "forget-password") throw new Error("email-otp request without a purpose");
      return mailEmailOtp(deps, { email: request.email, purpose, language });
    }
  }
}

/**
 * Claims and processes one request: done, it is deleted; failed, it is retried later with a growing delay.
 * Never throws for the request's own failure. A request's own RPC calls it at once for a request it wrote
 * with its row (sign-up's verification mail), so a healthy system mails at once and an outage only delays.
 */
export async function runMailRequest(deps: Deps, request: MailRequestRecord): Promise<void> {
  const now = deps.now();
  if (!(await deps.store.claimMailRequest(request.id, request.attempts, now, new Date(now.getTime() + LEASE_MS)))) return;
  const attempts = request.attempts + 1;
  try {
    await processMailRequest(deps, request);
  } catch (error) {
    // The address is not logged: only which kind of request failed.
    if (attempts >= MAX_ATTEMPTS) {
      await deps.store.deleteMailRequest(request.id);
      deps.log.error("mail request abandoned", { requestId: request.id, kind: request.kind, attempts, error });
      return;
    }
    const delay = retryDelay(attempts, RETRY);
    await deps.store.retryMailRequest(request.id, attempts, new Date(deps.now().getTime() + delay));
    deps.log.warn("mail request failed; will retry", { requestId: request.id, kind: request.kind, attempts, retryInMs: delay, error });
    return;
  }
  await deps.store.deleteMailRequest(request.id);
}

/** One pass: every due request (up to a batch) claimed and processed. Returns how many were due. */
export async function processDue(deps: Deps): Promise<number> {
  const due = await deps.store.findDueMailRequests(deps.now(), BATCH_SIZE);
  await handleEach(due, (request) => runMailRequest(deps, request), deps.log, "mail request");
  return due.length;
}

export type MailRequestWorker = PollingWorker;

/** Starts the worker: a pass now, then one every pollIntervalMs, and one whenever woken. */
export function startMailRequestWorker(deps: Deps, pollIntervalMs = POLL_INTERVAL_MS): MailRequestWorker {
  return startPollingWorker({ name: "mail requests", pass: () => processDue(deps), batchSize: BATCH_SIZE, pollIntervalMs, log: deps.log });
}
