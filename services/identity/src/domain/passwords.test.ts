import { describe, expect, it } from "vitest";
import { changePassword } from "./passwords.js";
import { signInEmail } from "./sign-in.js";
import { aSignedUpUser, type TestRegistry, testRegistry } from "../../test/test-registry.js";
import { errorCode } from "../../../../testing/error-code.js";

const signsIn = (deps: TestRegistry, email: string, password: string) =>
  signInEmail(deps, { email, password, rememberMe: true, client: {} }).then(
    () => true,
    () => false,
  );
const change = (userId: string, currentPassword: string, newPassword: string, revokeOtherSessions = false) => ({
  userId,
  currentPassword,
  newPassword,
  revokeOtherSessions,
  client: {},
});

describe("change password", () => {
  it("needs the current password; the new one works afterwards and the old one no longer does", async () => {
    const deps = testRegistry();
    const { email, user } = await aSignedUpUser(deps);
    expect(await errorCode(changePassword(deps, change(user.id, "wrong-password", "new-password-456")))).toBe("INVALID_PASSWORD");
    expect(await errorCode(changePassword(deps, change(user.id, "password-123", "short")))).toBe("PASSWORD_TOO_SHORT");
    const { session } = await changePassword(deps, change(user.id, "password-123", "new-password-456"));
    expect(session).toBeUndefined();
    expect(deps.sessions.of(user.id)).toHaveLength(1);
    expect(await signsIn(deps, email, "password-123")).toBe(false);
    expect(await signsIn(deps, email, "new-password-456")).toBe(true);
  });

  it("with revokeOtherSessions ends every session and hands the caller a new one", async () => {
    const deps = testRegistry();
    const { user, session: before } = await aSignedUpUser(deps);
    const { session } = await changePassword(deps, change(user.id, "password-123", "new-password-456", true));
    expect(deps.sessions.of(user.id).map((s) => s.token)).toEqual([session!.token]);
    expect(session!.token).not.toBe(before!.token);
  });

  it("with revokeOtherSessions from an impersonation session is refused before anything changes: no session ends, none is made", async () => {
    const deps = testRegistry();
    const { email, user, session: before } = await aSignedUpUser(deps);
    const caller = { sessionCreatedAt: new Date(), impersonatedBy: "admin-1" };
    const refused = changePassword(deps, { ...change(user.id, "password-123", "new-password-456", true), caller });
    expect(await errorCode(refused)).toBe("YOU_CANNOT_REVOKE_SESSIONS_WHILE_IMPERSONATING");
    expect(deps.sessions.of(user.id).map((s) => s.token)).toEqual([before!.token]);
    expect(await signsIn(deps, email, "password-123")).toBe(true);
    // Without revoking, the change itself is the user's password as any other (it needs the current one).
    const { session } = await changePassword(deps, { ...change(user.id, "password-123", "new-password-456"), caller });
    expect(session).toBeUndefined();
  });

  it("when the sessions cannot be ended, keeps the old password and fails (a retry starts over)", async () => {
    const deps = testRegistry();
    const { email, user } = await aSignedUpUser(deps);
    deps.sessions.failRevoke = true;
    await expect(changePassword(deps, change(user.id, "password-123", "new-password-456", true))).rejects.toThrow(/unavailable/);
    expect(await signsIn(deps, email, "password-123")).toBe(true);
    expect(await signsIn(deps, email, "new-password-456")).toBe(false);
  });

  it("refuses a user without a password account, and an unknown user", async () => {
    const deps = testRegistry();
    const { user } = await aSignedUpUser(deps);
    for (const account of await deps.store.listAccounts(user.id)) await deps.store.deleteAccount(account.id);
    expect(await errorCode(changePassword(deps, change(user.id, "password-123", "new-password-456")))).toBe("CREDENTIAL_ACCOUNT_NOT_FOUND");
    expect(await errorCode(changePassword(deps, change("nobody", "password-123", "new-password-456")))).toBe("USER_NOT_FOUND");
  });
});
