import { describe, expect, it } from "vitest";
import { errorCode } from "../../../../testing/error-code.js";
import { aSignedUpUser, type TestRegistry, testRegistry, tokenIn } from "../../test/test-registry.js";
import { checkEmailOtp, requestMagicLink, sendEmailOtp, signInEmailOtp, verifyMagicLink } from "./mail-sign-in.js";

const ON = { IDENTITY_MAGIC_LINK_ENABLED: "true", IDENTITY_EMAIL_OTP_ENABLED: "true" };
const client = {};

async function mailedCode(deps: TestRegistry, email: string) {
  await sendEmailOtp(deps, { email, purpose: "sign-in" });
  await deps.processMailRequests();
  return deps.mail.to(email, "email-otp").at(-1)?.variables.code;
}

describe("mail sign-in", () => {
  it("stores only keyed hashes: neither the link's token nor the code is in the store", async () => {
    const deps = testRegistry(ON);
    const { email } = await aSignedUpUser(deps);
    await requestMagicLink(deps, { email });
    const code = await mailedCode(deps, email);
    const token = tokenIn(deps.mail.link(email, "magic-link"));
    const stored = JSON.stringify([await deps.store.findEmailCode("sign-in", email), await deps.store.findVerification(`magic-link:${token}`)]);
    expect(stored).not.toContain(code);
    expect(await deps.store.findVerification(`magic-link:${token}`)).toBeNull();
    expect((await verifyMagicLink(deps, { token, client })).session).toBeDefined();
  });

  it("with sign-up off, a new address gets neither link nor code, and a code tried there is INVALID_OTP as a wrong one", async () => {
    const deps = testRegistry({ ...ON, IDENTITY_MAGIC_LINK_SIGN_UP: "false", IDENTITY_EMAIL_OTP_SIGN_UP: "false" });
    await requestMagicLink(deps, { email: "new@example.com" });
    expect(await mailedCode(deps, "new@example.com")).toBeUndefined();
    expect(deps.mail.sent).toEqual([]);
    // The code stored for the address counts tries as a user's would.
    expect(await errorCode(signInEmailOtp(deps, { email: "new@example.com", otp: "123456", client }))).toBe("INVALID_OTP");
    expect(await deps.store.findEmailCode("sign-in", "new@example.com")).toMatchObject({ attempts: 1 });
  });

  it("with sign-up by link off, a link mailed to a user deleted since does not create one", async () => {
    const deps = testRegistry({ ...ON, IDENTITY_MAGIC_LINK_SIGN_UP: "false" });
    const { email, user } = await aSignedUpUser(deps);
    await requestMagicLink(deps, { email });
    await deps.processMailRequests();
    const token = tokenIn(deps.mail.link(email, "magic-link"));
    await deps.store.deleteUserAndAccounts(user.id);
    expect(await errorCode(verifyMagicLink(deps, { token, client }))).toBe("NEW_USER_SIGNUP_DISABLED");
    expect(await deps.store.findUserByEmail(email)).toBeNull();
  });

  it("a code checked right is left for its use and gives its try back; an expired one is OTP_EXPIRED", async () => {
    const deps = testRegistry(ON);
    const { email } = await aSignedUpUser(deps);
    const otp = (await mailedCode(deps, email))!;
    for (let i = 0; i < 5; i++) await checkEmailOtp(deps, { email, purpose: "sign-in", otp });
    expect(await deps.store.findEmailCode("sign-in", email)).toMatchObject({ attempts: 0 });
    deps.advance(300_000);
    expect(await errorCode(signInEmailOtp(deps, { email, otp, client }))).toBe("OTP_EXPIRED");
  });

  it("tells a banned unverified user the ban before taking anything of theirs over", async () => {
    const deps = testRegistry(ON);
    const { email, user } = await aSignedUpUser(deps);
    const otp = (await mailedCode(deps, email))!;
    await deps.store.updateUser(user.id, { banned: true });
    expect(await errorCode(signInEmailOtp(deps, { email, otp, client }))).toBe("BANNED_USER");
    expect(await deps.store.findAccount(user.id, "credential")).not.toBeNull();
    expect((await deps.store.findUserById(user.id))?.emailVerified).toBe(false);
  });
});
