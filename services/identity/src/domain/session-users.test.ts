/**
 * The backfill of session-service user copies: every user with sessions but no copy gets one pushed, a
 * deleted user's leftover sessions are revoked, pages follow each other, and the background runner retries
 * until the session service answers.
 */
import { describe, expect, it } from "vitest";
import type { Session } from "@auth-platform/proto/gen/auth/session/v1/session";
import { newId, randomString } from "@auth-platform/runtime/random";
import { backfillSessionUsers, startSessionUserBackfill } from "./session-users.js";
import { aSignedUpUser, testRegistry, type TestRegistry } from "../../test/test-registry.js";

/** A session the session service kept from before it stored user copies. */
function legacySession(deps: TestRegistry, userId: string): Session {
  const session: Session = { id: newId(), token: randomString(32), userId, createdAt: deps.now() };
  deps.sessions.live.push(session);
  return session;
}

describe("session user backfill", () => {
  it("pushes the current user of every session without a copy, page after page, and revokes a deleted user's sessions", async () => {
    const deps = testRegistry();
    const users = [];
    for (let i = 0; i < 5; i++) users.push((await aSignedUpUser(deps)).user);
    for (const user of users) deps.sessions.copies.delete(user.id);
    const deletedUserId = newId();
    legacySession(deps, deletedUserId);
    legacySession(deps, deletedUserId);
    expect(await deps.sessions.usersMissingSnapshot("", 100)).toHaveLength(6);

    expect(await backfillSessionUsers(deps, 2)).toBe(6);
    expect(await deps.sessions.usersMissingSnapshot("", 100)).toEqual([]);
    for (const user of users) expect(deps.sessions.copies.get(user.id)).toEqual(await deps.store.findUserById(user.id));
    expect(deps.sessions.of(deletedUserId)).toEqual([]);
    // Nothing left: a second pass (another replica starting) does nothing.
    expect(await backfillSessionUsers(deps, 2)).toBe(0);
  });

  it("retries in the background until the session service answers, then stops", async () => {
    const deps = testRegistry();
    const { user } = await aSignedUpUser(deps);
    deps.sessions.copies.delete(user.id);
    const listing = deps.sessions.usersMissingSnapshot;
    let failures = 2;
    deps.sessions.usersMissingSnapshot = async (after, limit) => {
      if (failures-- > 0) throw new Error("14 UNAVAILABLE: No connection established");
      return listing(after, limit);
    };
    const warned: string[] = [];
    const backfill = startSessionUserBackfill({ ...deps, log: { ...deps.log, warn: (message) => void warned.push(message) } }, 1);
    await backfill.done;
    expect(warned).toHaveLength(2);
    expect(deps.sessions.copies.get(user.id)?.id).toBe(user.id);
  });
});
