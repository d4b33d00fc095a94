import { describe, expect, it } from "vitest";
import { newId } from "@auth-platform/runtime/random";
import { completeSignIn } from "./complete-sign-in.js";
import { checkResetToken, requestPasswordReset, resetPassword } from "./password-reset.js";
import { signInEmail } from "./sign-in.js";
import { aSignedUpUser, type TestRegistry, testRegistry, tokenIn } from "../../test/test-registry.js";
import { base32Decode, totpCode, totpStep } from "./totp.js";
import { trustDevice } from "./trusted-devices.js";
import { checkBackupCode, enableTwoFactor, verifySignedInUser } from "./two-factor.js";
import { answerChallenge } from "./two-factor-challenge.js";
import { errorCode } from "../../../../testing/error-code.js";

const HOUR = 3_600_000;

async function mailedResetToken(deps: TestRegistry, email: string, redirectTo?: string) {
  await requestPasswordReset(deps, { email, redirectTo });
  await deps.processMailRequests();
  return tokenIn(deps.mail.link(email.toLowerCase(), "password-reset"));
}

const signsIn = (deps: TestRegistry, email: string, password: string) =>
  signInEmail(deps, { email, password, rememberMe: true, client: {} }).then(
    () => true,
    () => false,
  );

describe("password reset", () => {
  it("mails a link to a known address only; the link resets the password once and ends every session", async () => {
    const deps = testRegistry();
    const { email, user } = await aSignedUpUser(deps);
    await signsIn(deps, email, "password-123");
    expect(deps.sessions.of(user.id)).toHaveLength(2);
    await requestPasswordReset(deps, { email: "nobody@example.com" });
    await requestPasswordReset(deps, { email: "not-an-email" });
    const token = await mailedResetToken(deps, email.toUpperCase(), "/reset");
    expect(deps.mail.link(email, "password-reset")).toBe(`https://auth.example.com/api/auth/reset-password/${token}?callbackURL=%2Freset`);
    expect(deps.mail.sent.filter((m) => m.template === "password-reset").map((m) => m.to)).toEqual([email]);

    await checkResetToken(deps, token);
    expect(await errorCode(resetPassword(deps, { token, newPassword: "short" }))).toBe("PASSWORD_TOO_SHORT");
    await resetPassword(deps, { token, newPassword: "new-password-456" });
    expect(deps.sessions.of(user.id)).toEqual([]);
    expect(await signsIn(deps, email, "password-123")).toBe(false);
    expect(await signsIn(deps, email, "new-password-456")).toBe(true);
    expect(await errorCode(resetPassword(deps, { token, newPassword: "another-password-1" }))).toBe("INVALID_TOKEN");
    expect(await errorCode(checkResetToken(deps, token))).toBe("INVALID_TOKEN");
  });

  it("a link lasts one hour", async () => {
    const deps = testRegistry();
    const { email } = await aSignedUpUser(deps);
    const token = await mailedResetToken(deps, email);
    deps.advance(HOUR - 1_000);
    await checkResetToken(deps, token);
    deps.advance(1_000);
    expect(await errorCode(resetPassword(deps, { token, newPassword: "new-password-456" }))).toBe("INVALID_TOKEN");
    expect(await signsIn(deps, email, "password-123")).toBe(true);
  });

  it("a newer link voids the older one, and using one voids the rest", async () => {
    const deps = testRegistry();
    const { email } = await aSignedUpUser(deps);
    const first = await mailedResetToken(deps, email);
    const second = await mailedResetToken(deps, email);
    expect(second).not.toBe(first);
    expect(await errorCode(checkResetToken(deps, first))).toBe("INVALID_TOKEN");
    await resetPassword(deps, { token: second, newPassword: "new-password-456" });
    expect(await errorCode(checkResetToken(deps, second))).toBe("INVALID_TOKEN");
  });

  it("refuses forged tokens without touching the store's contents", async () => {
    const deps = testRegistry();
    for (const token of ["A".repeat(24), "", "../etc", "x".repeat(65)])
      expect(await errorCode(resetPassword(deps, { token, newPassword: "new-password-456" }))).toBe("INVALID_TOKEN");
  });

  it("keeps a verified user's sessions when so configured, and is refused when disabled", async () => {
    const deps = testRegistry({ IDENTITY_REVOKE_SESSIONS_ON_PASSWORD_RESET: "false" });
    const { email, user } = await aSignedUpUser(deps);
    await deps.store.updateUser(user.id, { emailVerified: true });
    await resetPassword(deps, { token: await mailedResetToken(deps, email), newPassword: "new-password-456" });
    expect(deps.sessions.of(user.id)).toHaveLength(1);
    expect(await errorCode(requestPasswordReset(testRegistry({ IDENTITY_RESET_PASSWORD_ENABLED: "false" }), { email }))).toBe("RESET_PASSWORD_ISNT_ENABLED");
  });

  /** Links a provider account to the user, as a provider sign-in would. */
  async function linkProvider(deps: TestRegistry, userId: string) {
    const at = deps.now();
    await deps.store.createAccount({ id: newId(), accountId: `sub-${newId()}`, providerId: "google", userId, password: null, createdAt: at, updatedAt: at });
  }
  const providersOf = async (deps: TestRegistry, userId: string) => (await deps.store.listAccounts(userId)).map((a) => a.providerId).sort();

  it("an unverified user's reset removes the provider accounts and their sessions, even when sessions are kept on reset", async () => {
    const deps = testRegistry({ IDENTITY_REVOKE_SESSIONS_ON_PASSWORD_RESET: "false" });
    const { email, user } = await aSignedUpUser(deps);
    await linkProvider(deps, user.id);
    await resetPassword(deps, { token: await mailedResetToken(deps, email), newPassword: "new-password-456" });
    expect(await providersOf(deps, user.id)).toEqual(["credential"]);
    expect(deps.sessions.of(user.id)).toEqual([]);
    // The reset proves the mailbox but is not a verification link (docs/adr/0014-reset-of-an-unverified-account.md): the address stays unverified.
    expect((await deps.store.findUserById(user.id))!.emailVerified).toBe(false);
  });

  it("a verified user's reset keeps the provider accounts", async () => {
    const deps = testRegistry({ IDENTITY_REVOKE_SESSIONS_ON_PASSWORD_RESET: "false" });
    const { email, user } = await aSignedUpUser(deps);
    await deps.store.updateUser(user.id, { emailVerified: true });
    await linkProvider(deps, user.id);
    await resetPassword(deps, { token: await mailedResetToken(deps, email), newPassword: "new-password-456" });
    expect(await providersOf(deps, user.id)).toEqual(["credential", "google"]);
    expect(deps.sessions.of(user.id)).toHaveLength(1);
  });

  /**
   * Two-factor set up as the user who holds the password would (a squatter, on an unverified address):
   * activated, a trusted browser, a sign-in waiting for its second factor. Answers the backup codes and
   * the device and challenge tokens.
   */
  async function withTwoFactor(deps: TestRegistry, user: { id: string }, password = "password-123") {
    const { totpUri, backupCodes } = await enableTwoFactor(deps, { userId: user.id, password });
    const secret = base32Decode(new URL(totpUri).searchParams.get("secret")!);
    await verifySignedInUser(deps, { userId: user.id, method: "totp", code: totpCode(secret, totpStep(deps.now())) });
    deps.advance(30_000);
    const enrolled = (await deps.store.findUserById(user.id))!;
    const device = await trustDevice(deps, user.id, {});
    const { challenge } = await completeSignIn(deps, enrolled, { method: "password", rememberMe: true, client: {}, refusal: "UNAUTHORIZED" });
    return { backupCodes, device, challenge: challenge! };
  }

  it("an unverified user's reset turns two-factor off: secret, backup codes, trusted devices and pending sign-ins go", async () => {
    const deps = testRegistry();
    const { email, user } = await aSignedUpUser(deps);
    const squatter = await withTwoFactor(deps, user);
    const reset = await resetPassword(deps, { token: await mailedResetToken(deps, email), newPassword: "new-password-456" });
    expect(reset).toEqual({ userId: user.id, removed: { providerAccounts: 0, twoFactor: true } });

    expect((await deps.store.findUserById(user.id))!.twoFactorEnabled).toBe(false);
    expect(await deps.store.findTwoFactor(user.id)).toBeNull();
    expect(await deps.store.countBackupCodes(user.id)).toBe(0);
    expect(await checkBackupCode(deps, user.id, squatter.backupCodes[0]!)).toBe(false);
    expect(await deps.store.listTrustedDevices(user.id, deps.now())).toEqual([]);
    const answer = answerChallenge(deps, { token: squatter.challenge.token, method: "backup-code", code: squatter.backupCodes[1]!, trustDevice: false, client: {} });
    expect(await errorCode(answer)).toBe("INVALID_TWO_FACTOR_COOKIE");
    // The owner's password alone signs in: no second factor someone else holds.
    const signedIn = await signInEmail(deps, { email, password: "new-password-456", rememberMe: true, client: {} });
    expect(signedIn.session).toBeDefined();
    expect(signedIn.challenge).toBeUndefined();
  });

  it("an unverified user's sessions end even when sessions are kept on reset, and an enrolment not yet activated goes too", async () => {
    const deps = testRegistry({ IDENTITY_REVOKE_SESSIONS_ON_PASSWORD_RESET: "false" });
    const { email, user } = await aSignedUpUser(deps);
    await withTwoFactor(deps, user);
    expect(deps.sessions.of(user.id)).toHaveLength(1);
    await resetPassword(deps, { token: await mailedResetToken(deps, email), newPassword: "new-password-456" });
    expect(deps.sessions.of(user.id)).toEqual([]);

    const other = await aSignedUpUser(deps);
    await enableTwoFactor(deps, { userId: other.user.id, password: other.password });
    const reset = await resetPassword(deps, { token: await mailedResetToken(deps, other.email), newPassword: "new-password-456" });
    expect(reset.removed).toEqual({ providerAccounts: 0, twoFactor: true });
    expect(await deps.store.findTwoFactor(other.user.id)).toBeNull();
  });

  it("a verified user's reset keeps two-factor (the trusted devices and pending sign-ins still end)", async () => {
    const deps = testRegistry();
    const { email, user } = await aSignedUpUser(deps);
    await deps.store.updateUser(user.id, { emailVerified: true });
    const { backupCodes, device } = await withTwoFactor(deps, user);
    const reset = await resetPassword(deps, { token: await mailedResetToken(deps, email), newPassword: "new-password-456" });
    expect(reset.removed).toEqual({ providerAccounts: 0, twoFactor: false });
    expect((await deps.store.findUserById(user.id))!.twoFactorEnabled).toBe(true);
    expect(await deps.store.countBackupCodes(user.id)).toBe(backupCodes.length);
    expect(await deps.store.listTrustedDevices(user.id, deps.now())).toEqual([]);
    const signedIn = await signInEmail(deps, { email, password: "new-password-456", rememberMe: true, client: {}, trustedDevice: device.token });
    expect(signedIn.challenge).toBeDefined();
  });

  it("gives a user without a password (a social sign-up) a password account", async () => {
    const deps = testRegistry();
    const { email, user } = await aSignedUpUser(deps);
    const [credential] = await deps.store.listAccounts(user.id);
    await deps.store.deleteAccount(credential!.id);
    await resetPassword(deps, { token: await mailedResetToken(deps, email), newPassword: "new-password-456" });
    expect(await signsIn(deps, email, "new-password-456")).toBe(true);
  });
});
