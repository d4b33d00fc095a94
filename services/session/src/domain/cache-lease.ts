/**
 * The cache lease (docs/adr/0003-cache-lease-through-redis-outages.md). Readers trust a cache entry only while the
 * lease key is in Redis. Each session replica, every third of the lease time (runtime/polling-worker.ts):
 *   1. notes the time, then asks the store for pending revocations (their tombstones not yet written) and
 *      pending forgets (entries of changed sessions or users not yet dropped);
 *   2. if there are some, writes those tombstones (and drops the entries), drops the forgotten entries,
 *      clears both, and goes back to 1;
 *   3. once none is pending, sets the lease to end leaseMs after the time noted in 1.
 * A replica that records a pending revocation or forget waits out leaseMs (plus a margin) before it answers:
 * every lease set on a check made before that record has lapsed by then, and every later check sees the
 * record, so from then on no cached copy of the revoked (or changed) session is trusted, on any gateway or
 * replica, until its tombstone is written (or its entry dropped). A forget never removes a tombstone, so a
 * session with both pending ends revoked, whatever the order.
 *
 * While the store is out of reach the lease is not renewed (a pending revocation could hide there), and the
 * replica may serve the entries it finds for a bounded time instead (staleServingUntil; sessions.ts,
 * getSession): from its last clean check, whose lease was still in force when the store was first found
 * unreachable, for staleServeMs. Nothing pending existed at that check, and nothing can have been recorded
 * since without the store. Any other failure (Redis, a pending record that could not be flushed, a
 * revocation or forget this replica recorded as pending) ends it until the next clean check.
 */
import { isDatabaseUnreachable } from "@auth-platform/runtime/database-unreachable";
import type { KeyValue } from "@auth-platform/runtime/key-value";
import type { Logger } from "@auth-platform/runtime/log";
import { type PollingWorker, startPollingWorker } from "@auth-platform/runtime/polling-worker";
import { forgetCachedSession, holdCacheLease, revokeCachedSession } from "@auth-platform/runtime/session-cache";
import type { SessionStore } from "../store/session-store.js";
import type { SessionEvent } from "./session-events.js";

/** Covers the time a SET can take to reach Redis and the clock difference between hosts. */
export const LEASE_MARGIN_MS = 500;
const FLUSH_BATCH = 500;
const MAX_FLUSH_ROUNDS = 20;

export interface CacheLease {
  /** Resolves once no lease granted before this call can still be trusted. */
  waitOut(): Promise<void>;
  /** One round: flush pending revocations and forgets, then renew the lease if none is left. True when the lease is held. */
  tick(): Promise<boolean>;
  /**
   * Until when (epoch ms) this replica may serve the cache entries it holds without its store (0: not
   * now). Set only while the store is out of reach since a clean check made within the lease before.
   */
  staleServingUntil(): number;
  /** Ends stale serving until the next clean check: a change of sessions was not written to the cache. */
  forbidStaleServing(): void;
  /** Runs a round now, then one every third of the lease time; resolves once the first is done. */
  start(): Promise<void>;
  /** Ends the rounds; waits for the one in progress. */
  stop(): Promise<void>;
}

