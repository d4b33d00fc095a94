/** The active organization of sessions: store and cache agree before the call answers. */
import { describe, expect, it } from "vitest";
import { AuthError } from "@auth-platform/proto/errors";
import { clearActiveOrganization, setActiveOrganization } from "./active-organization.js";
import { createSession, getSession } from "./sessions.js";
import { aUser, holdNext, type TestRegistry, testRegistry } from "../../test/test-registry.js";

/** The users this file signed in, so a second session of one user carries the same copy. */
const known = new Map<string, ReturnType<typeof aUser>>();

async function signedIn(deps: TestRegistry, userId?: string) {
  const user = (userId && known.get(userId)) || aUser(deps, userId ? { id: userId } : {});
  known.set(user.id, user);
  await deps.lease.tick();
  const session = await createSession(deps, { userId: user.id, rememberMe: true, user });
  await getSession(deps, session.token, true);
  return session;
}

const activeOf = async (deps: TestRegistry, token: string) => (await getSession(deps, token, true))?.cached.session.activeOrganizationId;

describe("active organization", () => {
  it("a set or a clear is served at once, cache included", async () => {
    const deps = testRegistry();
    const session = await signedIn(deps);
    await setActiveOrganization(deps, session.id, "org-1");
    expect(await activeOf(deps, session.token)).toBe("org-1");
    await setActiveOrganization(deps, session.id, null);
    expect(await activeOf(deps, session.token)).toBeNull();
  });

  it("a get-session that missed the cache and read the session before a set does not cache the old value after it", async () => {
    const deps = testRegistry();
    const session = await signedIn(deps);
    await setActiveOrganization(deps, session.id, "org-before");
    // The store read happens before findUser; holding findUser keeps the reader between its read and its fill.
    const held = holdNext(deps, "findUser");
    const reading = getSession(deps, session.token, true);
    await held.reached;
    await setActiveOrganization(deps, session.id, "org-after");
    held.release();
    expect((await reading)?.cached.session.activeOrganizationId).toBe("org-before");
    expect(await activeOf(deps, session.token)).toBe("org-after");
  });

  it("a set during a Redis outage succeeds after waiting out the lease; the old value is not served when Redis returns", async () => {
    const deps = testRegistry();
    const session = await signedIn(deps);
    await setActiveOrganization(deps, session.id, "org-left");
    expect(await activeOf(deps, session.token)).toBe("org-left");
    deps.cache.down = true;
    const start = deps.clock.now();
    await clearActiveOrganization(deps, "org-left");
    expect(deps.clock.now() - start).toBeGreaterThanOrEqual(deps.config.cacheLeaseMs);
    await setActiveOrganization(deps, session.id, null);
    expect(await deps.store.listPendingForgets(10)).toHaveLength(1);
    deps.cache.down = false;
    expect(await activeOf(deps, session.token)).toBeNull();
    expect(await deps.lease.tick()).toBe(true);
    expect(await activeOf(deps, session.token)).toBeNull();
  });

  it("refuses a session that does not exist", async () => {
    const deps = testRegistry();
    await expect(setActiveOrganization(deps, "no-such-session", "org-1")).rejects.toThrow(new AuthError("SESSION_NOT_FOUND"));
  });

  it("clears one organization on every session of one user, or of everyone", async () => {
    const deps = testRegistry();
    const a1 = await signedIn(deps, "user-a");
    const a2 = await signedIn(deps, "user-a");
    const b = await signedIn(deps, "user-b");
    for (const s of [a1, a2, b]) await setActiveOrganization(deps, s.id, "org-1");
    await clearActiveOrganization(deps, "org-1", "user-a");
    expect([await activeOf(deps, a1.token), await activeOf(deps, a2.token), await activeOf(deps, b.token)]).toEqual([null, null, "org-1"]);
    await clearActiveOrganization(deps, "org-1");
    expect(await activeOf(deps, b.token)).toBeNull();
  });

  it("a new session starts in the organization its user last set active, from its first read (cache included)", async () => {
    const deps = testRegistry();
    const first = await signedIn(deps, "user-r");
    await setActiveOrganization(deps, first.id, "org-a");
    await setActiveOrganization(deps, first.id, "org-b");
    const next = await createSession(deps, { userId: "user-r", rememberMe: true, user: known.get("user-r") });
    expect(next.activeOrganizationId).toBe("org-b");
    expect(await activeOf(deps, next.token)).toBe("org-b");
    // Cleared for the user (they left it): the next session starts with none.
    await clearActiveOrganization(deps, "org-b", "user-r");
    expect(await activeOf(deps, (await signedIn(deps, "user-r")).token)).toBeNull();
  });
});
