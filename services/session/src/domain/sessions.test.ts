/**
 * Session use cases on the memory store and cache, on a test clock: reads come from the cache and fall back
 * to the store when Redis fails; a session is extended once the update age has passed (never a short one);
 * a revoke writes the tombstone before it deletes the row, and during a Redis outage still succeeds,
 * recorded as pending and after waiting out the cache lease, so no revoked session is served again.
 */
import { describe, expect, it } from "vitest";
import { CACHE_LEASE_KEY } from "@auth-platform/runtime/session-cache";
import { setActiveOrganization } from "./active-organization.js";
import { createSession, forgetUser, getSession, listSessions, revokeSession, revokeUserSessions, type ValidSession } from "./sessions.js";
import { aUser, handles, holdNext, type TestRegistry, testRegistry, vault } from "../../test/test-registry.js";
import { errorCode } from "../../../../testing/error-code.js";

const DAY = 86_400_000;
/** The caller the gateway names for a request acting in this session. */
const callerOf = (session: { id: string; userId: string }) => ({ sessionId: session.id, userId: session.userId });
const expiryOf = (found: ValidSession | null) => Date.parse(found!.cached.session.expiresAt);

async function signedIn(deps: TestRegistry, options: { rememberMe?: boolean; userId?: string } = {}) {
  const user = aUser(deps, options.userId ? { id: options.userId } : {});
  await deps.lease.tick();
  return createSession(deps, { userId: user.id, rememberMe: options.rememberMe ?? true, user });
}

/** Counts the store reads by token, to tell a cache hit from a fallback. */
function countStoreReads(deps: TestRegistry) {
  const counter = { reads: 0 };
  const findByToken = deps.store.findByToken.bind(deps.store);
  deps.store.findByToken = (token) => {
    counter.reads++;
    return findByToken(token);
  };
  return counter;
}

