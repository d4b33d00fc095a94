import { describe, expect, it } from "vitest";
import { base32Decode, totpCode, totpStep } from "./totp.js";
import { aSignedUpUser, type TestRegistry, testRegistry } from "../../test/test-registry.js";
import { disableTwoFactor, enableTwoFactor, generateBackupCodes, verifySignedInUser } from "./two-factor.js";

const KEY_A = Buffer.alloc(32, 7).toString("base64");
const KEY_B = Buffer.alloc(32, 9).toString("base64");
const codeFor = (uri: string, at: Date) => totpCode(base32Decode(new URL(uri).searchParams.get("secret")!), totpStep(at));

describe("two-factor enrolment", () => {
  it("the secret is stored sealed, never in the clear; the first code activates two-factor and drops cached users", async () => {
    const deps = testRegistry();
    const { user, password } = await aSignedUpUser(deps);
    const { totpUri, backupCodes } = await enableTwoFactor(deps, { userId: user.id, password });
    const secret = new URL(totpUri).searchParams.get("secret")!;
    const stored = (await deps.store.findTwoFactor(user.id))!;
    expect(stored.secret).not.toContain(secret);
    expect(stored.secret).not.toContain(base32Decode(secret).toString("base64url"));
    expect(backupCodes).toHaveLength(10);
    expect((await deps.store.findUserById(user.id))!.twoFactorEnabled).toBe(false);

    const activated = await verifySignedInUser(deps, { userId: user.id, method: "totp", code: codeFor(totpUri, deps.now()) });
    expect(activated.user.twoFactorEnabled).toBe(true);
    expect(activated.session).toBeUndefined();
    expect(deps.sessions.forgotten).toContain(user.id);
  });

  it("a one-step-old code is accepted, a two-step-old one refused, and a used code never again", async () => {
    const deps = testRegistry();
    const { user, password } = await aSignedUpUser(deps);
    const { totpUri } = await enableTwoFactor(deps, { userId: user.id, password });
    const verify = (code: string) => verifySignedInUser(deps, { userId: user.id, method: "totp", code });
    const old = codeFor(totpUri, new Date(deps.now().getTime() - 60_000));
    await expect(verify(old)).rejects.toMatchObject({ code: "INVALID_TWO_FACTOR_AUTHENTICATION" });
    const oneStepOld = codeFor(totpUri, new Date(deps.now().getTime() - 30_000));
    await expect(verify(oneStepOld)).resolves.toBeDefined();
    await expect(verify(oneStepOld)).rejects.toMatchObject({ code: "INVALID_TWO_FACTOR_AUTHENTICATION" });
    const current = codeFor(totpUri, deps.now());
    await expect(verify(current)).resolves.toBeDefined();
    await expect(verify(current)).rejects.toMatchObject({ code: "INVALID_TWO_FACTOR_AUTHENTICATION" });
  });

  it("a wrong password changes nothing; backup codes need two-factor active", async () => {
    const deps = testRegistry();
    const { user, password } = await aSignedUpUser(deps);
    await expect(enableTwoFactor(deps, { userId: user.id, password: "wrong-password" })).rejects.toMatchObject({ code: "INVALID_PASSWORD" });
    expect(await deps.store.findTwoFactor(user.id)).toBeNull();
    await expect(generateBackupCodes(deps, { userId: user.id, password })).rejects.toMatchObject({ code: "TWO_FACTOR_ISNT_ENABLED" });
  });

  it("key rotation: a secret sealed under the old key still verifies, and is resealed under the new one", async () => {
    const before = testRegistry({ IDENTITY_TWO_FACTOR_KEYS: `a:${KEY_A}` });
    const { user, password } = await aSignedUpUser(before);
    const { totpUri } = await enableTwoFactor(before, { userId: user.id, password });
    expect((await before.store.findTwoFactor(user.id))!.secret.startsWith("a.")).toBe(true);

    const after = { ...before, config: testRegistry({ IDENTITY_TWO_FACTOR_KEYS: `b:${KEY_B},a:${KEY_A}` }).config };
    await verifySignedInUser(after, { userId: user.id, method: "totp", code: codeFor(totpUri, after.now()) });
    expect((await after.store.findTwoFactor(user.id))!.secret.startsWith("b.")).toBe(true);
    // Now the old key can go.
    const onlyNew = { ...before, config: testRegistry({ IDENTITY_TWO_FACTOR_KEYS: `b:${KEY_B}` }).config };
    after.advance(30_000);
    await expect(verifySignedInUser(onlyNew, { userId: user.id, method: "totp", code: codeFor(totpUri, onlyNew.now()) })).resolves.toBeDefined();
  });
});

