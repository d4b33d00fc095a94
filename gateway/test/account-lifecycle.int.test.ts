/**
 * Issue 3 flows end to end: the gateway, identity, session and notification over real gRPC, mail
 * delivered to a real SMTP server; each test reads the message, follows its link and checks the result,
 * including expired, reused and forged tokens.
 */
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { type Platform, startPlatform } from "../../testing/platform.js";
import { linkIn, startSmtp, type TestSmtp } from "../../testing/smtp.js";

let smtp: TestSmtp;
let platform: Platform;

beforeAll(async () => {
  smtp = await startSmtp();
  platform = await startPlatform({ env: { SMTP_URL: smtp.url } });
});
afterAll(async () => {
  await platform?.stop();
  await smtp?.stop();
});

const client = () => new TestClient(platform.baseURL);
/** Follows a link from a mail (relative to nothing: it is absolute) with a client's cookies. */
const follow = (c: TestClient, link: string) => c.get(link.slice(platform.baseURL.length));
/** A mailed link with its callbackURL replaced. */
const withCallback = (link: string, callbackURL: string) => {
  const url = new URL(link);
  url.searchParams.set("callbackURL", callbackURL);
  return url.toString();
};

async function signUp(email = uniqueEmail(), password = "password-123") {
  const c = client();
  const res = await c.post("/sign-up/email", { name: "Grace", email, password });
  expect(res.status).toBe(200);
  return { c, email, password, user: res.body.user };
}