describe("get-session", () => {
  it("serves a new session from the cache, and from the store while the cache is down", async () => {
    const deps = testRegistry();
    const session = await signedIn(deps);
    const store = countStoreReads(deps);
    const cached = await getSession(deps, session.token, false);
    expect(cached).toMatchObject({ refreshed: false, cached: { session: { token: session.token, userId: session.userId }, user: { id: session.userId } } });
    expect(store.reads).toBe(0);

    deps.cache.down = true;
    const fallback = await getSession(deps, session.token, false);
    expect(fallback?.cached.session.id).toBe(session.id);
    expect(fallback?.cached.user).toEqual(cached?.cached.user);
    expect(store.reads).toBe(1);
  });

  it("a cache miss reads the store and the user, and fills the cache for the next read", async () => {
    const deps = testRegistry();
    const session = await signedIn(deps);
    await deps.cache.del(`session:${vault.lookup(session.token)}`);
    const store = countStoreReads(deps);
    expect((await getSession(deps, session.token, false))?.cached.user.id).toBe(session.userId);
    expect((await getSession(deps, session.token, false))?.cached.user.id).toBe(session.userId);
    expect(store.reads).toBe(1);
  });

  // Issue 33: the cache was trusted as written; whoever could write to it became an admin or another user.
  it("a cache entry edited to make its user an admin or another user is refused: the store answers, a warning is logged, the fill replaces it", async () => {
    const deps = testRegistry();
    const warnings: Array<[string, Record<string, unknown> | undefined]> = [];
    deps.log = { ...deps.log, warn: (msg, fields) => void warnings.push([msg, fields]) };
    const session = await signedIn(deps);
    const other = await signedIn(deps);
    const key = `session:${vault.lookup(session.token)}`;
    const genuine = (await deps.cache.get(key))!;
    const store = countStoreReads(deps);
    for (const edited of [genuine.replace('"role":"user"', '"role":"admin"'), genuine.replaceAll(session.userId, other.userId)]) {
      await deps.cache.set(key, edited, DAY);
      const found = await getSession(deps, session.token, false);
      expect(found?.cached.user).toMatchObject({ id: session.userId, role: "user" });
      expect(found?.cached.session.userId).toBe(session.userId);
      expect(await deps.cache.get(key)).toBe(genuine);
    }
    expect(store.reads).toBe(2);
    expect(warnings).toEqual([expect.arrayContaining([expect.stringContaining("MAC does not hold"), { reason: "invalid-mac" }]), expect.anything()]);
    // The other session's valid entry moved under this token's key is refused too.
    await deps.cache.set(key, (await deps.cache.get(`session:${vault.lookup(other.token)}`))!, DAY);
    expect((await getSession(deps, session.token, false))?.cached.user.id).toBe(session.userId);
    expect(store.reads).toBe(3);
  });

  it("answers null for an unknown token, an expired session (which is deleted), and a user who no longer exists", async () => {
    const deps = testRegistry();
    expect(await getSession(deps, "no-such-token", false)).toBeNull();
    const short = await signedIn(deps, { rememberMe: false });
    deps.clock.advance(DAY);
    expect(await getSession(deps, short.token, false)).toBeNull();
    expect(await deps.store.findByToken(short.token)).toBeNull();

    const orphan = await signedIn(deps);
    await forgetUser(deps, orphan.userId);
    expect(await deps.store.findUser(orphan.userId)).toBeNull();
    expect(await getSession(deps, orphan.token, false)).toBeNull();
  });

  it("serves the changed user after forgetUser, from the cache and from the store on a miss", async () => {
    const deps = testRegistry();
    const session = await signedIn(deps);
    const user = (await getSession(deps, session.token, false))!.cached.user;
    expect(user.name).toBe("Ada");
    deps.clock.advance(1_000);
    await forgetUser(deps, session.userId, { ...user, name: "Ada King", updatedAt: new Date(deps.clock.now()).toISOString() });
    expect((await getSession(deps, session.token, false))?.cached.user.name).toBe("Ada King");
    // With the cache down every read is a miss: the store's copy answers.
    deps.cache.down = true;
    expect((await getSession(deps, session.token, false))?.cached.user.name).toBe("Ada King");
  });

  it("an older copy of the user arriving after a newer one does not win", async () => {
    const deps = testRegistry();
    const session = await signedIn(deps);
    const user = (await getSession(deps, session.token, false))!.cached.user;
    const at = (ms: number) => new Date(deps.clock.now() + ms).toISOString();
    await forgetUser(deps, user.id, { ...user, name: "Newest", updatedAt: at(2_000) });
    await forgetUser(deps, user.id, { ...user, name: "Stale", updatedAt: at(1_000) });
    expect((await getSession(deps, session.token, false))?.cached.user.name).toBe("Newest");
    // A sign-in that read the user before the change does not bring the old copy back either.
    const other = await createSession(deps, { userId: user.id, rememberMe: true, user: { ...user, name: "Read before the change" } });
    await deps.cache.del(`session:${vault.lookup(other.token)}`);
    expect((await getSession(deps, other.token, false))?.cached.user.name).toBe("Newest");
  });

  it("a session with no copy of its user (created before copies were kept) reads as signed out until identity pushes one", async () => {
    const deps = testRegistry();
    const user = aUser(deps);
    const session = await createSession(deps, { userId: user.id, rememberMe: true });
    expect(await deps.store.usersMissingSnapshot("", 10)).toEqual([user.id]);
    expect(await getSession(deps, session.token, false)).toBeNull();
    // The session itself is kept: the backfill identity runs at start pushes the user.
    expect(await deps.store.findByToken(session.token)).not.toBeNull();
    await forgetUser(deps, user.id, user);
    expect(await deps.store.usersMissingSnapshot("", 10)).toEqual([]);
    expect((await getSession(deps, session.token, false))?.cached.user).toEqual(user);
  });
});

