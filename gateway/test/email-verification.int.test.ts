/**
 * Email verification end to end: the gateway and the services over real gRPC, mail delivered to a real
 * SMTP server; each test reads the message, follows its link and checks the result, including expired and
 * forged tokens, and sign-in when verification is required.
 */
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { linkIn } from "../../testing/smtp.js";
import { usePlatform } from "../../testing/use-platform.js";
import { STRICT_ENV, accountHelpers, withCallback } from "./accounts.js";

describe(`email verification (${backendLabel()})`, () => {
  const platform = usePlatform({ smtp: true });
  const { client, follow, signUp, smtp } = accountHelpers(platform);

  describe("email verification", () => {
    it("sign-up mails a verification link; following it verifies and redirects to the callback", async () => {
      const { c, email } = await signUp();
      const mail = await smtp.waitFor(email, (m) => m.text.includes("/verify-email"));
      expect(mail.html).toContain("/verify-email");
      const link = linkIn(mail, "/verify-email");
      const res = await follow(c, withCallback(link, "/welcome"));
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe("/welcome");
      expect((await c.get("/get-session")).body.user.emailVerified).toBe(true);
      // The mailed link itself carries the default callbackURL: the app root. Again is harmless.
      expect(new URL(link).searchParams.get("callbackURL")).toBe("/");
      const again = await follow(c, link);
      expect({ status: again.status, location: again.headers.get("location") }).toEqual({ status: 302, location: "/" });
      expect((await c.get("/get-session")).body.user).toMatchObject({ email, emailVerified: true });
    });

    it("an expired token redirects with error=token_expired, a forged one with invalid_token; JSON without a callback", async () => {
      const { email } = await signUp();
      const secret = new TextEncoder().encode(platform.env.AUTH_SECRET);
      const now = Math.floor(Date.now() / 1000);
      const expired = await new SignJWT({ email })
        .setProtectedHeader({ alg: "HS256" })
        .setIssuedAt(now - 7200)
        .setExpirationTime(now - 3600)
        .sign(secret);
      const forged = await new SignJWT({ email })
        .setProtectedHeader({ alg: "HS256" })
        .setExpirationTime(now + 3600)
        .sign(new TextEncoder().encode("another-secret-another-secret-another"));
      const c = client();
      const expiredRes = await c.get(`/verify-email?token=${expired}&callbackURL=/done`);
      expect(expiredRes.headers.get("location")).toBe("/done?error=token_expired");
      const forgedRes = await c.get(`/verify-email?token=${forged}&callbackURL=/done`);
      expect(forgedRes.headers.get("location")).toBe("/done?error=invalid_token");
      expect(await c.get(`/verify-email?token=${forged}`)).toMatchObject({ status: 400, body: { code: "INVALID_TOKEN", message: "invalid token" } });
      expect(await c.get(`/verify-email?token=${expired}`)).toMatchObject({ status: 400, body: { code: "TOKEN_EXPIRED" } });
    });

    it("send-verification-email mails a known unverified address and answers the same for an unknown one", async () => {
      const { email } = await signUp();
      await smtp.waitFor(email);
      const before = smtp.mails.length;
      const known = await client().post("/send-verification-email", { email, callbackURL: "/verified" });
      const unknown = await client().post("/send-verification-email", { email: uniqueEmail("ghost") });
      expect(known).toMatchObject({ status: 200, body: { status: true } });
      expect(unknown).toMatchObject({ status: 200, body: { status: true } });
      const mail = await smtp.waitFor(email, (m) => linkIn(m, "/verify-email").includes("callbackURL=%2Fverified"));
      expect(mail).toBeDefined();
      await platform.mailSettled();
      expect(smtp.mails.length).toBe(before + 1);
    });
  });
});

describe(`email verification, stricter configuration (${backendLabel()})`, () => {
  const strict = usePlatform({ smtp: true, env: STRICT_ENV });
  const { smtp } = accountHelpers(strict);
  const c = () => strict.client();

  it("required verification: no session at sign-up, 403 and a new mail at sign-in, signed in by the link", async () => {
    const email = uniqueEmail("strict");
    const signUpRes = await c().post("/sign-up/email", { name: "S", email, password: "password-123", username: `s_${Date.now().toString(36)}` });
    expect(signUpRes.body.token).toBeNull();
    await smtp.waitFor(email, (m) => m.text.includes("/verify-email"));
    const count = smtp.mails.filter((m) => m.to.includes(email)).length;
    expect(await c().post("/sign-in/email", { email, password: "password-123" })).toMatchObject({
      status: 403,
      body: { code: "EMAIL_NOT_VERIFIED", message: "Email not verified" },
    });
    expect(await c().post("/sign-in/username", { username: signUpRes.body.user.username, password: "password-123" })).toMatchObject({
      status: 401,
      body: { code: "INVALID_USERNAME_OR_PASSWORD" },
    });
    // A wrong password learns nothing and sends nothing.
    expect(await c().post("/sign-in/email", { email, password: "wrong-password" })).toMatchObject({ status: 401 });
    await strict.mailSettled();
    expect(smtp.mails.filter((m) => m.to.includes(email)).length).toBe(count + 2);

    const browser = c();
    const link = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/verify-email")), "/verify-email");
    const verified = await browser.get(link.slice(strict.baseURL.length));
    expect({ status: verified.status, location: verified.headers.get("location") }).toEqual({ status: 302, location: "/" });
    expect((await browser.get("/get-session")).body.user.email).toBe(email);
  });
});

