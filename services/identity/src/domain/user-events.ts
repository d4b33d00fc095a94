/**
 * The user event outbox (docs/adr/0074-user-event-outbox.md): what other services must learn of a user beyond
 * the session service's copy, one row per event, written in the same transaction as the write it records
 * (the store's createUserWithAccount, markEmailVerified and updateUser). The writing request delivers its
 * events at once (eventPublishingStore; webhooks without making its answer wait); when that fails (sso unreachable, the process stopped) the worker
 * here retries with backoff until it lands. Each delivery first takes the row's lease, so a request and the
 * worker, or two replicas, never deliver one event at once; deliveries are idempotent besides.
 *
 * `email-verified`: sso applies domain auto-join (ApplyDomainAutoJoin) for the address, when the user still
 * holds it verified; a user who moved on or was deleted meanwhile joins nothing by it.
 * `user.created`, `user.updated`, `user.deleted`, `user.banned`, `user.unbanned`, and
 * `user.sign_in_failed_burst` (added by addUserEvent, domain/sign-in-bursts.ts): published to the notification
 * service's webhooks (PublishEvents), which stores each event id once (docs/adr/0077-signed-webhooks.md).
 */
import { retryDelay } from "@auth-platform/runtime/backoff";
import { handleEach, type PollingWorker, startPollingWorker } from "@auth-platform/runtime/polling-worker";
import { outsideAnyRequest } from "@auth-platform/runtime/request-context";
import { type IdentityStore, isWebhookUserEvent, type UserEventRecord } from "../store/identity-store.js";
import type { Registry } from "./ports.js";

type Deps = Pick<Registry, "store" | "domains" | "webhooks" | "now" | "log">;

export const BATCH_SIZE = 20;
/** Longer than a delivery takes (a store read and one RPC under its deadline). */
export const LEASE_MS = 60_000;
export const POLL_INTERVAL_MS = 1_000;
/** Retries back off to once a minute and never stop: a verified address is never forgotten. */
const BACKOFF = { baseMs: 1_000, maxMs: 60_000 };
/** From this many failed attempts on, each failure is logged as an error: someone should look. */
const ALERT_AFTER_ATTEMPTS = 10;

/** Tells the service concerned what the event says. Throws when it cannot be reached (the event stays). */
export async function deliverUserEvent(deps: Deps, event: UserEventRecord): Promise<void> {
  // user.created and the others: published to the notification service as they were written, the event id
  // its idempotency key (docs/adr/0077-signed-webhooks.md).
  if (isWebhookUserEvent(event.type)) {
    await deps.webhooks.publish({ id: event.id, type: event.type, occurredAt: event.occurredAt, payloadJson: event.payload.data ?? "{}" });
    return;
  }
  switch (event.type) {
    case "email-verified": {
      // The user as stored now: deleted, moved to another address or unverified since, nothing applies.
      const user = await deps.store.findUserById(event.userId);
      if (!user?.emailVerified || user.email !== event.payload.email) return;
      await deps.domains.applyAutoJoin(user.id, user.email, event.occurredAt);
      return;
    }
    default:
      // Written by a newer release during a rolling upgrade: left for a replica that knows it.
      throw new Error(`unknown user event type ${String((event as { type: unknown }).type)}`);
  }
}

/**
 * Leases, delivers and removes one event; on a failed delivery frees it for another attempt after the backoff.
 * "taken": another deliverer holds it (or it is gone). Throws only when the store fails.
 */
async function attempt(deps: Deps, event: UserEventRecord): Promise<"delivered" | "failed" | "taken"> {
  const now = deps.now();
  if (!(await deps.store.claimUserEvent(event.id, event.attempts, now, new Date(now.getTime() + LEASE_MS)))) return "taken";
  const attempts = event.attempts + 1;
  try {
    await deliverUserEvent(deps, event);
  } catch (error) {
    const delay = retryDelay(attempts, BACKOFF);
    await deps.store.retryUserEvent(event.id, attempts, new Date(deps.now().getTime() + delay));
    const fields = { eventId: event.id, userId: event.userId, type: event.type, attempts, retryInMs: delay, error };
    if (attempts >= ALERT_AFTER_ATTEMPTS) deps.log.error("user event still undelivered", fields);
    else deps.log.warn("user event delivery failed; will retry", fields);
    return "failed";
  }
  await deps.store.deleteUserEvent(event.id);
  return "delivered";
}