describe("changes during a Redis outage (the forget is recorded as pending)", () => {
  it("forgetUser succeeds after waiting out the lease; the old copy Redis comes back with is never served", async () => {
    const deps = testRegistry();
    const session = await signedIn(deps);
    const user = (await getSession(deps, session.token, false))!.cached.user;
    expect(user.role).toBe("user");
    deps.clock.advance(1_000); // a change after the sign-in: identity gives it a later updatedAt
    await forgetUser(deps, session.userId, { ...user, role: "admin", updatedAt: new Date(deps.clock.now()).toISOString() });
    expect((await getSession(deps, session.token, false))?.cached.user.role).toBe("admin");

    deps.cache.down = true;
    deps.clock.advance(1_000);
    const start = deps.clock.now();
    await forgetUser(deps, session.userId, { ...user, role: "user", name: "Ada King", updatedAt: new Date(deps.clock.now()).toISOString() });
    expect(deps.clock.now() - start).toBeGreaterThanOrEqual(deps.config.cacheLeaseMs);
    expect(await deps.store.listPendingForgets(10)).toHaveLength(1);
    expect((await getSession(deps, session.token, false))?.cached.user).toMatchObject({ role: "user", name: "Ada King" });

    // Redis is back with the entry from before the change: with the lease lapsed it is not trusted.
    deps.cache.down = false;
    expect(await deps.cache.get(`session:${vault.lookup(session.token)}`)).not.toBeNull();
    expect((await getSession(deps, session.token, false))?.cached.user).toMatchObject({ role: "user", name: "Ada King" });
    // The next round drops the entry, clears the record and holds the lease; the cache then serves the change.
    expect(await deps.lease.tick()).toBe(true);
    expect(await deps.store.listPendingForgets(10)).toEqual([]);
    expect((await getSession(deps, session.token, false))?.cached.user).toMatchObject({ role: "user", name: "Ada King" });
    const counter = countStoreReads(deps);
    expect((await getSession(deps, session.token, false))?.cached.user.role).toBe("user");
    expect(counter.reads).toBe(0);
  });

  it("a session both revoked and forgotten during the outage ends revoked", async () => {
    const deps = testRegistry();
    const session = await signedIn(deps);
    const user = (await getSession(deps, session.token, false))!.cached.user;
    deps.cache.down = true;
    await forgetUser(deps, session.userId, { ...user, name: "Ada King" });
    await revokeSession(deps, session.token);
    expect(await deps.store.listPendingForgets(10)).toHaveLength(1);
    expect(await deps.store.listPending(10)).toHaveLength(1);
    deps.cache.down = false;
    expect(await deps.lease.tick()).toBe(true);
    expect(await deps.cache.get(`revoked:${vault.lookup(session.token)}`)).toBe("1");
    expect(await deps.cache.get(`session:${vault.lookup(session.token)}`)).toBeNull();
    expect(await getSession(deps, session.token, false)).toBeNull();
  });
});

describe("changes during a read (a fill never puts an older copy back)", () => {
  it("a cache miss that read the user before a role change does not cache the old role after it", async () => {
    const deps = testRegistry();
    const session = await signedIn(deps, { userId: "demoted-admin" });
    deps.clock.advance(1_000); // a change after the sign-in: identity gives it a later updatedAt
    await forgetUser(deps, session.userId, aUser(deps, { id: session.userId, role: "admin" }));
    deps.clock.advance(1_000);
    const held = holdNext(deps, "findUser");
    const reading = getSession(deps, session.token, false);
    await held.reached;
    await forgetUser(deps, session.userId, aUser(deps, { id: session.userId, role: "user" }));
    held.release();
    expect((await reading)?.cached.user.role).toBe("admin"); // what that read saw; it answered before the change
    expect((await getSession(deps, session.token, false))?.cached.user.role).toBe("user");
  });

  it("a refresh that read the entry before a change does not write the old copy back", async () => {
    const deps = testRegistry({ SESSION_UPDATE_AGE: "3600" });
    const session = await signedIn(deps);
    const user = (await getSession(deps, session.token, false))!.cached.user;
    deps.clock.advance(3_600_000);
    await deps.lease.tick();
    const held = holdNext(deps, "extend");
    const refreshing = getSession(deps, session.token, false);
    await held.reached;
    await forgetUser(deps, user.id, { ...user, name: "Changed meanwhile", updatedAt: new Date(deps.clock.now()).toISOString() });
    held.release();
    expect((await refreshing)?.refreshed).toBe(true);
    const next = await getSession(deps, session.token, false);
    expect(next?.cached.user.name).toBe("Changed meanwhile");
    expect(expiryOf(next)).toBe(deps.clock.now() + deps.config.expiresInSeconds * 1000);
  });

  it("a sign-in that carried the user as it was before a change does not cache it after the change", async () => {
    const deps = testRegistry();
    const user = aUser(deps, { name: "Before" });
    await deps.lease.tick();
    const held = holdNext(deps, "putUser");
    const creating = createSession(deps, { userId: user.id, rememberMe: true, user });
    await held.reached;
    deps.clock.advance(1_000);
    await forgetUser(deps, user.id, { ...user, name: "After", updatedAt: new Date(deps.clock.now()).toISOString() });
    held.release();
    const session = await creating;
    expect((await getSession(deps, session.token, false))?.cached.user.name).toBe("After");
  });
});