export interface CacheLeaseDeps {
  store: SessionStore;
  cache: KeyValue;
  log: Logger;
  leaseMs: number;
  /** How long after its last clean check the replica may serve cached sessions while its store is out of reach (0: never). */
  staleServeMs?: number;
  /** The clock (epoch ms) lease deadlines are set on; the real one by default. */
  now?: () => number;
  /** Waits `ms` on that clock; a real timer by default. */
  sleep?: (ms: number) => Promise<void>;
  /**
   * Tells this replica's watchers of what is pending before it is flushed: a replica that could not publish
   * its change through Redis recorded it here, and waits for the others to have done so (session-relay.ts).
   */
  publish?: (event: SessionEvent) => Promise<void>;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function cacheLease(deps: CacheLeaseDeps): CacheLease {
  const { now = Date.now, sleep = realSleep } = deps;
  let worker: PollingWorker | undefined;
  let failing = false;
  // The last clean check (nothing pending, lease set), while stale serving may still count from it.
  let cleanAt: number | undefined;
  // Whether the ticks since that check failed, each because the store was out of reach.
  let storeAway = false;
  // When this replica last recorded a revocation or forget as pending: a check begun before it may have
  // missed the record, so it cannot vouch for the entries (a round in flight may still end clean).
  let forbiddenAt = Number.NEGATIVE_INFINITY;
  const vouchedAt = () => (cleanAt !== undefined && cleanAt > forbiddenAt ? cleanAt : undefined);

  function storeUnreachable(at: number, error: unknown): void {
    const staleServeMs = deps.staleServeMs ?? 0;
    // Found within the lease of the last clean check: no revocation can have been recorded in between.
    const from = vouchedAt();
    if (!storeAway && from !== undefined && at - from <= deps.leaseMs && staleServeMs > 0) {
      deps.log.warn("session store unreachable: serving cached sessions read-only", { until: new Date(from + staleServeMs).toISOString(), error });
    } else if (!storeAway) {
      cleanAt = undefined;
    }
    storeAway = true;
  }

  async function tick(): Promise<boolean> {
    let sawPending = false;
    let checkedAt = now();
    try {
      for (let round = 0; round < MAX_FLUSH_ROUNDS; round++) {
        checkedAt = now();
        const pending = await deps.store.listPending(FLUSH_BATCH);
        const forgets = await deps.store.listPendingForgets(FLUSH_BATCH);
        if (!pending.length && !forgets.length) {
          const at = now();
          await holdCacheLease(deps.cache, checkedAt + deps.leaseMs - at, at);
          if (failing) deps.log.info("session cache lease held again");
          failing = false;
          cleanAt = checkedAt;
          storeAway = false;
          return true;
        }
        sawPending = true;
        if (deps.publish) {
          const told: Promise<void>[] = [];
          if (pending.length) told.push(deps.publish({ kind: "sessions-revoked", lookups: pending.map((p) => p.lookup) }));
          if (forgets.length) told.push(deps.publish({ kind: "session-changed", lookups: forgets.map((f) => f.lookup) }));
          await Promise.all(told);
        }
        if (pending.length) {
          await Promise.all(pending.map((p) => revokeCachedSession(deps.cache, p.lookup, p.expiresAt, now())));
          await deps.store.clearPending(pending.map((p) => p.lookup));
          deps.log.info("pending session revocations written to the cache", { count: pending.length });
        }
        if (forgets.length) {
          await Promise.all(forgets.map((f) => forgetCachedSession(deps.cache, f.lookup)));
          await deps.store.clearPendingForgets(forgets);
          deps.log.info("pending session forgets written to the cache", { count: forgets.length });
        }
      }
      cleanAt = undefined;
      return false;
    } catch (error) {
      if (!failing) deps.log.warn("session cache lease not renewed; cached sessions are not trusted until it is", { error });
      failing = true;
      if (!sawPending && isDatabaseUnreachable(error)) storeUnreachable(checkedAt, error);
      else cleanAt = undefined;
      return false;
    }
  }

  return {
    tick,
    waitOut: () => sleep(deps.leaseMs + LEASE_MARGIN_MS),
    staleServingUntil() {
      const from = vouchedAt();
      return storeAway && from !== undefined ? from + (deps.staleServeMs ?? 0) : 0;
    },
    forbidStaleServing() {
      forbiddenAt = now();
      cleanAt = undefined;
    },
    start() {
      let firstDone!: () => void;
      const first = new Promise<void>((resolve) => (firstDone = resolve));
      worker = startPollingWorker({
        name: "session cache lease",
        // A round logs its own failure; the next round is the retry.
        pass: async () => {
          await tick().finally(firstDone);
          return 0;
        },
        batchSize: 1,
        pollIntervalMs: Math.max(100, Math.floor(deps.leaseMs / 3)),
        log: deps.log,
      });
      return first;
    },
    stop: async () => worker?.stop(),
  };
}