/**
 * Delivers these pending events now (those no one else holds): true when none failed. The events that
 * failed wait for the worker, their retry's time stored with them.
 */
async function deliverNow(deps: Deps, events: UserEventRecord[]): Promise<boolean> {
  const now = deps.now().getTime();
  let delivered = true;
  for (const event of events) {
    if (event.leaseUntil && event.leaseUntil.getTime() > now) continue;
    if ((await attempt(deps, event)) === "failed") delivered = false;
  }
  return delivered;
}

/**
 * The store as the domain sees it: each write of a user that records an event (every creation, update and
 * deletion, for webhooks) is followed by an attempt to deliver the user's events: before it returns for
 * those the answer depends on (`email-verified`: the user has joined by domain when told they are
 * verified), right after it for webhooks, so no answer waits on the notification service. A failed attempt
 * does not fail the write: the event is stored, its retry scheduled, and the worker woken for it.
 */
export function eventPublishingStore(
  store: IdentityStore,
  deps: Omit<Deps, "store"> & {
    worker: Pick<PollingWorker, "wake">;
    /** Runs the webhooks' delivery after the write returns (tests hold on to it to await it). */
    inBackground?: (work: () => Promise<void>) => void;
  },
): IdentityStore {
  const inBackground = deps.inBackground ?? ((work) => void outsideAnyRequest(work));
  const failed = (userId: string, error: unknown) => {
    // The store failed after the write: the events fall due on their own.
    deps.log.warn("user events not delivered yet; the worker retries", { userId, error });
    deps.worker.wake(BACKOFF.baseMs);
  };
  const deliver = async (userId: string, events: UserEventRecord[]) => {
    if (!events.length) return;
    try {
      if (!(await deliverNow({ ...deps, store }, events))) deps.worker.wake(BACKOFF.baseMs);
    } catch (error) {
      failed(userId, error);
    }
  };
  // One read of the user's outbox per write: the events the answer waits for are delivered now, the
  // webhooks from the same read after the write returned.
  const publish = async (userId: string) => {
    let events: UserEventRecord[];
    try {
      events = await store.findUserEvents(userId);
    } catch (error) {
      failed(userId, error);
      return;
    }
    await deliver(
      userId,
      events.filter((event) => !isWebhookUserEvent(event.type)),
    );
    const webhooks = events.filter((event) => isWebhookUserEvent(event.type));
    if (webhooks.length) inBackground(() => deliver(userId, webhooks));
  };
  return {
    ...store,
    async createUserWithAccount(user, account, mailRequest) {
      const created = await store.createUserWithAccount(user, account, mailRequest);
      await publish(created.id);
      return created;
    },
    async markEmailVerified(id, email) {
      const updated = await store.markEmailVerified(id, email);
      if (updated) await publish(id);
      return updated;
    },
    async updateUser(id, patch, options) {
      const updated = await store.updateUser(id, patch, options);
      if (updated) await publish(id);
      return updated;
    },
    async deleteUserAndAccounts(userId) {
      await store.deleteUserAndAccounts(userId);
      await publish(userId);
    },
    async addUserEvent(event) {
      await store.addUserEvent(event);
      await publish(event.userId);
    },
  };
}

/** One pass: every due event (up to a batch) leased and delivered. Returns how many were due. */
export async function deliverDueUserEvents(deps: Deps): Promise<number> {
  const due = await deps.store.findDueUserEvents(deps.now(), BATCH_SIZE);
  await handleEach(due, (event) => attempt(deps, event), deps.log, "user event");
  return due.length;
}

/** The worker: a pass now, then one every pollIntervalMs, and one whenever a request's own delivery failed. */
export function startUserEventWorker(deps: Deps, pollIntervalMs = POLL_INTERVAL_MS): PollingWorker {
  return startPollingWorker({ name: "user events", pass: () => deliverDueUserEvents(deps), batchSize: BATCH_SIZE, pollIntervalMs, log: deps.log });
}