describe("a sign-in carrying an older copy of the user than the one kept", () => {
  it("caches the kept copy, not the one given", async () => {
    const deps = testRegistry();
    const user = aUser(deps, { role: "admin" });
    await deps.lease.tick();
    deps.clock.advance(1_000);
    // The change (a demotion) reached the session service before the sign-in that read the user before it.
    await forgetUser(deps, user.id, { ...user, role: "user", updatedAt: new Date(deps.clock.now()).toISOString() });
    const session = await createSession(deps, { userId: user.id, rememberMe: true, user });
    const store = countStoreReads(deps);
    expect((await getSession(deps, session.token, false))?.cached.user.role).toBe("user");
    expect(store.reads).toBe(0); // served from the cache the sign-in filled
  });
});

describe("a ban racing a sign-in (no live session for a banned user, in either order)", () => {
  /** The user as identity read it before the ban, and the banned copy the ban hands over a little later. */
  async function banRace(deps: TestRegistry, banExpires: string | null = null) {
    const user = aUser(deps);
    await deps.lease.tick();
    deps.clock.advance(1_000);
    const banned = { ...user, banned: true, banReason: "spam", banExpires, updatedAt: new Date(deps.clock.now()).toISOString() };
    return { user, banned, create: () => createSession(deps, { userId: user.id, rememberMe: true, user }) };
  }

  async function expectNoSession(deps: TestRegistry, userId: string, token?: string) {
    expect(await deps.store.listByUser(userId)).toEqual([]);
    if (token) expect(await getSession(deps, token, false)).toBeNull();
    expect((await deps.store.findUser(userId))?.banned).toBe(true);
  }

  it("a ban done before the session is created: the creation is refused and leaves no session", async () => {
    const deps = testRegistry();
    const { user, banned, create } = await banRace(deps);
    await revokeUserSessions(deps, user.id, { user: banned });
    expect(await errorCode(create())).toBe("FAILED_TO_CREATE_SESSION");
    await expectNoSession(deps, user.id);
  });

  it("a ban landing between the session's insert and its read of the user: refused, no session", async () => {
    const deps = testRegistry();
    const { user, banned, create } = await banRace(deps);
    const held = holdNext(deps, "putUser");
    const creating = errorCode(create());
    await held.reached;
    await revokeUserSessions(deps, user.id, { user: banned });
    held.release();
    expect(await creating).toBe("FAILED_TO_CREATE_SESSION");
    await expectNoSession(deps, user.id);
  });

  it("a session created between the ban's copy and its revocation: refused, no session", async () => {
    const deps = testRegistry();
    const { user, banned, create } = await banRace(deps);
    const held = holdNext(deps, "putUser");
    const banning = revokeUserSessions(deps, user.id, { user: banned });
    await held.reached;
    expect(await errorCode(create())).toBe("FAILED_TO_CREATE_SESSION");
    held.release();
    await banning;
    await expectNoSession(deps, user.id);
  });

  it("a session created before the ban is ended by it", async () => {
    const deps = testRegistry();
    const { user, banned, create } = await banRace(deps);
    const session = await create();
    await revokeUserSessions(deps, user.id, { user: banned });
    await expectNoSession(deps, user.id, session.token);
  });

  it("a ban whose expiry has passed does not refuse (identity lifts it at this sign-in)", async () => {
    const deps = testRegistry();
    const user = aUser(deps, { banned: true, banReason: "spam", banExpires: new Date(deps.clock.now() - 1).toISOString() });
    await deps.lease.tick();
    const session = await createSession(deps, { userId: user.id, rememberMe: true, user });
    expect((await getSession(deps, session.token, false))?.cached.user.id).toBe(user.id);
  });
});

