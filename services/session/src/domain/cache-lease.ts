/**
 * The cache lease (docs/adr/0003-cache-lease-through-redis-outages.md). Readers trust a cache entry only while the
 * lease key is in Redis. Each session replica, every third of the lease time:
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
 */
import type { KeyValue } from "@auth-platform/runtime/key-value";
import type { Logger } from "@auth-platform/runtime/log";
import { forgetCachedSession, holdCacheLease, revokeCachedSession } from "@auth-platform/runtime/session-cache";
import type { SessionStore } from "../store/session-store.js";

/** Covers the time a SET can take to reach Redis and the clock difference between hosts. */
export const LEASE_MARGIN_MS = 500;
const FLUSH_BATCH = 500;
const MAX_FLUSH_ROUNDS = 20;

export interface CacheLease {
  /** Resolves once no lease granted before this call can still be trusted. */
  waitOut(): Promise<void>;
  /** One round: flush pending revocations and forgets, then renew the lease if none is left. True when the lease is held. */
  tick(): Promise<boolean>;
  stop(): void;
}

export interface CacheLeaseDeps {
  store: SessionStore;
  cache: KeyValue;
  log: Logger;
  leaseMs: number;
  /** The clock (epoch ms) lease deadlines are set on; the real one by default. */
  now?: () => number;
  /** Waits `ms` on that clock; a real timer by default. */
  sleep?: (ms: number) => Promise<void>;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function cacheLease(deps: CacheLeaseDeps): CacheLease {
  const { now = Date.now, sleep = realSleep } = deps;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let failing = false;

  async function tick(): Promise<boolean> {
    try {
      for (let round = 0; round < MAX_FLUSH_ROUNDS; round++) {
        const checkedAt = now();
        const pending = await deps.store.listPending(FLUSH_BATCH);
        const forgets = await deps.store.listPendingForgets(FLUSH_BATCH);
        if (!pending.length && !forgets.length) {
          const at = now();
          await holdCacheLease(deps.cache, checkedAt + deps.leaseMs - at, at);
          if (failing) deps.log.info("session cache lease held again");
          failing = false;
          return true;
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
      return false;
    } catch (error) {
      if (!failing) deps.log.warn("session cache lease not renewed; cached sessions are not trusted until it is", { error });
      failing = true;
      return false;
    }
  }

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(async () => {
      await tick();
      schedule();
    }, Math.max(100, Math.floor(deps.leaseMs / 3)));
    timer.unref();
  };
  schedule();

  return {
    tick,
    waitOut: () => sleep(deps.leaseMs + LEASE_MARGIN_MS),
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
