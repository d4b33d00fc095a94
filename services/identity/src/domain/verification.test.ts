import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { changeEmail } from "./change-email.js";
import { signVerificationToken } from "./tokens.js";
import { aSignedUpUser, type TestRegistry, testRegistry, tokenIn } from "../../test/test-registry.js";
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
    const forged = await signVerificationToken({ userId: user.id, email }, "another-secret-another-secret-another", 3_600, deps.now());
    expect(await errorCode(verifyEmail(deps, { token: forged, client: {} }))).toBe("INVALID_TOKEN");
    expect(await errorCode(verifyEmail(deps, { token: `${token}x`, client: {} }))).toBe("INVALID_TOKEN");
    expect(await deps.store.findUserById(user.id)).toMatchObject({ emailVerified: false });
  });

  it("a valid token for an address no user has any more is INVALID_TOKEN", async () => {
    const deps = testRegistry();
    const { email, user } = await aSignedUpUser(deps);
    await deps.store.deleteUserAndAccounts(user.id);
    expect(await errorCode(verifyEmail(deps, { token: tokenIn(deps.mail.link(email, "email-verification")), client: {} }))).toBe("INVALID_TOKEN");
  });

  describe("a link names the user it was mailed for, not just the address", () => {
    const AUTO_SIGN_IN = { IDENTITY_AUTO_SIGN_IN_AFTER_VERIFICATION: "true" };

    /** A's link for `email`, then B signs up with the same address once `vacate` has taken it from A. */
    async function addressTakenOver(vacate: (deps: TestRegistry, userId: string) => Promise<unknown>) {
      const deps = testRegistry(AUTO_SIGN_IN);
      const { email, user: a } = await aSignedUpUser(deps);
      const token = tokenIn(deps.mail.link(email, "email-verification"));
      await vacate(deps, a.id);
      const { user: b } = await aSignedUpUser(deps, { email });
      const sessionsBefore = deps.sessions.live.length;
      return { deps, token, a, b, sessionsBefore };
    }

    it("A's link, once A is deleted and B signed up with the address, neither verifies B nor signs into B", async () => {
      const { deps, token, b, sessionsBefore } = await addressTakenOver((deps, id) => deps.store.deleteUserAndAccounts(id));
      expect(await errorCode(verifyEmail(deps, { token, client: {} }))).toBe("INVALID_TOKEN");
      expect(await deps.store.findUserById(b.id)).toMatchObject({ emailVerified: false });
      expect(deps.sessions.live.length).toBe(sessionsBefore);
    });

    it("A's link, once A moved to another address and B signed up with this one, neither verifies B nor signs into B", async () => {
      const { deps, token, a, b, sessionsBefore } = await addressTakenOver((deps, id) => changeEmail(deps, { userId: id, newEmail: "elsewhere@example.com" }));
      expect(await errorCode(verifyEmail(deps, { token, client: {} }))).toBe("INVALID_TOKEN");
      expect(await deps.store.findUserById(b.id)).toMatchObject({ emailVerified: false });
      expect(await deps.store.findUserById(a.id)).toMatchObject({ email: "elsewhere@example.com", emailVerified: false });
      expect(deps.sessions.live.length).toBe(sessionsBefore);
    });

    it("the link of the user who holds the address verifies and signs in, once", async () => {
      const deps = testRegistry(AUTO_SIGN_IN);
      const { email, user } = await aSignedUpUser(deps);
      const token = tokenIn(deps.mail.link(email, "email-verification"));
      const signedUpSessions = deps.sessions.of(user.id).length;
      const first = await verifyEmail(deps, { token, client: {} });
      expect(first).toMatchObject({ user: { id: user.id, emailVerified: true }, session: { userId: user.id } });
      expect((await verifyEmail(deps, { token, client: {} })).session).toBeUndefined();
      expect(deps.sessions.of(user.id)).toHaveLength(signedUpSessions + 1);
    });

    it("a token issued before tokens named their user is INVALID_TOKEN, even for the address's holder", async () => {
      const deps = testRegistry(AUTO_SIGN_IN);
      const { email, user } = await aSignedUpUser(deps);
      const issuedAt = Math.floor(deps.now().getTime() / 1000);
      const signedUpSessions = deps.sessions.of(user.id).length;
      const legacy = await new SignJWT({ email })
        .setProtectedHeader({ alg: "HS256" })
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + 3_600)
        .sign(new TextEncoder().encode(deps.config.secret));
      expect(await errorCode(verifyEmail(deps, { token: legacy, client: {} }))).toBe("INVALID_TOKEN");
      expect(await deps.store.findUserById(user.id)).toMatchObject({ emailVerified: false });
      expect(deps.sessions.of(user.id)).toHaveLength(signedUpSessions);
    });
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