describe("refresh", () => {
  it("extends a session read after the update age by its full lifetime, once; disableRefresh leaves it", async () => {
    const deps = testRegistry({ SESSION_UPDATE_AGE: "3600" });
    const session = await signedIn(deps);
    const first = await getSession(deps, session.token, false);
    expect(expiryOf(first)).toBe(session.expiresAt.getTime());
    deps.clock.advance(3_600_000);
    await deps.lease.tick();

    const untouched = await getSession(deps, session.token, true);
    expect(untouched?.refreshed).toBe(false);
    expect(expiryOf(untouched)).toBe(session.expiresAt.getTime());

    const refreshed = await getSession(deps, session.token, false);
    expect(refreshed?.refreshed).toBe(true);
    expect(expiryOf(refreshed)).toBe(deps.clock.now() + deps.config.expiresInSeconds * 1000);
    expect((await deps.store.findByToken(session.token))?.expiresAt.getTime()).toBe(expiryOf(refreshed));
    // Within the update age again: served as is.
    deps.clock.advance(1_000);
    const next = await getSession(deps, session.token, false);
    expect(next?.refreshed).toBe(false);
    expect(expiryOf(next)).toBe(expiryOf(refreshed));
  });

  it("extends from the store when the cache is down", async () => {
    const deps = testRegistry({ SESSION_UPDATE_AGE: "60" });
    const session = await signedIn(deps);
    deps.clock.advance(60_000);
    deps.cache.down = true;
    const refreshed = await getSession(deps, session.token, false);
    expect(refreshed?.refreshed).toBe(true);
    expect((await deps.store.findByToken(session.token))?.expiresAt.getTime()).toBe(expiryOf(refreshed));
  });

  it("never extends a rememberMe=false session: it ends a day after sign-in", async () => {
    const deps = testRegistry({ SESSION_UPDATE_AGE: "60" });
    const session = await signedIn(deps, { rememberMe: false });
    expect(session.expiresAt.getTime()).toBe(deps.clock.now() + DAY);
    deps.clock.advance(DAY - 1_000);
    await deps.lease.tick();
    const later = await getSession(deps, session.token, false);
    expect(later?.refreshed).toBe(false);
    expect(expiryOf(later)).toBe(session.expiresAt.getTime());
    deps.clock.advance(1_000);
    expect(await getSession(deps, session.token, false)).toBeNull();
  });
});

