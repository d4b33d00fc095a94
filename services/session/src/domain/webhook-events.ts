/**
 * The session webhook events (docs/adr/0077-signed-webhooks.md): session.created and session.revoked, one
 * outbox row each, written by the store in the transaction of the change. The worker publishes them, due at
 * once, in batches: every poll interval one read of the due rows, one statement leasing them, one
 * PublishEvents call for the batch, and one statement removing them
 * (docs/adr/0085-session-events-published-in-batches.md). A sign-in's answer never waits on it, and a batch
 * costs about what one event did. When the call fails, each event is tried
 * alone, so one the notification service refuses holds back no other; what still fails is retried with
 * backoff until it lands. The row's lease keeps two replicas from publishing one event at once, and its id is
 * the event id, which the notification service stores once.
 */
import { retryDelay } from "@auth-platform/runtime/backoff";
import { handleEach, type PollingWorker, startPollingWorker } from "@auth-platform/runtime/polling-worker";
import type { SessionEventRecord } from "../store/session-store.js";
import type { Registry } from "./ports.js";

type Deps = Pick<Registry, "store" | "webhooks" | "now" | "log">;

/** PublishEvents' own limit (notification's MAX_EVENTS_PER_CALL): one batch is one call. */
export const BATCH_SIZE = 100;
/** Longer than a delivery takes (two RPCs under their deadlines). */
export const LEASE_MS = 60_000;
export const POLL_INTERVAL_MS = 1_000;
/** Retries back off to once a minute and never stop: a revocation is never forgotten. */
const BACKOFF = { baseMs: 1_000, maxMs: 60_000 };
/** From this many failed attempts on, each failure is logged as an error. */
const ALERT_AFTER_ATTEMPTS = 10;

const published = (event: SessionEventRecord) => ({ id: event.id, type: event.type, occurredAt: event.occurredAt, payloadJson: event.data });

/** Publishes one leased event in a call of its own and removes it; a failure frees it for another attempt after the backoff. */
async function publishAlone(deps: Deps, event: SessionEventRecord): Promise<void> {
  const attempts = event.attempts + 1;
  try {
    await deps.webhooks.publish([published(event)]);
  } catch (error) {
    const delay = retryDelay(attempts, BACKOFF);
    await deps.store.retrySessionEvent(event.id, attempts, new Date(deps.now().getTime() + delay));
    const fields = { eventId: event.id, userId: event.userId, type: event.type, attempts, retryInMs: delay, error };
    if (attempts >= ALERT_AFTER_ATTEMPTS) deps.log.error("session event still undelivered", fields);
    else deps.log.warn("session event delivery failed; will retry", fields);
    return;
  }
  await deps.store.deleteSessionEvents([event.id]);
}

/** One pass: every due event (up to a batch) leased and published in one call. Returns how many were due. */
export async function deliverDueSessionEvents(deps: Deps): Promise<number> {
  const due = await deps.store.findDueSessionEvents(deps.now(), BATCH_SIZE);
  const now = deps.now();
  const leaseUntil = new Date(now.getTime() + LEASE_MS);
  const taken = new Set(
    await deps.store.claimSessionEvents(
      due.map((event) => event.id),
      now,
      leaseUntil,
    ),
  );
  const claimed = due.filter((event) => taken.has(event.id));
  if (!claimed.length) return due.length;
  try {
    await deps.webhooks.publish(claimed.map(published));
  } catch {
    await handleEach(claimed, (event) => publishAlone(deps, event), deps.log, "session event");
    return due.length;
  }
  // Published: removed together. Should that fail, their leases run out and they are published again (the
  // notification service stores an event id once).
  await deps.store
    .deleteSessionEvents(claimed.map((event) => event.id))
    .catch((error: unknown) => deps.log.warn("published session events not removed; they will be published again", { error }));
  return due.length;
}

/** The worker: a pass now, then one every pollIntervalMs, back to back while passes find full batches. */
export function startSessionEventWorker(deps: Deps, pollIntervalMs = POLL_INTERVAL_MS): PollingWorker {
  return startPollingWorker({ name: "session events", pass: () => deliverDueSessionEvents(deps), batchSize: BATCH_SIZE, pollIntervalMs, log: deps.log });
}
