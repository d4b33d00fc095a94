/**
 * The cache lease on the memory store and a memory cache that can be made to fail like an unreachable Redis,
 * on a test clock: the lease is held only while no revocation or forget is pending, a pending revocation's
 * tombstone (a pending forget's drop) is written as soon as the cache takes it, and a lease granted before a
 * revocation was recorded lapses within the lease time.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { CACHE_LEASE_KEY, readCachedSession } from "@auth-platform/runtime/session-cache";
import { LEASE_MARGIN_MS } from "./cache-lease.js";
import { createSession } from "./sessions.js";
import { aUser, mac, type TestRegistry, testRegistry, vault } from "../../test/test-registry.js";

const LEASE_MS = 600;

describe("cache lease", () => {
  let deps: TestRegistry;
  beforeEach(() => {
    deps = testRegistry({ SESSION_CACHE_LEASE_MS: String(LEASE_MS) });
  });
  const read = async (token: string) => (await readCachedSession(deps.cache, mac, { token, lookup: vault.lookup(token) }, deps.clock.now())).cached;

  it("holds the lease while nothing is pending; its deadline is the check time plus the lease time", async () => {
    const before = deps.clock.now();
    expect(await deps.lease.tick()).toBe(true);
    expect(Number(await deps.cache.get(CACHE_LEASE_KEY))).toBe(before + LEASE_MS);
    deps.clock.advance(LEASE_MS);
    expect(await deps.cache.get(CACHE_LEASE_KEY)).toBeNull();
  });

  it("with a revocation pending and the cache down: no lease; once the cache is back, one round writes the tombstone, clears the record and grants the lease", async () => {
    expect(await deps.lease.tick()).toBe(true);
    const session = await createSession(deps, { userId: "u1", rememberMe: true, user: aUser(deps, { id: "u1" }) });
    expect(await read(session.token)).not.toBeNull();

    deps.cache.down = true;
    await deps.store.revokePending([session], "sign-out");
    expect(await deps.lease.tick()).toBe(false);
    deps.cache.down = false;
    // The cache is back with the stale entry, before any round ran: once the lease lapses, it reads as a miss.
    deps.clock.advance(LEASE_MS + 10);
    expect(await deps.cache.get(`session:${vault.lookup(session.token)}`)).not.toBeNull();
    expect(await read(session.token)).toBeNull();

    expect(await deps.lease.tick()).toBe(true);
    expect(await deps.store.listPending(10)).toEqual([]);
    expect(await read(session.token)).toBe("revoked");
    expect(await deps.cache.get(CACHE_LEASE_KEY)).not.toBeNull();
  });

  it("with a forget pending: no lease; once the cache is back, one round drops the old entry, clears the record and grants the lease", async () => {
    expect(await deps.lease.tick()).toBe(true);
    const session = await createSession(deps, { userId: "u2", rememberMe: true, user: aUser(deps, { id: "u2" }) });
    expect(await read(session.token)).not.toBeNull();

    deps.cache.down = true;
    await deps.store.forgetPending([vault.lookup(session.token)]);
    expect(await deps.lease.tick()).toBe(false);
    deps.cache.down = false;
    deps.clock.advance(LEASE_MS + 10);
    expect(await read(session.token)).toBeNull();
    expect(await deps.cache.get(`session:${vault.lookup(session.token)}`)).not.toBeNull();

    expect(await deps.lease.tick()).toBe(true);
    expect(await deps.store.listPendingForgets(10)).toEqual([]);
    expect(await deps.cache.get(`session:${vault.lookup(session.token)}`)).toBeNull();
    expect(await deps.cache.get(`generation:${vault.lookup(session.token)}`)).not.toBeNull();
    expect(await deps.cache.get(CACHE_LEASE_KEY)).not.toBeNull();
  });

  it("a session with a pending revocation and a pending forget ends with its tombstone", async () => {
    const session = await createSession(deps, { userId: "u3", rememberMe: true, user: aUser(deps, { id: "u3" }) });
    await deps.store.forgetPending([vault.lookup(session.token)]);
    await deps.store.revokePending([session], "sign-out");
    expect(await deps.lease.tick()).toBe(true);
    expect(await deps.store.listPending(10)).toEqual([]);
    expect(await deps.store.listPendingForgets(10)).toEqual([]);
    expect(await read(session.token)).toBe("revoked");
  });

  it("waitOut lasts the lease time plus the margin: no lease granted before it is still trusted after it", async () => {
    expect(await deps.lease.tick()).toBe(true);
    const start = deps.clock.now();
    await deps.lease.waitOut();
    expect(deps.clock.now() - start).toBe(LEASE_MS + LEASE_MARGIN_MS);
    expect(await deps.cache.get(CACHE_LEASE_KEY)).toBeNull();
  });
});