describe("revoke", () => {
  it("writes the tombstone before deleting the row, so no reader between the two can bring the session back", async () => {
    const deps = testRegistry();
    const session = await signedIn(deps);
    const seenAtDelete: Array<string | null> = [];
    const deleteByTokens = deps.store.deleteByTokens.bind(deps.store);
    deps.store.deleteByTokens = async (tokens) => {
      seenAtDelete.push(await deps.cache.get(`revoked:${vault.lookup(session.token)}`));
      return deleteByTokens(tokens);
    };
    await revokeSession(deps, session.token);
    expect(seenAtDelete).toEqual(["1"]);
    expect(await getSession(deps, session.token, false)).toBeNull();
    expect(await deps.store.findByToken(session.token)).toBeNull();
    expect(await deps.store.listPending(10)).toEqual([]);
  });

  it("only the owner's session, when an owner is named; revoking others keeps the one named", async () => {
    const deps = testRegistry();
    const mine = await signedIn(deps, { userId: "u1" });
    const other = await signedIn(deps, { userId: "u1" });
    const theirs = await signedIn(deps, { userId: "u2" });
    expect(await errorCode(revokeSession(deps, theirs.token, { ownerId: "u1" }))).toBe("SESSION_NOT_FOUND");
    expect(await getSession(deps, theirs.token, false)).not.toBeNull();
    await revokeUserSessions(deps, "u1", { caller: callerOf(mine), keepCallers: true });
    expect((await listSessions(deps, "u1")).map((s) => s.token)).toEqual([mine.token]);
    expect(await getSession(deps, other.token, false)).toBeNull();
    await revokeUserSessions(deps, "u1");
    expect(await getSession(deps, mine.token, false)).toBeNull();
    expect(await errorCode(revokeSession(deps, mine.token))).toBe("SESSION_NOT_FOUND");
  });

  it("during a Redis outage succeeds after waiting out the lease; the stale cached copy is never served again", async () => {
    const deps = testRegistry();
    const session = await signedIn(deps);
    const kept = await signedIn(deps);
    expect(await getSession(deps, session.token, false)).not.toBeNull();

    deps.cache.down = true;
    const start = deps.clock.now();
    await revokeUserSessions(deps, session.userId);
    // The call waited out the lease (on the test clock) before answering.
    expect(deps.clock.now() - start).toBeGreaterThanOrEqual(deps.config.cacheLeaseMs);
    expect(await deps.store.findByToken(session.token)).toBeNull();
    expect(await deps.store.listPending(10)).toHaveLength(1);
    expect(await getSession(deps, session.token, false)).toBeNull();

    // Redis comes back still holding the entry: with the lease lapsed it is not trusted, and no round has run yet.
    deps.cache.down = false;
    expect(await deps.cache.get(CACHE_LEASE_KEY)).toBeNull();
    expect(await getSession(deps, session.token, false)).toBeNull();
    expect(await getSession(deps, kept.token, false)).not.toBeNull();
    // The next round writes the tombstone and holds the lease again.
    expect(await deps.lease.tick()).toBe(true);
    expect(await deps.store.listPending(10)).toEqual([]);
    expect(await getSession(deps, session.token, false)).toBeNull();
  });

  it("lists a user's live sessions only, impersonations left out", async () => {
    const deps = testRegistry();
    const user = aUser(deps);
    const live = await createSession(deps, { userId: user.id, rememberMe: true, user });
    await createSession(deps, { userId: user.id, rememberMe: true, user, impersonatedBy: "admin-1" });
    const short = await createSession(deps, { userId: user.id, rememberMe: false, user });
    expect((await listSessions(deps, user.id)).map((s) => s.token).sort()).toEqual([live.token, short.token].sort());
    deps.clock.advance(DAY);
    expect((await listSessions(deps, user.id)).map((s) => s.token)).toEqual([live.token]);
  });
});

