/** Other ways to a session or past the second factor, each closed: verification links, races, resets. */
import { describe, expect, it } from "vitest";
import { completeSignIn } from "./complete-sign-in.js";
import { mailResetLink, resetPassword } from "./password-reset.js";
import { aSignedUpUser, testRegistry, tokenIn, type TestRegistry } from "../../test/test-registry.js";
import { trustDevice } from "./trusted-devices.js";
import { enableTwoFactor, verifySignedInUser } from "./two-factor.js";
import { answerChallenge } from "./two-factor-challenge.js";
import { base32Decode, totpCode, totpStep } from "./totp.js";
import { verifyEmail } from "./verification.js";

const options = { method: "password", rememberMe: true, client: {}, refusal: "UNAUTHORIZED" } as const;

async function activated(deps: TestRegistry) {
  const signedUp = await aSignedUpUser(deps);
  const { totpUri, backupCodes } = await enableTwoFactor(deps, { userId: signedUp.user.id, password: signedUp.password });
  const secret = base32Decode(new URL(totpUri).searchParams.get("secret")!);
  await verifySignedInUser(deps, { userId: signedUp.user.id, method: "totp", code: totpCode(secret, totpStep(deps.now())) });
  deps.advance(30_000);
  return { ...signedUp, user: (await deps.store.findUserById(signedUp.user.id))!, backupCodes };
}

describe("no way around the second factor", () => {
  it("a verification link does not sign a two-factor user in, even with auto sign-in after verification", async () => {
    const deps = testRegistry({ IDENTITY_AUTO_SIGN_IN_AFTER_VERIFICATION: "true" });
    const { user, email } = await activated(deps);
    const link = deps.mail.link(email, "email-verification");
    const before = deps.sessions.of(user.id).length;
    const verified = await verifyEmail(deps, { token: tokenIn(link), client: {} });
    expect(verified.user.emailVerified).toBe(true);
    expect(verified.session).toBeUndefined();
    expect(deps.sessions.of(user.id)).toHaveLength(before);
  });

  it("two valid answers racing on one challenge create one session", async () => {
    const deps = testRegistry();
    const { user, backupCodes } = await activated(deps);
    const { challenge } = await completeSignIn(deps, user, options);
    const before = deps.sessions.of(user.id).length;
    const answers = await Promise.allSettled(
      backupCodes.slice(0, 2).map((code) => answerChallenge(deps, { token: challenge!.token, method: "backup-code", code, trustDevice: false, client: {} })),
    );
    expect(answers.filter((a) => a.status === "fulfilled")).toHaveLength(1);
    expect(answers.find((a) => a.status === "rejected")).toMatchObject({ reason: { code: "INVALID_TWO_FACTOR_COOKIE" } });
    expect(deps.sessions.of(user.id)).toHaveLength(before + 1);
  });

  it("a password reset revokes the trusted devices", async () => {
    const deps = testRegistry();
    const { user, email } = await activated(deps);
    // Verified: an unverified user's reset turns two-factor off altogether (password-reset.test.ts).
    await deps.store.updateUser(user.id, { emailVerified: true });
    const device = await trustDevice(deps, user.id, {});
    expect((await completeSignIn(deps, user, { ...options, trustedDevice: device.token })).session).toBeDefined();
    await mailResetLink(deps, { email });
    await resetPassword(deps, { token: tokenIn(deps.mail.link(email, "password-reset")), newPassword: "password-456" });
    expect((await completeSignIn(deps, user, { ...options, trustedDevice: device.token })).challenge).toBeDefined();
    expect(await deps.store.listTrustedDevices(user.id, deps.now())).toEqual([]);
  });
});