describe(`account lifecycle with real SMTP (${backendLabel()})`, () => {
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
      const expired = await new SignJWT({ email }).setProtectedHeader({ alg: "HS256" }).setIssuedAt(now - 7200).setExpirationTime(now - 3600).sign(secret);
      const forged = await new SignJWT({ email }).setProtectedHeader({ alg: "HS256" }).setExpirationTime(now + 3600).sign(new TextEncoder().encode("another-secret-another-secret-another"));
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
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(smtp.mails.length).toBe(before + 1);
    });
  });

  describe("password reset", () => {
    it("forget-password mails a link; the link lands on the callback with the token; reset works once", async () => {
      const { email } = await signUp();
      const res = await client().post("/forget-password", { email, redirectTo: "/reset" });
      expect(res).toMatchObject({ status: 200, body: { status: true } });
      const mail = await smtp.waitFor(email, (m) => m.text.includes("/reset-password/"));
      const link = linkIn(mail, "/reset-password/");
      const landing = await follow(client(), link);
      expect(landing.status).toBe(302);
      const location = new URL(landing.headers.get("location")!, "http://x");
      expect(location.pathname).toBe("/reset");
      const token = location.searchParams.get("token")!;
      expect(token).toMatch(/^[A-Za-z0-9]{24}$/);

      expect(await client().post("/reset-password", { newPassword: "short", token })).toMatchObject({ status: 400, body: { code: "PASSWORD_TOO_SHORT" } });
      expect(await client().post("/reset-password", { newPassword: "new-password-456", token })).toMatchObject({ status: 200, body: { status: true } });
      expect((await client().post("/sign-in/email", { email, password: "password-123" })).status).toBe(401);
      expect((await client().post("/sign-in/email", { email, password: "new-password-456" })).status).toBe(200);

      // Used once: the token is gone, for the form and for the landing link.
      expect(await client().post("/reset-password", { newPassword: "another-password-1", token })).toMatchObject({ status: 400, body: { code: "INVALID_TOKEN" } });
      expect((await follow(client(), link)).headers.get("location")).toBe("/reset?error=INVALID_TOKEN");
    });

    it("accepts the token in the query, serves /request-password-reset, and refuses forged tokens", async () => {
      const { email } = await signUp();
      await client().post("/request-password-reset", { email, redirectTo: "/reset" });
      const link = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/reset-password/")), "/reset-password/");
      const token = new URL(link).pathname.split("/").pop()!;
      expect((await client().request("POST", `/reset-password?token=${token}`, { json: { newPassword: "query-password-1" } })).status).toBe(200);
      expect((await client().post("/sign-in/email", { email, password: "query-password-1" })).status).toBe(200);
      expect(await client().post("/reset-password", { newPassword: "whatever-1234", token: "A".repeat(24) })).toMatchObject({ status: 400, body: { code: "INVALID_TOKEN" } });
      expect((await client().get(`/reset-password/${"B".repeat(24)}?callbackURL=/reset`)).headers.get("location")).toBe("/reset?error=INVALID_TOKEN");
    });

    it("answers alike for a known and an unknown email, and mails only the known one", async () => {
      const { email } = await signUp();
      await smtp.waitFor(email);
      const before = smtp.mails.length;
      const known = await client().post("/forget-password", { email });
      const unknown = await client().post("/forget-password", { email: uniqueEmail("unknown") });
      expect(known.status).toBe(200);
      expect(known.body).toEqual({ status: true, message: expect.any(String) });
      expect({ status: unknown.status, body: unknown.body }).toEqual({ status: known.status, body: known.body });
      await smtp.waitFor(email, (m) => m.text.includes("/reset-password/"));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(smtp.mails.length).toBe(before + 1);
    });
  });

  describe("change email", () => {
    it("changes an unverified user's address at once and mails the new address a verification link", async () => {
      const { c } = await signUp();
      const newEmail = uniqueEmail("moved");
      expect(await c.post("/change-email", { newEmail, callbackURL: "/settings" })).toMatchObject({ status: 200, body: { status: true } });
      expect((await c.get("/get-session")).body.user).toMatchObject({ email: newEmail, emailVerified: false });
      const mail = await smtp.waitFor(newEmail, (m) => m.text.includes("/verify-email"));
      expect((await follow(c, linkIn(mail, "/verify-email"))).status).toBe(302);
      expect((await c.get("/get-session")).body.user).toMatchObject({ email: newEmail, emailVerified: true });
    });

    it("a verified user confirms from the old address; the new one must then be verified", async () => {
      const { c, email } = await signUp();
      await follow(c, linkIn(await smtp.waitFor(email, (m) => m.text.includes("/verify-email")), "/verify-email"));
      const newEmail = uniqueEmail("confirmed");
      expect((await c.post("/change-email", { newEmail })).body).toEqual({ status: true });
      expect((await c.get("/get-session")).body.user.email).toBe(email);
      const confirmation = await smtp.waitFor(email, (m) => m.text.includes(newEmail));
      const approval = withCallback(linkIn(confirmation, "/verify-email"), "/settings");
      // Opened with no session, or in another user's session, the approval changes nothing.
      const stranger = await signUp();
      for (const elsewhere of [client(), stranger.c]) {
        const refused = await follow(elsewhere, approval);
        expect({ status: refused.status, location: refused.headers.get("location") }).toEqual({ status: 302, location: "/settings?error=unauthorized" });
      }
      const noCallback = new URL(approval);
      noCallback.searchParams.delete("callbackURL");
      expect(await follow(client(), noCallback.toString())).toMatchObject({ status: 401, body: { code: "UNAUTHORIZED" } });
      expect((await c.get("/get-session")).body.user).toMatchObject({ email, emailVerified: true });
      expect((await client().post("/sign-in/email", { email: newEmail, password: "password-123" })).status).toBe(401);

      const res = await follow(c, approval);
      expect(res.headers.get("location")).toBe("/settings");
      expect((await c.get("/get-session")).body.user).toMatchObject({ email: newEmail, emailVerified: false });
      await smtp.waitFor(newEmail, (m) => m.text.includes("/verify-email"));
      expect((await client().post("/sign-in/email", { email: newEmail, password: "password-123" })).status).toBe(200);
    });

    it("refuses the same address, a taken one, a malformed one, and anonymous callers", async () => {
      const { c, email } = await signUp();
      const other = await signUp();
      expect(await c.post("/change-email", { newEmail: email.toUpperCase() })).toMatchObject({ status: 400, body: { code: "EMAIL_IS_THE_SAME", message: "Email is the same" } });
      expect(await c.post("/change-email", { newEmail: other.email })).toMatchObject({ status: 400, body: { code: "COULDNT_UPDATE_YOUR_EMAIL", message: "Couldn't update your email" } });
      expect(await c.post("/change-email", { newEmail: "nope" })).toMatchObject({ status: 400, body: { code: "INVALID_EMAIL" } });
      expect((await client().post("/change-email", { newEmail: uniqueEmail() })).status).toBe(401);
    });
  });

  describe("change password and update user", () => {
    it("checks the current password, and with revokeOtherSessions ends the others and issues a new session", async () => {
      const { c, email } = await signUp();
      const phone = client();
      await phone.post("/sign-in/email", { email, password: "password-123" });
      expect(await c.post("/change-password", { currentPassword: "wrong-password", newPassword: "next-password-1" })).toMatchObject({ status: 400, body: { code: "INVALID_PASSWORD", message: "Invalid password" } });
      const kept = await c.post("/change-password", { currentPassword: "password-123", newPassword: "next-password-1" });
      expect(kept.body).toMatchObject({ token: null, user: { email } });
      expect((await phone.get("/get-session")).body).not.toBeNull();

      const revoked = await c.post("/change-password", { currentPassword: "next-password-1", newPassword: "final-password-2", revokeOtherSessions: true });
      expect(revoked.body.token).toMatch(/^[A-Za-z0-9]{32}$/);
      expect((await phone.get("/get-session")).body).toBeNull();
      expect((await c.get("/get-session")).body.session.token).toBe(revoked.body.token);
      expect((await client().post("/sign-in/email", { email, password: "next-password-1" })).status).toBe(401);
      expect((await client().post("/sign-in/email", { email, password: "final-password-2" })).status).toBe(200);
    });

    it("update-user changes name and image at once in get-session, and refuses the email", async () => {
      const { c } = await signUp();
      expect(await c.post("/update-user", { name: "Grace Hopper", image: "https://img.example/g.png" })).toMatchObject({ status: 200, body: { status: true } });
      expect((await c.get("/get-session")).body.user).toMatchObject({ name: "Grace Hopper", image: "https://img.example/g.png" });
      expect(await c.post("/update-user", { email: uniqueEmail() })).toMatchObject({ status: 400, body: { code: "EMAIL_CAN_NOT_BE_UPDATED", message: "Email can not be updated" } });
      // A field that is not an input is ignored, never stored.
      expect(await c.post("/update-user", { favouriteColour: "blue" })).toMatchObject({ status: 200, body: { status: true } });
      expect(Object.keys((await c.get("/get-session")).body.user)).not.toContain("favouriteColour");
      expect((await client().post("/update-user", { name: "x" })).status).toBe(401);
    });

    it("has no HTTP route for set-password (server-side only)", async () => {
      const { c } = await signUp();
      expect((await c.post("/set-password", { newPassword: "password-999" })).status).toBe(404);
    });
  });

  describe("accounts", () => {
    it("lists the credential account and refuses to unlink the last one", async () => {
      const { c, user } = await signUp();
      const list = await c.get("/list-accounts");
      expect(list.status).toBe(200);
      expect(list.body).toEqual([
        { id: expect.any(String), provider: "credential", providerId: "credential", accountId: user.id, userId: user.id, createdAt: expect.any(String), updatedAt: expect.any(String), scopes: [] },
      ]);
      expect(await c.post("/unlink-account", { providerId: "credential" })).toMatchObject({ status: 400, body: { code: "YOU_CANT_UNLINK_YOUR_LAST_ACCOUNT", message: "You can't unlink your last account" } });
      expect(await c.post("/unlink-account", { providerId: "github" })).toMatchObject({ status: 400, body: { code: "ACCOUNT_NOT_FOUND" } });
      expect((await client().get("/list-accounts")).status).toBe(401);
    });
  });

  describe("delete user", () => {
    it("with the password and confirmation by mail configured: checks it, mails the link, and the link deletes", async () => {
      const { c, email } = await signUp();
      expect(await c.post("/delete-user", { password: "wrong-password" })).toMatchObject({ status: 400, body: { code: "INVALID_PASSWORD", message: "Invalid password" } });
      expect(await c.post("/delete-user", { password: "password-123" })).toMatchObject({ status: 200, body: { success: true, message: "Verification email sent" } });
      // Nothing is gone until the mailed link is followed.
      expect((await c.get("/get-session")).body.user.email).toBe(email);
      const link = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/delete-user/callback")), "/delete-user/callback");
      expect((await follow(c, link)).headers.get("location")).toBe("/");
      expect((await c.get("/get-session")).body).toBeNull();
      expect((await client().post("/sign-in/email", { email, password: "password-123" })).status).toBe(401);
      expect((await client().post("/sign-up/email", { name: "Again", email, password: "password-123" })).status).toBe(200);
    });

    it("with a fresh session mails a link; following it deletes the user and redirects", async () => {
      const { c, email } = await signUp();
      expect((await c.post("/delete-user", { callbackURL: "/goodbye" })).body).toEqual({ success: true, message: "Verification email sent" });
      const link = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/delete-user/callback")), "/delete-user/callback");
      const token = new URL(link).searchParams.get("token")!;
      expect(token).toMatch(/^[0-9a-z]{32}$/);
      // Someone else's session cannot use the link.
      const stranger = await signUp();
      expect(await stranger.c.get(`/delete-user/callback?token=${token}`)).toMatchObject({ status: 400, body: { code: "INVALID_TOKEN" } });
      const res = await follow(c, link);
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe("/goodbye");
      expect((await client().post("/sign-in/email", { email, password: "password-123" })).status).toBe(401);
      // Reused: the token is gone (and so is the session).
      const again = await signUp();
      expect(await again.c.get(`/delete-user/callback?token=${token}&callbackURL=/goodbye`)).toMatchObject({ status: 302 });
      expect((await again.c.get(`/delete-user/callback?token=${token}&callbackURL=/goodbye`)).headers.get("location")).toBe("/goodbye?error=invalid_token");
      expect((await again.c.get("/get-session")).body).not.toBeNull();
    });
  });
});