describe("a caller acting in an impersonation session", () => {
  async function impersonated(deps: TestRegistry) {
    const user = aUser(deps);
    await deps.lease.tick();
    const own = await createSession(deps, { userId: user.id, rememberMe: true, user });
    const phone = await createSession(deps, { userId: user.id, rememberMe: true, user });
    const admin = await createSession(deps, { userId: user.id, rememberMe: false, user, impersonatedBy: "admin-1", expiresInSeconds: 3600 });
    return { user, own, phone, admin };
  }

  it("lists handles that open to the tokens, never a raw token; the user's own session lists the tokens", async () => {
    const deps = testRegistry();
    const { user, own, phone, admin } = await impersonated(deps);
    const listed = await listSessions(deps, user.id, { caller: callerOf(admin) });
    expect(listed.map((s) => s.id).sort()).toEqual([own.id, phone.id].sort());
    for (const session of listed) {
      expect(session.token).toMatch(/^sh2\./);
      expect(handles.sessionIdOf(session.token)).toBe(session.id);
      expect(await getSession(deps, session.token, true)).toBeNull();
    }
    expect((await listSessions(deps, user.id, { caller: callerOf(own) })).map((s) => s.token).sort()).toEqual([own.token, phone.token].sort());
    // The admin listing names no caller session: the raw tokens, which the gateway turns into handles.
    expect((await listSessions(deps, user.id, { includeImpersonated: true })).map((s) => s.token)).toContain(phone.token);
  });

  it("ends no session of the user but its own, whatever the call", async () => {
    const deps = testRegistry();
    const { user, own, phone, admin } = await impersonated(deps);
    const refused = "YOU_CANNOT_REVOKE_SESSIONS_WHILE_IMPERSONATING";
    expect(await errorCode(revokeSession(deps, phone.token, { ownerId: user.id, caller: callerOf(admin) }))).toBe(refused);
    expect(await errorCode(revokeSession(deps, "no-such-token", { ownerId: user.id, caller: callerOf(admin) }))).toBe(refused);
    expect(await errorCode(revokeUserSessions(deps, user.id, { caller: callerOf(admin) }))).toBe(refused);
    expect(await errorCode(revokeUserSessions(deps, user.id, { caller: callerOf(admin), keepCallers: true }))).toBe(refused);
    for (const session of [own, phone, admin]) expect(await getSession(deps, session.token, true)).not.toBeNull();

    await revokeSession(deps, admin.token, { ownerId: user.id, caller: callerOf(admin) });
    expect(await getSession(deps, admin.token, true)).toBeNull();
    expect(await getSession(deps, phone.token, true)).not.toBeNull();
  });

  it("a caller session that is gone, expired or another user's is refused before anything ends", async () => {
    const deps = testRegistry();
    const { user, own, phone } = await impersonated(deps);
    const stranger = await signedIn(deps);
    expect(await errorCode(listSessions(deps, user.id, { caller: callerOf(stranger) }))).toBe("UNAUTHORIZED");
    expect(await errorCode(listSessions(deps, user.id, { caller: { sessionId: "", userId: user.id } }))).toBe("UNAUTHORIZED");
    // A session named for another user than its own (the gateway never does) is no caller either.
    expect(await errorCode(listSessions(deps, user.id, { caller: { sessionId: phone.id, userId: stranger.userId } }))).toBe("UNAUTHORIZED");
    expect(await errorCode(revokeUserSessions(deps, user.id, { caller: { sessionId: "no-such-session", userId: user.id } }))).toBe("UNAUTHORIZED");
    expect(await errorCode(revokeSession(deps, phone.token, { ownerId: user.id, caller: callerOf(stranger) }))).toBe("UNAUTHORIZED");
    expect(await getSession(deps, phone.token, true)).not.toBeNull();
    // An ordinary session of the user ends the others, itself kept.
    await revokeUserSessions(deps, user.id, { caller: callerOf(own), keepCallers: true });
    expect((await listSessions(deps, user.id, { caller: callerOf(own) })).map((s) => s.token)).toEqual([own.token]);
  });
});

describe("changes published to the watchers (the gateways' own caches), after the store write", () => {
  it("a revoke publishes its session's lookup once the row is gone; a user change publishes the user; an organization change the session", async () => {
    const deps = testRegistry();
    const session = await signedIn(deps);
    let rowGoneAtPublish: boolean | undefined;
    const publish = deps.events.publish;
    deps.events.publish = async (event) => {
      rowGoneAtPublish = (await deps.store.findByToken(session.token)) === null;
      return publish(event);
    };
    await revokeSession(deps, session.token);
    expect(deps.events.published).toEqual([{ kind: "sessions-revoked", lookups: [vault.lookup(session.token)] }]);
    expect(rowGoneAtPublish).toBe(true);

    const other = await signedIn(deps);
    await forgetUser(deps, other.userId, aUser(deps, { id: other.userId, role: "admin" }));
    expect(deps.events.published.at(-1)).toEqual({ kind: "user-changed", userId: other.userId });
    await setActiveOrganization(deps, other.id, "org-1");
    expect(deps.events.published.at(-1)).toEqual({ kind: "session-changed", lookups: [vault.lookup(other.token)] });
  });

  it("a ban publishes every session of the user, during a Redis outage too", async () => {
    const deps = testRegistry();
    const first = await signedIn(deps, { userId: "banned-user" });
    const second = await createSession(deps, { userId: "banned-user", rememberMe: true, user: aUser(deps, { id: "banned-user" }) });
    deps.cache.down = true;
    await revokeUserSessions(deps, "banned-user", { user: aUser(deps, { id: "banned-user", banned: true }) });
    expect(deps.events.published).toEqual([{ kind: "sessions-revoked", lookups: expect.arrayContaining([vault.lookup(first.token), vault.lookup(second.token)]) }]);
  });
});
