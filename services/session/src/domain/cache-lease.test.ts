/**
 * The cache lease on a real store (SQLite) and a memory KeyValue that can be made to fail like an
 * unreachable Redis: the lease is held only while no revocation is pending, a pending revocation's tombstone
 * is written as soon as the cache takes it, and a lease granted before a revocation was recorded lapses
 * within the lease time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryKeyValue, type KeyValue } from "@auth-platform/runtime/key-value";
import { createLogger } from "@auth-platform/runtime/log";
import { newId, randomString } from "@auth-platform/runtime/random";
import { CACHE_LEASE_KEY, CACHE_RECORD_VERSION, type CachedSession, readCachedSession, writeCachedSession } from "@auth-platform/runtime/session-cache";
import { tokenVault } from "@auth-platform/runtime/session-token";
import { createTestDatabase, type TestDatabase } from "../../../../testing/databases.js";
import { openSessionStore } from "../store/mikro-session-store.js";
import type { SessionStore } from "../store/session-store.js";
import { type CacheLease, cacheLease, LEASE_MARGIN_MS } from "./cache-lease.js";

const LEASE_MS = 600;
const vault = tokenVault("lease-secret-0123456789-0123456789");

/** A memory store that refuses every command while `down` is set, as ioredis does with Redis unreachable. */
function faultyKeyValue(): KeyValue & { down: boolean } {
  const inner = createMemoryKeyValue();
  const kv = { down: false } as KeyValue & { down: boolean };
  const guard =
    <A extends unknown[], R>(f: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (kv.down) throw new Error("Stream isn't writeable and enableOfflineQueue options is false");
      return f(...args);
    };
  return Object.assign(kv, {
    kind: "redis" as const,
    get: guard(inner.get),
    set: guard(inner.set),
    del: guard(inner.del),
    getMany: guard(inner.getMany),
    hit: guard(inner.hit),
    ready: inner.ready,
    close: inner.close,
  });
}

describe("cache lease", () => {
  let db: TestDatabase;
  let store: SessionStore;
  let kv: ReturnType<typeof faultyKeyValue>;
  let lease: CacheLease;

  beforeAll(async () => {
    db = await createTestDatabase("cache_lease", "sqlite");
    store = await openSessionStore(db.url, vault);
    kv = faultyKeyValue();
    lease = cacheLease({ store, cache: kv, log: createLogger("test", "error"), leaseMs: LEASE_MS });
    lease.stop(); // the test drives the rounds itself
  });

  afterAll(async () => {
    await kv?.close();
    await store?.close();
    await db?.drop();
  });

  const aToken = () => ({ token: randomString(32), expiresAt: new Date(Date.now() + 86_400_000) });
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("holds the lease while nothing is pending; its deadline is the check time plus the lease time", async () => {
    const before = Date.now();
    expect(await lease.tick()).toBe(true);
    const deadline = Number(await kv.get(CACHE_LEASE_KEY));
    expect(deadline).toBeGreaterThanOrEqual(before + LEASE_MS);
    expect(deadline).toBeLessThanOrEqual(Date.now() + LEASE_MS);
  });

  it("with a revocation pending and the cache down: no lease; once the cache is back, one round writes the tombstone, clears the record and grants the lease", async () => {
    const revoked = aToken();
    const entry: CachedSession = {
      v: CACHE_RECORD_VERSION,
      session: { id: newId(), token: revoked.token, userId: newId(), expiresAt: revoked.expiresAt.toISOString(), ipAddress: null, userAgent: null, createdAt: new Date().toISOString(), updatedAt: new Date().toISOString(), impersonatedBy: null, activeOrganizationId: null },
      user: { id: newId(), name: "L", email: "l@example.com", emailVerified: false, image: null, createdAt: new Date().toISOString(), updatedAt: new Date().toISOString(), username: null, displayUsername: null, extraFields: {} },
      refreshAt: Date.now() + 86_400_000,
    };
    const key = { token: revoked.token, lookup: vault.lookup(revoked.token) };
    await writeCachedSession(kv, key.lookup, entry);
    expect(await lease.tick()).toBe(true);
    expect(await readCachedSession(kv, key)).not.toBeNull();

    kv.down = true;
    await store.revokePending([revoked]);
    expect(await lease.tick()).toBe(false);
    kv.down = false;
    // The cache is back with the stale entry, before any round ran: once the lease lapses, it reads as a miss.
    await sleep(LEASE_MS + 10);
    expect(await kv.get(`session:${key.lookup}`)).not.toBeNull();
    expect(await readCachedSession(kv, key)).toBeNull();

    expect(await lease.tick()).toBe(true);
    expect(await store.listPending(10)).toEqual([]);
    expect(await readCachedSession(kv, key)).toBe("revoked");
    expect(await kv.get(CACHE_LEASE_KEY)).not.toBeNull();
  });

  it("waitOut lasts the lease time plus the margin", async () => {
    const start = Date.now();
    await lease.waitOut();
    expect(Date.now() - start).toBeGreaterThanOrEqual(LEASE_MS + LEASE_MARGIN_MS - 5);
  });
});