describe("a change of factors rotates the caller's session", () => {
  /** A user with an enrolment waiting for its first code, signed in twice (the caller, and another browser). */
  async function enrolling() {
    const deps = testRegistry();
    const { user, password, session: caller } = await aSignedUpUser(deps);
    const other = await deps.sessions.createSession(user, { rememberMe: true, client: {}, authentication: { method: "password" } });
    const { totpUri } = await enableTwoFactor(deps, { userId: user.id, password });
    const rotation = { sessionId: caller!.id, rememberMe: true, client: {} };
    return { deps, user, password, caller: caller!, other, totpUri, rotation };
  }
  const tokens = (deps: TestRegistry, userId: string) => deps.sessions.of(userId).map((s) => s.token);

  it("the first code opens a new session and ends the caller's; the user's other sessions stay", async () => {
    const { deps, user, caller, other, totpUri, rotation } = await enrolling();
    const { user: activated, session } = await verifySignedInUser(deps, { userId: user.id, method: "totp", code: codeFor(totpUri, deps.now()), rotation });
    expect(activated.twoFactorEnabled).toBe(true);
    expect(session!.token).not.toBe(caller.token);
    expect(tokens(deps, user.id).sort()).toEqual([other.token, session!.token].sort());
    // The session service got the activated user with the new session.
    expect(deps.sessions.copies.get(user.id)!.twoFactorEnabled).toBe(true);
  });

  it("the new session keeps how the caller signed in", async () => {
    const { deps, user, caller, totpUri, rotation } = await enrolling();
    deps.advance(60_000);
    const { session } = await verifySignedInUser(deps, { userId: user.id, method: "totp", code: codeFor(totpUri, deps.now()), rotation });
    expect(session).toMatchObject({ authMethod: caller.authMethod, authenticatedAt: caller.authenticatedAt });
    expect(caller.authMethod).toBe("password");
  });

  it("a code checked once two-factor is on rotates nothing", async () => {
    const { deps, user, caller, totpUri, rotation } = await enrolling();
    const first = await verifySignedInUser(deps, { userId: user.id, method: "totp", code: codeFor(totpUri, deps.now()), rotation });
    const next = { ...rotation, sessionId: first.session!.id };
    deps.advance(30_000);
    const later = codeFor(totpUri, deps.now());
    expect((await verifySignedInUser(deps, { userId: user.id, method: "totp", code: later, rotation: next })).session).toBeUndefined();
    expect(tokens(deps, user.id)).toContain(first.session!.token);
    expect(tokens(deps, user.id)).not.toContain(caller.token);
  });

  it("disable opens a new session and ends the caller's", async () => {
    const { deps, user, password, caller, other, totpUri, rotation } = await enrolling();
    const { session: afterOn } = await verifySignedInUser(deps, { userId: user.id, method: "totp", code: codeFor(totpUri, deps.now()), rotation });
    const { user: off, session } = await disableTwoFactor(deps, { userId: user.id, password, rotation: { ...rotation, sessionId: afterOn!.id } });
    expect(off.twoFactorEnabled).toBe(false);
    expect(tokens(deps, user.id).sort()).toEqual([other.token, session!.token].sort());
    expect(session!.token).not.toBe(caller.token);
    // Without rotation (a gateway of the previous release), the session stays.
    expect((await disableTwoFactor(deps, { userId: user.id, password })).session).toBeUndefined();
  });

  it("when the new session cannot be opened, the caller's stays (two-factor is on all the same)", async () => {
    const { deps, user, caller, totpUri, rotation } = await enrolling();
    deps.sessions.createSession = async () => {
      throw new Error("session service unavailable");
    };
    await expect(verifySignedInUser(deps, { userId: user.id, method: "totp", code: codeFor(totpUri, deps.now()), rotation })).rejects.toThrow(/unavailable/);
    expect(tokens(deps, user.id)).toContain(caller.token);
  });

  it("when the caller's session cannot be ended, the new one is ended again and the caller keeps the old", async () => {
    const { deps, user, password, caller, totpUri, rotation } = await enrolling();
    await verifySignedInUser(deps, { userId: user.id, method: "totp", code: codeFor(totpUri, deps.now()) });
    const revoke = deps.sessions.revokeSession.bind(deps.sessions);
    deps.sessions.revokeSession = async (userId, sessionId) => {
      if (sessionId === caller.id) throw new Error("session service unavailable");
      await revoke(userId, sessionId);
    };
    const before = tokens(deps, user.id).sort();
    await expect(disableTwoFactor(deps, { userId: user.id, password, rotation })).rejects.toThrow(/unavailable/);
    expect(tokens(deps, user.id).sort()).toEqual(before);
  });

  it("from an impersonation session, refused before the code is used or anything changes", async () => {
    const { deps, user, password, caller, totpUri, rotation } = await enrolling();
    const impersonating = { ...rotation, impersonatedBy: "admin-1" };
    const code = codeFor(totpUri, deps.now());
    const refused = verifySignedInUser(deps, { userId: user.id, method: "totp", code, rotation: impersonating });
    await expect(refused).rejects.toMatchObject({ code: "YOU_CANNOT_REVOKE_SESSIONS_WHILE_IMPERSONATING" });
    expect((await deps.store.findUserById(user.id))!.twoFactorEnabled).toBe(false);
    // The code was not used up: the user's own session activates with it.
    await verifySignedInUser(deps, { userId: user.id, method: "totp", code, rotation });
    const disable = disableTwoFactor(deps, { userId: user.id, password, rotation: impersonating });
    await expect(disable).rejects.toMatchObject({ code: "YOU_CANNOT_REVOKE_SESSIONS_WHILE_IMPERSONATING" });
    expect((await deps.store.findUserById(user.id))!.twoFactorEnabled).toBe(true);
    expect(tokens(deps, user.id)).not.toContain(caller.token);
  });
});
