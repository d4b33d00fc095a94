import { describe, expect, it } from "vitest";
import { completeSignIn } from "./complete-sign-in.js";
import { aSignedUpUser, testRegistry } from "../../test/test-registry.js";
import { answerChallenge, CHALLENGE_SECONDS } from "./two-factor-challenge.js";
import { trustDevice, TRUSTED_DEVICE_SECONDS } from "./trusted-devices.js";

const options = { method: "password", rememberMe: true, client: { userAgent: "Firefox" }, refusal: "UNAUTHORIZED" } as const;

async function twoFactorUser(env: Record<string, string> = {}) {
  const deps = testRegistry(env);
  const { user } = await aSignedUpUser(deps);
  await deps.store.saveTwoFactor({ userId: user.id, secret: "unused", verified: true, lastTotpStep: null, createdAt: deps.now(), updatedAt: deps.now() }, []);
  await deps.store.activateTwoFactor(user.id, deps.now());
  return { deps, user: (await deps.store.findUserById(user.id))! };
}

describe("completeSignIn", () => {
  it("without two-factor: a session, nothing else", async () => {
    const deps = testRegistry();
    const { user } = await aSignedUpUser(deps);
    const before = deps.sessions.of(user.id).length;
    const outcome = await completeSignIn(deps, user, options);
    expect(outcome.session?.userId).toBe(user.id);
    expect(outcome.challenge).toBeUndefined();
    expect(deps.sessions.of(user.id)).toHaveLength(before + 1);
  });

  it("a live ban refuses with BANNED_USER and its end, a user gone with the caller's error; an expired ban is lifted", async () => {
    const deps = testRegistry();
    const { user } = await aSignedUpUser(deps);
    const ends = new Date(deps.now().getTime() + 1_000);
    const banned = (await deps.store.updateUser(user.id, { banned: true, banExpires: ends }))!;
    await expect(completeSignIn(deps, banned, options)).rejects.toMatchObject({ code: "BANNED_USER", fields: { banExpires: ends.toISOString() } });
    await expect(completeSignIn(deps, { ...banned, id: "gone-user" }, options)).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    deps.advance(2_000);
    const outcome = await completeSignIn(deps, banned, options);
    expect(outcome.user.banned).toBe(false);
    expect(outcome.session).toBeDefined();
  });

  it("with two-factor on: a challenge and no session; the challenge lives 10 minutes", async () => {
    const { deps, user } = await twoFactorUser();
    const before = deps.sessions.of(user.id).length;
    const outcome = await completeSignIn(deps, user, options);
    expect(outcome.session).toBeUndefined();
    expect(outcome.challenge!.token).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(outcome.challenge!.expiresAt.getTime() - deps.now().getTime()).toBe(CHALLENGE_SECONDS * 1000);
    expect(outcome.challenge!.methods).toEqual(["totp", "otp"]);
    expect(deps.sessions.of(user.id)).toHaveLength(before);
  });

  it("a banned user with two-factor is told the ban after the password, never given a challenge", async () => {
    const { deps, user } = await twoFactorUser();
    const banned = (await deps.store.updateUser(user.id, { banned: true }))!;
    await expect(completeSignIn(deps, banned, options)).rejects.toMatchObject({ code: "BANNED_USER", fields: { banExpires: null } });
  });

  it("a live trusted device of the user lets the sign-in through and is renewed; another user's is no use", async () => {
    const { deps, user } = await twoFactorUser();
    const device = await trustDevice(deps, user.id, {});
    deps.advance(20 * 86_400_000);
    const outcome = await completeSignIn(deps, user, { ...options, trustedDevice: device.token });
    expect(outcome.session).toBeDefined();
    expect(outcome.trustedDevice!.expiresAt.getTime()).toBe(deps.now().getTime() + TRUSTED_DEVICE_SECONDS * 1000);

    const { user: other } = await aSignedUpUser(deps);
    await deps.store.saveTwoFactor({ userId: other.id, secret: "unused", verified: true, lastTotpStep: null, createdAt: deps.now(), updatedAt: deps.now() }, []);
    await deps.store.activateTwoFactor(other.id, deps.now());
    const otherUser = (await deps.store.findUserById(other.id))!;
    expect((await completeSignIn(deps, otherUser, { ...options, trustedDevice: device.token })).challenge).toBeDefined();
    expect((await completeSignIn(deps, user, { ...options, trustedDevice: "not-a-device" })).challenge).toBeDefined();
  });

  it("a trusted device unused for 30 days no longer counts", async () => {
    const { deps, user } = await twoFactorUser();
    const device = await trustDevice(deps, user.id, {});
    deps.advance(TRUSTED_DEVICE_SECONDS * 1000);
    expect((await completeSignIn(deps, user, { ...options, trustedDevice: device.token })).challenge).toBeDefined();
  });

  it("email verification required: an unverified user gets a new link and the caller's error, before any challenge", async () => {
    const deps = testRegistry({ IDENTITY_REQUIRE_EMAIL_VERIFICATION: "true" });
    const { user, email } = await aSignedUpUser(deps);
    const sent = deps.mail.to(email, "email-verification").length;
    await expect(completeSignIn(deps, user, { ...options, unverified: "EMAIL_NOT_VERIFIED" })).rejects.toMatchObject({ code: "EMAIL_NOT_VERIFIED" });
    expect(deps.mail.to(email, "email-verification").length).toBe(sent + 1);
    // A method that does not ask for it (social sign-in: the provider vouches for the address) gets its session.
    expect((await completeSignIn(deps, user, options)).session).toBeDefined();
  });

  it("the challenge keeps rememberMe for the session it creates; a mailed code expires after 5 minutes", async () => {
    const { deps, user } = await twoFactorUser();
    const { challenge } = await completeSignIn(deps, user, { ...options, rememberMe: false });
    const { sendChallengeOtp } = await import("./two-factor-challenge.js");
    await sendChallengeOtp(deps, challenge!.token);
    const code = deps.mail.to(user.email, "sign-in-code").at(-1)!.variables.code!;
    deps.advance(5 * 60_000 + 1);
    await expect(answerChallenge(deps, { token: challenge!.token, method: "otp", code, trustDevice: false, client: {} })).rejects.toMatchObject({
      code: "INVALID_TWO_FACTOR_AUTHENTICATION",
    });
    await sendChallengeOtp(deps, challenge!.token, "fr");
    expect(deps.mail.to(user.email, "sign-in-code").at(-1)!.language).toBe("fr");
    const fresh = deps.mail.to(user.email, "sign-in-code").at(-1)!.variables.code!;
    const answered = await answerChallenge(deps, { token: challenge!.token, method: "otp", code: fresh, trustDevice: false, client: {} });
    expect(answered.rememberMe).toBe(false);
    expect(answered.session.userId).toBe(user.id);
  });

  it("the session records how the user signed in: the first factor, and the second one passed", async () => {
    const deps = testRegistry();
    const { user: plain } = await aSignedUpUser(deps);
    const direct = await completeSignIn(deps, plain, { ...options, method: "social:github" });
    expect(direct.session).toMatchObject({ authMethod: "social:github", authenticatedAt: deps.now() });
    expect(direct.session!.secondFactor).toBeUndefined();

    const { deps: twoFactor, user } = await twoFactorUser();
    const { challenge } = await completeSignIn(twoFactor, user, { ...options, method: "social:github" });
    twoFactor.advance(60_000);
    const { sendChallengeOtp } = await import("./two-factor-challenge.js");
    await sendChallengeOtp(twoFactor, challenge!.token);
    const code = twoFactor.mail.to(user.email, "sign-in-code").at(-1)!.variables.code!;
    const answered = await answerChallenge(twoFactor, { token: challenge!.token, method: "otp", code, trustDevice: false, client: {} });
    // The first factor travels on the challenge; the time is when the second one was passed.
    expect(answered.session).toMatchObject({ authMethod: "social:github", secondFactor: "otp", authenticatedAt: twoFactor.now() });

    const device = await trustDevice(twoFactor, user.id, {});
    const trusted = await completeSignIn(twoFactor, user, { ...options, trustedDevice: device.token });
    expect(trusted.session).toMatchObject({ authMethod: "password", secondFactor: "trusted-device" });
  });

  it("a ban stored while the challenge waits: a right code is told the ban, a wrong one only that it is wrong", async () => {
    const { deps, user } = await twoFactorUser();
    const { challenge } = await completeSignIn(deps, user, options);
    const { sendChallengeOtp } = await import("./two-factor-challenge.js");
    await sendChallengeOtp(deps, challenge!.token);
    const code = deps.mail.to(user.email, "sign-in-code").at(-1)!.variables.code!;
    const ends = new Date(deps.now().getTime() + 3_600_000);
    await deps.store.updateUser(user.id, { banned: true, banExpires: ends });
    const before = deps.sessions.of(user.id).length;
    const answer = (attempt: string) => answerChallenge(deps, { token: challenge!.token, method: "otp", code: attempt, trustDevice: false, client: {} });
    await expect(answer(code === "000000" ? "111111" : "000000")).rejects.toMatchObject({ code: "INVALID_TWO_FACTOR_AUTHENTICATION" });
    await expect(answer(code)).rejects.toMatchObject({ code: "BANNED_USER", fields: { banExpires: ends.toISOString() } });
    expect(deps.sessions.of(user.id)).toHaveLength(before);
  });
});
