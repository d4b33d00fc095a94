/**
 * The session store out of reach (PostgreSQL down or partitioned), on the memory store made to fail as pg
 * does, a memory cache and a test clock: get-session answers from the cache entries for the configured time
 * from the last clean lease check, read-only, and never a revoked session; anything that could hide a
 * revocation or a change (a pending record, a failed ban, a lease that lapsed before the store went away)
 * stops it.
 */
import { describe, expect, it } from "vitest";
import { readHeldSession, STALE_STOP_KEY } from "@auth-platform/runtime/session-cache";
import { errorCode } from "../../../../testing/error-code.js";
import { createSession, getSession, revokeSession, revokeUserSessions } from "./sessions.js";
import { aUser, holdNext, type TestRegistry, testRegistry, vault } from "../../test/test-registry.js";

const LEASE_MS = 600;
const STALE_SECONDS = 60;
const UNREACHABLE = "Error: connect ECONNREFUSED 127.0.0.1:5432";

function registry(env: Record<string, string> = {}): TestRegistry {
  return testRegistry({ SESSION_CACHE_LEASE_MS: String(LEASE_MS), SESSION_CACHE_STALE_SERVE_SECONDS: String(STALE_SECONDS), ...env });
}

async function signedIn(deps: TestRegistry) {
  const user = aUser(deps);
  await deps.lease.tick();
  return createSession(deps, { userId: user.id, rememberMe: true, user });
}

/** The store goes away; the next lease round notices; time passes beyond the last lease granted. */
async function storeAway(deps: TestRegistry): Promise<void> {
  deps.store.down = true;
  expect(await deps.lease.tick()).toBe(false);
  deps.clock.advance(LEASE_MS + 1);
}

describe("get-session while the store is out of reach", () => {
  it("serves the cached session as it is for the configured time from the last clean check, then answers the outage", async () => {
    const deps = registry();
    const session = await signedIn(deps);
    const cleanAt = deps.clock.now();
    const uncached = await signedIn(deps);
    await deps.cache.del(`session:${vault.lookup(uncached.token)}`);

    await storeAway(deps);
    expect(deps.lease.staleServingUntil()).toBe(cleanAt + STALE_SECONDS * 1000);
    const served = await getSession(deps, session.token, false);
    expect(served).toMatchObject({ refreshed: false, cached: { session: { id: session.id, expiresAt: session.expiresAt.toISOString() }, user: { id: session.userId } } });
    // Nothing cached for this token: the outage is the answer, not "no session".
    expect(await errorCode(getSession(deps, uncached.token, false))).toBe(UNREACHABLE);

    deps.clock.advance(cleanAt + STALE_SECONDS * 1000 - deps.clock.now());
    expect(await errorCode(getSession(deps, session.token, false))).toBe(UNREACHABLE);

    deps.store.down = false;
    expect(await deps.lease.tick()).toBe(true);
    expect(deps.lease.staleServingUntil()).toBe(0);
    expect((await getSession(deps, session.token, false))?.cached.session.id).toBe(session.id);
    expect((await getSession(deps, uncached.token, false))?.cached.session.id).toBe(uncached.id);
  });

  it("never extends a session meanwhile, under the lease or past it", async () => {
    const deps = registry({ SESSION_CACHE_LEASE_MS: "5000", SESSION_UPDATE_AGE: "1" });
    const session = await signedIn(deps);
    deps.store.down = true;
    deps.clock.advance(1_100);
    // The lease still vouches for the entry; the extension it is due waits for the store.
    expect(await getSession(deps, session.token, false)).toMatchObject({ refreshed: false, cached: { session: { expiresAt: session.expiresAt.toISOString() } } });
    expect(await deps.lease.tick()).toBe(false);
    deps.clock.advance(5_000);
    expect(await getSession(deps, session.token, false)).toMatchObject({ refreshed: false, cached: { session: { expiresAt: session.expiresAt.toISOString() } } });
  });

  it("is off with SESSION_CACHE_STALE_SERVE_SECONDS=0", async () => {
    const deps = registry({ SESSION_CACHE_STALE_SERVE_SECONDS: "0" });
    const session = await signedIn(deps);
    await storeAway(deps);
    expect(await errorCode(getSession(deps, session.token, false))).toBe(UNREACHABLE);
  });
});

