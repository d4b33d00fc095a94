import { describe, expect, it } from "vitest";
import { signVerificationToken } from "./tokens.js";
import { aSignedUpUser, testRegistry, tokenIn } from "./test-registry.js";
import { sendVerificationEmail, verifyEmail } from "./verification.js";
import { errorCode } from "../../../../testing/error-code.js";

const HOUR = 3_600_000;

describe("email verification", () => {
  it("the link mailed at sign-up verifies the address, drops cached copies of the user, and works again harmlessly", async () => {
    const deps = testRegistry();
    const { email, user } = await aSignedUpUser(deps);
    const token = tokenIn(deps.mail.link(email, "email-verification"));
    const { user: verified, session } = await verifyEmail(deps, { token, client: {} });
    expect(verified).toMatchObject({ id: user.id, emailVerified: true });
    expect(session).toBeUndefined();
    expect(await deps.store.findUserById(user.id)).toMatchObject({ emailVerified: true });
    expect(deps.sessions.forgotten).toEqual([user.id]);
    expect((await verifyEmail(deps, { token, client: {} })).user).toMatchObject({ emailVerified: true });
  });

  it("starts a session on verification when so configured", async () => {
    const deps = testRegistry({ IDENTITY_AUTO_SIGN_IN_AFTER_VERIFICATION: "true", IDENTITY_AUTO_SIGN_IN: "false" });
    const { email, user } = await aSignedUpUser(deps);
    const { session } = await verifyEmail(deps, { token: tokenIn(deps.mail.link(email, "email-verification")), client: {} });
    expect(session?.userId).toBe(user.id);
  });

  it("refuses a link past its hour as TOKEN_EXPIRED, and a forged or mangled one as INVALID_TOKEN", async () => {
    const deps = testRegistry();
    const { email, user } = await aSignedUpUser(deps);
    const token = tokenIn(deps.mail.link(email, "email-verification"));
    deps.advance(HOUR + 1_000);
    expect(await errorCode(verifyEmail(deps, { token, client: {} }))).toBe("TOKEN_EXPIRED");
    const forged = await signVerificationToken({ email }, "another-secret-another-secret-another", 3_600, deps.now());
    expect(await errorCode(verifyEmail(deps, { token: forged, client: {} }))).toBe("INVALID_TOKEN");
    expect(await errorCode(verifyEmail(deps, { token: `${token}x`, client: {} }))).toBe("INVALID_TOKEN");
    expect(await deps.store.findUserById(user.id)).toMatchObject({ emailVerified: false });
  });

  it("a valid token for an address no user has any more is USER_NOT_FOUND", async () => {
    const deps = testRegistry();
    const { email, user } = await aSignedUpUser(deps);
    await deps.store.deleteUserAndAccounts(user.id);
    expect(await errorCode(verifyEmail(deps, { token: tokenIn(deps.mail.link(email, "email-verification")), client: {} }))).toBe("USER_NOT_FOUND");
  });

  it("send-verification-email queues the same request for any address; the worker mails only an unverified user", async () => {
    const deps = testRegistry();
    const { email: unverified } = await aSignedUpUser(deps);
    const { email: verified, user } = await aSignedUpUser(deps);
    await deps.store.updateUser(user.id, { emailVerified: true });
    deps.mail.sent.length = 0;
    for (const address of [unverified, verified, "nobody@example.com"]) await sendVerificationEmail(deps, { email: address, callbackUrl: "/done" });
    expect(deps.mail.sent).toEqual([]);
    await deps.processMailRequests();
    expect(deps.mail.sent.map((m) => m.to)).toEqual([unverified]);
    expect(deps.mail.link(unverified, "email-verification")).toContain("callbackURL=%2Fdone");
    expect(await errorCode(sendVerificationEmail(deps, { email: "not an email" }))).toBe("INVALID_EMAIL");
    expect(await errorCode(sendVerificationEmail(testRegistry({ IDENTITY_EMAIL_VERIFICATION_ENABLED: "false" }), { email: unverified }))).toBe("VERIFICATION_EMAIL_ISNT_ENABLED");
  });
});
