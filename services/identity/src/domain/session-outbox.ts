/**
 * The session service keeps its own copy of each signed-in user and ends sessions when identity says so
 * (a ban, a password reset, a deletion). What it must be told is written to the session outbox in the same
 * transaction as the change (the store's USER_WRITES), so a change can never be stored while its effect is
 * lost: the write's own request delivers it at once (publishingStore), and when the session service (or the
 * organization service, for a deletion) cannot be reached, the worker here retries until it can. The worker
 * leaves a fresh row to its request (WRITER_DELIVERY_MS), so a change is not delivered twice at once.
 *
 * A delivery sends the user as stored at that moment, never the copy of the write that queued it: deliveries
 * need no order, a late one carries the newest state, and the session service keeps only newer copies.
 */
import { retryDelay } from "@auth-platform/runtime/backoff";
import { handleEach, type PollingWorker, startPollingWorker } from "@auth-platform/runtime/polling-worker";
import type { IdentityStore, SessionOutboxRecord, USER_WRITES } from "../store/identity-store.js";
import type { Registry } from "./ports.js";

type Deps = Pick<Registry, "store" | "sessions" | "organizations" | "now" | "log">;

export const BATCH_SIZE = 20;
/** Longer than a delivery takes (a store read and up to three RPCs under their deadlines). */
export const LEASE_MS = 60_000;
export const POLL_INTERVAL_MS = 1_000;
/** Retries back off to once a minute and never stop: a ban or a revocation is never dropped. */
const BACKOFF = { baseMs: 1_000, maxMs: 60_000 };
/** From this many failed attempts on, each failure is logged as an error: someone should look. */
const ALERT_AFTER_ATTEMPTS = 10;

/** Tells the session service (and, for a deleted user, the organization service) what the row asks. */
export async function deliverSessionOutbox(deps: Deps, row: SessionOutboxRecord): Promise<void> {
  const user = await deps.store.findUserById(row.userId);
  if (!user) {
    // Deleted: the sessions end, the memberships go (one an accept wrote meanwhile included), the copy goes.
    await deps.sessions.revokeUserSessions(row.userId, undefined, "user-deleted");
    await deps.organizations.removeUserMemberships(row.userId);
    await deps.sessions.dropUserCopy(row.userId);
    return;
  }
  // The revocation carries the copy, kept before the sessions end: a session being created meanwhile is refused.
  if (row.revokeSessions) await deps.sessions.revokeUserSessions(user.id, user);
  else await deps.sessions.putUserCopy(user);
}

/**
 * Delivers the user's pending row now, if there is one, and clears what it delivered. Throws when the
 * session service cannot be reached (the row stays for the worker).
 */
export async function flushSessionOutbox(deps: Deps, userId: string): Promise<void> {
  const row = await deps.store.findSessionOutbox(userId);
  if (!row) return;
  await deliverSessionOutbox(deps, row);
  // A change queued meanwhile moved the version: its own request (or the worker) delivers that one.
  await deps.store.clearSessionOutbox(userId, row.version);
}

/**
 * The store as the domain sees it: each write of a user (USER_WRITES, and a password change that ends the
 * sessions) is followed, before it returns, by an attempt to deliver its outbox row. A failed attempt does
 * not fail the write, which is stored and whose effect is queued: it is logged and the worker retries it.
 */
export function publishingStore(store: IdentityStore, deps: Omit<Deps, "store"> & { outbox: Pick<PollingWorker, "wake"> }): IdentityStore {
  const publish = async (userId: string) => {
    try {
      await flushSessionOutbox({ ...deps, store }, userId);
    } catch (error) {
      deps.log.warn("session service not told of a user change yet; the outbox worker retries", { userId, error });
      // The row waits WRITER_DELIVERY_MS for this request; due now, the worker takes it over. Should the
      // store be down too, the row falls due on its own.
      await store.retrySessionOutbox(userId, deps.now()).catch(() => {});
      deps.outbox.wake(BACKOFF.baseMs);
    }
  };
  const published =
    <Args extends unknown[], Result>(write: (...args: Args) => Promise<Result>, userOf: (...args: Args) => string | undefined) =>
    async (...args: Args): Promise<Result> => {
      const result = await write(...args);
      const userId = userOf(...args);
      if (userId) await publish(userId);
      return result;
    };
  // Typed by USER_WRITES: a write of a user added to the store and not wrapped here does not compile.
  const writes: Pick<IdentityStore, (typeof USER_WRITES)[number]> = {
    updateUser: published(store.updateUser, (id) => id),
    markEmailVerified: published(store.markEmailVerified, (id) => id),
    deleteUserAndAccounts: published(store.deleteUserAndAccounts, (id) => id),
    activateTwoFactor: published(store.activateTwoFactor, (id) => id),
    deleteTwoFactor: published(store.deleteTwoFactor, (id) => id),
    queueSessionRevocation: published(store.queueSessionRevocation, (id) => id),
    setAccountPassword: published(store.setAccountPassword, (_account, _hash, options) => options?.revokeSessionsOf),
    createAccount: published(store.createAccount, (account, options) => (options?.revokeSessions ? account.userId : undefined)),
  };
  return { ...store, ...writes };
}

async function handle(deps: Deps, row: SessionOutboxRecord): Promise<void> {
  const now = deps.now();
  if (!(await deps.store.claimSessionOutbox(row.userId, row.version, now, new Date(now.getTime() + LEASE_MS)))) return;
  const attempts = row.attempts + 1;
  try {
    await deliverSessionOutbox(deps, row);
  } catch (error) {
    const delay = retryDelay(attempts, BACKOFF);
    await deps.store.retrySessionOutbox(row.userId, new Date(deps.now().getTime() + delay));
    const fields = { userId: row.userId, revokeSessions: row.revokeSessions, attempts, retryInMs: delay, error };
    if (attempts >= ALERT_AFTER_ATTEMPTS) deps.log.error("session outbox row still undelivered", fields);
    else deps.log.warn("session outbox delivery failed; will retry", fields);
    return;
  }
  // Changed since it was read: the newer version is due now and goes in a following pass.
  if (!(await deps.store.clearSessionOutbox(row.userId, row.version))) await deps.store.retrySessionOutbox(row.userId, deps.now());
}

/** One pass: every due row (up to a batch) claimed and delivered. Returns how many were due. */
export async function deliverDueSessionOutbox(deps: Deps): Promise<number> {
  const due = await deps.store.findDueSessionOutbox(deps.now(), BATCH_SIZE);
  await handleEach(due, (row) => handle(deps, row), deps.log, "session outbox");
  return due.length;
}

/** The worker: a pass now, then one every pollIntervalMs, and one whenever a request's own delivery failed. */
export function startSessionOutboxWorker(deps: Deps, pollIntervalMs = POLL_INTERVAL_MS): PollingWorker {
  return startPollingWorker({ name: "session outbox", pass: () => deliverDueSessionOutbox(deps), batchSize: BATCH_SIZE, pollIntervalMs, log: deps.log });
}
