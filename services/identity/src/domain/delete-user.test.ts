import { describe, expect, it } from "vitest";
import { deleteUser } from "./delete-user.js";
import { aSignedUpUser, type TestRegistry, testRegistry, tokenIn } from "../../test/test-registry.js";
import { errorCode } from "../../../../testing/error-code.js";

const DAY = 86_400_000;

async function gone(deps: TestRegistry, userId: string) {
  return (await deps.store.findUserById(userId)) === null && (await deps.store.listAccounts(userId)).length === 0 && deps.sessions.of(userId).length === 0;
}

describe("delete user", () => {
  it("with the right password and confirmation by mail off, deletes the user, their accounts and their sessions at once", async () => {
    const deps = testRegistry({ IDENTITY_DELETE_USER_VERIFICATION: "false" });
    const { user } = await aSignedUpUser(deps);
    expect(await errorCode(deleteUser(deps, { userId: user.id, password: "wrong-password" }))).toBe("INVALID_PASSWORD");
    expect(await gone(deps, user.id)).toBe(false);
    expect(await deleteUser(deps, { userId: user.id, password: "password-123" })).toEqual({ deleted: true });
    expect(await gone(deps, user.id)).toBe(true);
    expect(await errorCode(deleteUser(deps, { userId: user.id, password: "password-123" }))).toBe("USER_NOT_FOUND");
  });

  it("from a fresh session mails a confirmation link; its token deletes the user once, within a day", async () => {
    const deps = testRegistry();
    const { email, user, session } = await aSignedUpUser(deps);
    const caller = { sessionCreatedAt: session!.createdAt };
    expect(await deleteUser(deps, { userId: user.id, caller, callbackUrl: "/bye", language: "es" })).toEqual({ deleted: false });
    const link = deps.mail.link(email, "delete-account");
    expect(deps.mail.to(email, "delete-account")[0]!.language).toBe("es");
    expect(link).toMatch(/\/delete-user\/callback\?token=[0-9a-z]{32}&callbackURL=%2Fbye$/);
    expect(await gone(deps, user.id)).toBe(false);
    deps.advance(DAY - 1_000);
    expect(await deleteUser(deps, { userId: user.id, token: tokenIn(link) })).toEqual({ deleted: true });
    expect(await gone(deps, user.id)).toBe(true);
  });

  it("refuses a confirmation token past its day, another user's token, and a forged one", async () => {
    const deps = testRegistry();
    const { email, user, session } = await aSignedUpUser(deps);
    const { user: other } = await aSignedUpUser(deps);
    await deleteUser(deps, { userId: user.id, caller: { sessionCreatedAt: session!.createdAt } });
    const token = tokenIn(deps.mail.link(email, "delete-account"));
    expect(await errorCode(deleteUser(deps, { userId: other.id, token }))).toBe("INVALID_TOKEN");
    expect(await errorCode(deleteUser(deps, { userId: user.id, token: "a".repeat(32) }))).toBe("INVALID_TOKEN");
    expect(await errorCode(deleteUser(deps, { userId: user.id, token: "not a token" }))).toBe("INVALID_TOKEN");
    deps.advance(DAY);
    expect(await errorCode(deleteUser(deps, { userId: user.id, token }))).toBe("INVALID_TOKEN");
    expect(await gone(deps, user.id)).toBe(false);
    expect(await gone(deps, other.id)).toBe(false);
  });

  it("without password or token needs a session younger than the fresh age", async () => {
    const deps = testRegistry({ SESSION_FRESH_AGE: "3600" });
    const { user, session } = await aSignedUpUser(deps);
    const caller = { sessionCreatedAt: session!.createdAt };
    deps.advance(3_600_000 + 1);
    expect(await errorCode(deleteUser(deps, { userId: user.id, caller }))).toBe("SESSION_IS_NOT_FRESH");
    expect(await errorCode(deleteUser(deps, { userId: user.id }))).toBe("SESSION_IS_NOT_FRESH");
    expect(deps.mail.to(user.email, "delete-account")).toEqual([]);
  });

  it("with verification off, a fresh session deletes at once; with deletion disabled nothing is deleted", async () => {
    const deps = testRegistry({ IDENTITY_DELETE_USER_VERIFICATION: "false" });
    const { user, session } = await aSignedUpUser(deps);
    expect(await deleteUser(deps, { userId: user.id, caller: { sessionCreatedAt: session!.createdAt } })).toEqual({ deleted: true });
    expect(await gone(deps, user.id)).toBe(true);

    const disabled = testRegistry({ IDENTITY_DELETE_USER_ENABLED: "false" });
    const { user: kept } = await aSignedUpUser(disabled);
    expect(await errorCode(deleteUser(disabled, { userId: kept.id, password: "password-123" }))).toBe("NOT_FOUND");
    expect(await gone(disabled, kept.id)).toBe(false);
  });

  it("with the session service away, the user is deleted and the sessions end as soon as it is back", async () => {
    const deps = testRegistry({ IDENTITY_DELETE_USER_VERIFICATION: "false" });
    const { user } = await aSignedUpUser(deps);
    deps.sessions.failRevoke = true;
    expect(await deleteUser(deps, { userId: user.id, password: "password-123" })).toEqual({ deleted: true });
    expect(await deps.store.findUserById(user.id)).toBeNull();
    // Not yet told: the session lives on, and the outbox keeps the deletion, however many passes fail.
    expect(deps.sessions.of(user.id)).toHaveLength(1);
    expect(await deps.processSessionOutbox()).toBe(1);
    expect(await deps.processSessionOutbox()).toBe(0);
    deps.advance(120_000);
    expect(await deps.processSessionOutbox()).toBe(1);
    expect(await deps.store.findSessionOutbox(user.id)).toMatchObject({ revokeSessions: true, attempts: 2 });
    deps.sessions.failRevoke = false;
    deps.advance(120_000);
    await deps.processSessionOutbox();
    expect(await gone(deps, user.id)).toBe(true);
    expect(await deps.store.findSessionOutbox(user.id)).toBeNull();
  });

  it("with the organization service away, the user is deleted and the memberships go as soon as it is back", async () => {
    const deps = testRegistry({ IDENTITY_DELETE_USER_VERIFICATION: "false" });
    const { user } = await aSignedUpUser(deps);
    deps.organizations.failRemove = true;
    expect(await deleteUser(deps, { userId: user.id, password: "password-123" })).toEqual({ deleted: true });
    expect(await deps.store.findUserById(user.id)).toBeNull();
    expect(deps.organizations.removed).toEqual([]);
    deps.organizations.failRemove = false;
    deps.advance(120_000);
    await deps.processSessionOutbox();
    // After the user row is gone, so a membership written before the deletion committed is caught too.
    expect(deps.organizations.removed).toEqual([user.id]);
    expect(await gone(deps, user.id)).toBe(true);
  });
});