describe(`email verification, a link names its user (${backendLabel()})`, () => {
  // Signed in by the link, as STRICT_ENV, but verification not required (a user signs in to leave an address).
  const platform = usePlatform({ smtp: true, env: { IDENTITY_AUTO_SIGN_IN_AFTER_VERIFICATION: "true", IDENTITY_DELETE_USER_VERIFICATION: "false" } });
  const { client, follow, signUp, smtp } = accountHelpers(platform);

  /** What a client sees of an answer to a link: status, redirect, body, and whether a session cookie came. */
  const answerOf = (res: Awaited<ReturnType<typeof follow>>) => ({
    status: res.status,
    location: res.headers.get("location"),
    body: res.body,
    setsSession: res.headers.getSetCookie().some((cookie) => cookie.includes("session_token=") && !/max-age=0/i.test(cookie)),
  });
  const withoutCallback = (link: string) => {
    const url = new URL(link);
    url.searchParams.delete("callbackURL");
    return url.toString();
  };
  const mangled = (link: string) => {
    const url = new URL(link);
    url.searchParams.set("token", `${url.searchParams.get("token")}x`);
    return url.toString();
  };

  /** A's verification link for an address, then B signed up with that address once `vacate` took it from A. */
  async function addressTakenOver(vacate: (a: Awaited<ReturnType<typeof signUp>>) => Promise<void>) {
    const a = await signUp();
    const link = linkIn(await smtp.waitFor(a.email, (m) => m.text.includes("/verify-email")), "/verify-email");
    await vacate(a);
    const b = await signUp(a.email);
    return { link, b };
  }

  /** A's link opened by the mailbox's owner: the invalid-token answer, and B unverified with no new session. */
  async function expectRefusedForB(link: string, b: Awaited<ReturnType<typeof signUp>>) {
    for (const variant of [link, withoutCallback(link)]) {
      const opener = client();
      expect(answerOf(await follow(opener, variant))).toEqual(answerOf(await follow(client(), mangled(variant))));
      expect((await opener.get("/get-session")).body).toBeNull();
    }
    expect(answerOf(await follow(client(), link))).toMatchObject({ status: 302, location: "/?error=invalid_token", setsSession: false });
    expect((await b.c.get("/get-session")).body.user).toMatchObject({ id: b.user.id, emailVerified: false });
    expect((await b.c.get("/list-sessions")).body).toHaveLength(1);
  }

  it("A's link, once A deleted the account and B signed up with the address, neither verifies B nor signs into B", async () => {
    const { link, b } = await addressTakenOver(async (a) => {
      expect((await a.c.post("/delete-user", { password: a.password })).body).toMatchObject({ success: true });
    });
    await expectRefusedForB(link, b);
  });

  it("A's link, once A moved to another address and B signed up with this one, neither verifies B nor signs into B", async () => {
    const elsewhere = uniqueEmail("elsewhere");
    const { link, b } = await addressTakenOver(async (a) => {
      expect((await a.c.post("/change-email", { newEmail: elsewhere })).body).toEqual({ status: true });
    });
    await expectRefusedForB(link, b);
    expect((await client().post("/sign-in/email", { email: elsewhere, password: "password-123" })).body.user).toMatchObject({ email: elsewhere, emailVerified: false });
  });

  it("the link of the user holding the address verifies and signs in, once", async () => {
    const { email, user } = await signUp();
    const link = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/verify-email")), "/verify-email");
    const opener = client();
    expect(answerOf(await follow(opener, link))).toMatchObject({ status: 302, location: "/", setsSession: true });
    expect((await opener.get("/get-session")).body.user).toMatchObject({ id: user.id, emailVerified: true });
    const again = client();
    expect(answerOf(await follow(again, link))).toMatchObject({ status: 302, location: "/", setsSession: false });
    expect((await again.get("/get-session")).body).toBeNull();
    expect((await opener.get("/list-sessions")).body).toHaveLength(2);
  });
});