describe(`stricter configuration (${backendLabel()})`, () => {
  let strict: Platform;
  beforeAll(async () => {
    strict = await startPlatform({
      env: {
        SMTP_URL: smtp.url,
        IDENTITY_REQUIRE_EMAIL_VERIFICATION: "true",
        IDENTITY_AUTO_SIGN_IN_AFTER_VERIFICATION: "true",
        IDENTITY_REVOKE_SESSIONS_ON_PASSWORD_RESET: "true",
        IDENTITY_RESET_PASSWORD_TOKEN_EXPIRES_IN: "1",
        IDENTITY_CHANGE_EMAIL_ENABLED: "false",
        IDENTITY_DELETE_USER_VERIFICATION: "false",
        SESSION_FRESH_AGE: "1",
      },
    });
  });
  afterAll(async () => {
    await strict?.stop();
  });
  const c = () => new TestClient(strict.baseURL);

  it("required verification: no session at sign-up, 403 and a new mail at sign-in, signed in by the link", async () => {
    const email = uniqueEmail("strict");
    const signUpRes = await c().post("/sign-up/email", { name: "S", email, password: "password-123", username: `s_${Date.now().toString(36)}` });
    expect(signUpRes.body.token).toBeNull();
    await smtp.waitFor(email, (m) => m.text.includes("/verify-email"));
    const count = smtp.mails.filter((m) => m.to.includes(email)).length;
    expect(await c().post("/sign-in/email", { email, password: "password-123" })).toMatchObject({ status: 403, body: { code: "EMAIL_NOT_VERIFIED", message: "Email not verified" } });
    expect(await c().post("/sign-in/username", { username: signUpRes.body.user.username, password: "password-123" })).toMatchObject({ status: 401, body: { code: "INVALID_USERNAME_OR_PASSWORD" } });
    // A wrong password learns nothing and sends nothing.
    expect(await c().post("/sign-in/email", { email, password: "wrong-password" })).toMatchObject({ status: 401 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(smtp.mails.filter((m) => m.to.includes(email)).length).toBe(count + 2);

    const browser = c();
    const link = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/verify-email")), "/verify-email");
    const verified = await browser.get(link.slice(strict.baseURL.length));
    expect({ status: verified.status, location: verified.headers.get("location") }).toEqual({ status: 302, location: "/" });
    expect((await browser.get("/get-session")).body.user.email).toBe(email);
  });

  it("with confirmation by mail off, the right password deletes at once; a wrong one is refused", async () => {
    const email = uniqueEmail("instant");
    const browser = c();
    await browser.post("/sign-up/email", { name: "I", email, password: "password-123" });
    await browser.get(linkIn(await smtp.waitFor(email, (m) => m.text.includes("/verify-email")), "/verify-email").slice(strict.baseURL.length));
    expect(await browser.post("/delete-user", { password: "wrong-password" })).toMatchObject({ status: 400, body: { code: "INVALID_PASSWORD" } });
    expect(await browser.post("/delete-user", { password: "password-123" })).toMatchObject({ status: 200, body: { success: true, message: "User deleted" } });
    expect((await browser.get("/get-session")).body).toBeNull();
    expect((await c().post("/sign-in/email", { email, password: "password-123" })).status).toBe(401);
  });

  it("a reset link expires, and a reset ends every session", async () => {
    const email = uniqueEmail("expiring");
    await c().post("/sign-up/email", { name: "E", email, password: "password-123" });
    const browser = c();
    await browser.get(linkIn(await smtp.waitFor(email, (m) => m.text.includes("/verify-email")), "/verify-email").slice(strict.baseURL.length));
    expect((await browser.get("/get-session")).body).not.toBeNull();

    await c().post("/forget-password", { email, redirectTo: "/reset" });
    const first = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/reset-password/")), "/reset-password/");
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await c().get(first.slice(strict.baseURL.length))).headers.get("location")).toBe("/reset?error=INVALID_TOKEN");

    await c().post("/forget-password", { email, redirectTo: "/reset" });
    const second = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/reset-password/") && !m.text.includes(first)), "/reset-password/");
    const token = new URL(second).pathname.split("/").pop()!;
    expect((await c().post("/reset-password", { token, newPassword: "brand-new-pass-1" })).status).toBe(200);
    expect((await browser.get("/get-session")).body).toBeNull();
  });

  it("change email can be disabled; stale sessions cannot delete the user or unlink accounts", async () => {
    const email = uniqueEmail("stale");
    await c().post("/sign-up/email", { name: "St", email, password: "password-123" });
    const browser = c();
    await browser.get(linkIn(await smtp.waitFor(email, (m) => m.text.includes("/verify-email")), "/verify-email").slice(strict.baseURL.length));
    expect(await browser.post("/change-email", { newEmail: uniqueEmail() })).toMatchObject({ status: 400, body: { code: "CHANGE_EMAIL_IS_DISABLED", message: "Change email is disabled" } });
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(await browser.post("/delete-user", {})).toMatchObject({ status: 403, body: { code: "SESSION_IS_NOT_FRESH", message: "Session is not fresh" } });
    expect(await browser.post("/unlink-account", { providerId: "credential" })).toMatchObject({ status: 403, body: { code: "SESSION_IS_NOT_FRESH" } });
    // The password still works on a stale session.
    expect((await browser.post("/delete-user", { password: "password-123" })).body).toMatchObject({ success: true });
  });
});