describe("no revoked or changed session served during the outage", () => {
  it("a session revoked before the outage reads as none", async () => {
    const deps = registry();
    const session = await signedIn(deps);
    await revokeSession(deps, session.token);
    await storeAway(deps);
    expect(await getSession(deps, session.token, false)).toBeNull();
  });

  it("a revocation this replica recorded as pending (Redis away), then the store away: nothing served from the cache", async () => {
    const deps = registry();
    const session = await signedIn(deps);
    const waitOut = deps.lease.waitOut;
    deps.lease.waitOut = async () => {
      // The store goes while the revocation waits, and a lease round finds it gone within the last lease.
      deps.store.down = true;
      expect(await deps.lease.tick()).toBe(false);
      await waitOut();
    };
    deps.cache.down = true;
    await revokeUserSessions(deps, session.userId);
    // Redis returns with the entry and without the tombstone, the pending record out of reach in the store.
    deps.cache.down = false;
    expect(await deps.lease.tick()).toBe(false);
    expect(deps.lease.staleServingUntil()).toBe(0);
    expect(await errorCode(getSession(deps, session.token, false))).toBe(UNREACHABLE);
  });

  it("a lease round in flight when this replica records a revocation as pending cannot vouch for the entries", async () => {
    const deps = registry();
    const session = await signedIn(deps);
    deps.clock.advance(10);
    const held = holdNext(deps, "listPendingForgets");
    const round = deps.lease.tick();
    // The round has read the pending revocations (none yet) and waits in its read of the forgets.
    await held.reached;
    deps.clock.advance(10);
    deps.cache.down = true;
    deps.lease.waitOut = async () => undefined;
    await revokeUserSessions(deps, session.userId);
    deps.cache.down = false;
    held.release();
    expect(await round).toBe(true);
    // The store goes right after, well within the lease of that round: it missed the record.
    deps.store.down = true;
    expect(await deps.lease.tick()).toBe(false);
    expect(deps.lease.staleServingUntil()).toBe(0);
    deps.clock.advance(LEASE_MS + 1);
    expect(await errorCode(getSession(deps, session.token, false))).toBe(UNREACHABLE);
  });

  it("a pending revocation whose Redis is back by the end of its wait gets its tombstone at once", async () => {
    const deps = registry();
    const session = await signedIn(deps);
    const waitOut = deps.lease.waitOut;
    deps.lease.waitOut = async () => {
      await waitOut();
      deps.cache.down = false;
    };
    deps.cache.down = true;
    await revokeUserSessions(deps, session.userId);
    expect(await deps.cache.get(`revoked:${vault.lookup(session.token)}`)).toBe("1");
  });

  it("a store failure first seen after the last lease lapsed (no clean check within it): nothing served", async () => {
    const deps = registry();
    const session = await signedIn(deps);
    deps.clock.advance(LEASE_MS + 1);
    await storeAway(deps);
    expect(deps.lease.staleServingUntil()).toBe(0);
    expect(await errorCode(getSession(deps, session.token, false))).toBe(UNREACHABLE);
  });

  it("a Redis failure of the lease round ends it until the next clean check", async () => {
    const deps = registry();
    const session = await signedIn(deps);
    await storeAway(deps);
    expect(deps.lease.staleServingUntil()).toBeGreaterThan(0);
    deps.store.down = false;
    deps.cache.down = true;
    expect(await deps.lease.tick()).toBe(false);
    deps.cache.down = false;
    deps.store.down = true;
    expect(await deps.lease.tick()).toBe(false);
    expect(deps.lease.staleServingUntil()).toBe(0);
    expect(await errorCode(getSession(deps, session.token, false))).toBe(UNREACHABLE);
  });

  it("a ban (or any change of a user's sessions) the store cannot take fails, and stops cache serving on every replica", async () => {
    const deps = registry();
    const banned = await signedIn(deps);
    const other = await signedIn(deps);
    await storeAway(deps);
    expect(await getSession(deps, other.token, false)).not.toBeNull();

    expect(await errorCode(revokeUserSessions(deps, banned.userId, { user: { ...aUser(deps, { id: banned.userId }), banned: true } }))).toBe(UNREACHABLE);
    expect(deps.lease.staleServingUntil()).toBe(0);
    // Another replica, still in its window, finds the stop key beside every entry.
    expect(await deps.cache.get(STALE_STOP_KEY)).toBe("1");
    expect(await readHeldSession(deps.cache, deps.cacheMac, { token: banned.token, lookup: vault.lookup(banned.token) }, deps.clock.now())).toBeNull();
    expect(await errorCode(getSession(deps, banned.token, false))).toBe(UNREACHABLE);
    expect(await errorCode(getSession(deps, other.token, false))).toBe(UNREACHABLE);
  });

  it("a sign-out fails with the outage but its token is not served from the cache; another user's token is left alone", async () => {
    const deps = registry();
    const session = await signedIn(deps);
    await storeAway(deps);
    expect(await errorCode(revokeSession(deps, session.token, { ownerId: "someone-else" }))).toBe(UNREACHABLE);
    expect(await getSession(deps, session.token, false)).not.toBeNull();
    expect(await errorCode(revokeSession(deps, session.token))).toBe(UNREACHABLE);
    expect(await getSession(deps, session.token, false)).toBeNull();

    // Back: the tombstone holds until a retried sign-out deletes the row.
    deps.store.down = false;
    expect(await deps.lease.tick()).toBe(true);
    expect(await getSession(deps, session.token, false)).toBeNull();
    await revokeSession(deps, session.token);
    expect(await deps.store.findByToken(session.token)).toBeNull();
  });
});
