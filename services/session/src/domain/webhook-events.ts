/**
 * The session webhook events (docs/adr/0077-signed-webhooks.md): session.created and session.revoked, one
 * outbox row each, written by the store in the transaction of the change. The writing request publishes its
 * user's events once it is done (publishSessionEvents), without waiting on it; what fails (notification
 * unreachable, the process stopped) the worker retries with backoff until it lands. Each delivery first takes
 * the row's lease, so a request and the worker, or two replicas, never publish one event at once; the row's
 * id is the event id, which the notification service stores once.
 */
import { retryDelay } from "@auth-platform/runtime/backoff";
import { type PollingWorker, startPollingWorker } from "@auth-platform/runtime/polling-worker";
import type { SessionEventRecord } from "../store/session-store.js";
import type { Registry } from "./ports.js";

type Deps = Pick<Registry, "store" | "webhooks" | "now" | "log">;

export const BATCH_SIZE = 20;
/** Longer than a delivery takes (one RPC under its deadline). */
export const LEASE_MS = 60_000;
export const POLL_INTERVAL_MS = 1_000;
/** Retries back off to once a minute and never stop: a revocation is never forgotten. */
const BACKOFF = { baseMs: 1_000, maxMs: 60_000 };
/** From this many failed attempts on, each failure is logged as an error. */
const ALERT_AFTER_ATTEMPTS = 10;

/** Leases, publishes and removes one event; a failed one is freed for another attempt after the backoff. */
async function attempt(deps: Deps, event: SessionEventRecord): Promise<"delivered" | "failed" | "taken"> {
  const now = deps.now();
  if (!(await deps.store.claimSessionEvent(event.id, event.attempts, now, new Date(now.getTime() + LEASE_MS)))) return "taken";
  const attempts = event.attempts + 1;
  try {
    await deps.webhooks.publish({ id: event.id, type: event.type, occurredAt: event.occurredAt, payloadJson: event.data });
  } catch (error) {
    const delay = retryDelay(attempts, BACKOFF);
    await deps.store.retrySessionEvent(event.id, attempts, new Date(deps.now().getTime() + delay));
    const fields = { eventId: event.id, userId: event.userId, type: event.type, attempts, retryInMs: delay, error };
    if (attempts >= ALERT_AFTER_ATTEMPTS) deps.log.error("session event still undelivered", fields);
    else deps.log.warn("session event delivery failed; will retry", fields);
    return "failed";
  }
  await deps.store.deleteSessionEvent(event.id);
  return "delivered";
}

/** Publishes the user's pending events that no one holds; true when none failed. */
export async function flushSessionEvents(deps: Deps, userId: string): Promise<boolean> {
  const events = await deps.store.findSessionEvents(userId);
  const now = deps.now().getTime();
  let delivered = true;
  for (const event of events) {
    if (event.leaseUntil && event.leaseUntil.getTime() > now) continue;
    if ((await attempt(deps, event)) === "failed") delivered = false;
  }
  return delivered;
}

/**
 * After a change that wrote events for the user: publishes them in the background (the caller does not wait),
 * waking the worker when that fails. Never throws.
 */
export function publishSessionEvents(deps: Deps & { worker: Pick<PollingWorker, "wake"> }, userId: string): Promise<void> {
  return flushSessionEvents(deps, userId).then(
    (delivered) => {
      if (!delivered) deps.worker.wake(BACKOFF.baseMs);
    },
    (error: unknown) => {
      deps.log.warn("session events not delivered yet; the worker retries", { userId, error });
      deps.worker.wake(BACKOFF.baseMs);
    },
  );
}

/** One pass: every due event (up to a batch) leased and published. Returns how many were due. */
export async function deliverDueSessionEvents(deps: Deps): Promise<number> {
  const due = await deps.store.findDueSessionEvents(deps.now(), BATCH_SIZE);
  const results = await Promise.allSettled(due.map((event) => attempt(deps, event)));
  for (const result of results) {
    if (result.status === "rejected") deps.log.error("session event bookkeeping failed", { error: result.reason });
  }
  return due.length;
}

/** The worker: a pass now, then one every pollIntervalMs, and one whenever a request's own publication failed. */
export function startSessionEventWorker(deps: Deps, pollIntervalMs = POLL_INTERVAL_MS): PollingWorker {
  return startPollingWorker({ name: "session events", pass: () => deliverDueSessionEvents(deps), batchSize: BATCH_SIZE, pollIntervalMs, log: deps.log });
}
