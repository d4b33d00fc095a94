/**
 * The real better-auth client (1.1.9) driving the account routes of the gateway as a browser app
 * would: verification, password reset, change email and password, update and delete user, linked accounts.
 * Mail goes to a real SMTP server; links are taken from the messages and opened in the same "browser".
 * Every call checks both halves of what the client hands back: `data` on success, `error` on failure.
 */
import { createAuthClient } from "better-auth/client";
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { browserFetch } from "../../testing/browser.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { linkIn } from "../../testing/smtp.js";
import { usePlatform } from "../../testing/use-platform.js";

const platform = usePlatform({ smtp: true });

const PASSWORD = "password-123";
const TOKEN = /^[A-Za-z0-9]{32}$/;
const EVIL = "https://evil.example/x";

/** A browser tab with the better-auth client in it. */
function aBrowser() {
  const { cookies, exchanges, customFetchImpl } = browserFetch(platform.origin);

  const client = createAuthClient({ baseURL: platform.baseURL, fetchOptions: { customFetchImpl } });

  /** Opens a link (from a mail) in this tab: a GET with the tab's cookies, redirects not followed. */
  const open = async (link: string) => {
    const res = await customFetchImpl(link);
    const text = await res.text();
    const json = (res.headers.get("content-type") ?? "").includes("json");
    return { status: res.status, location: res.headers.get("location"), body: json && text ? JSON.parse(text) : text };
  };

  return { client, cookies, exchanges, open, last: () => exchanges[exchanges.length - 1]! };
}

type Browser = ReturnType<typeof aBrowser>;

/** What the client put on the wire for its last call: method, path under the base path, JSON body. */
function expectSent(browser: Browser, method: string, path: string, body?: unknown) {
  const sent = browser.last();
  expect({ method: sent.method, path: new URL(sent.url).pathname }).toEqual({ method, path: `/api/auth${path}` });
  if (body !== undefined) expect(JSON.parse(sent.body ?? "null")).toEqual(body);
  else expect(sent.body).toBeUndefined();
}

const sessionCookie = (cookies: Map<string, string>) => cookies.get("better-auth.session_token");

async function signedUp(label = "lifecycle"): Promise<Browser & { email: string; user: { id: string; email: string; name: string }; token: string }> {
  const browser = aBrowser();
  const email = uniqueEmail(label);
  const { data, error } = await browser.client.signUp.email({ name: "Ada", email, password: PASSWORD });
  expect(error).toBeNull();
  expect(data!.token).toMatch(TOKEN);
  return { ...browser, email, user: data!.user, token: data!.token as string };
}

const verifyMail = (email: string) => platform.smtp.waitFor(email, (m) => m.text.includes("/verify-email"));
const tokenOf = (link: string, name = "token") => new URL(link).searchParams.get(name)!;

/** A signed-up user whose address was verified through the mailed link. */
async function verifiedUser(label = "verified") {
  const browser = await signedUp(label);
  const { data, error } = await browser.client.verifyEmail({ query: { token: tokenOf(linkIn(await verifyMail(browser.email), "/verify-email")) } });
  expect(error).toBeNull();
  expect(data).toMatchObject({ status: true, user: { email: browser.email, emailVerified: true } });
  return browser;
}

describe(`better-auth 1.1.9 client: account lifecycle against the gateway (${backendLabel()})`, () => {
  describe("sendVerificationEmail and verifyEmail", () => {
    it("sendVerificationEmail: data { status: true } and a mail whose link carries the callbackURL", async () => {
      const browser = await signedUp();
      const { client, email } = browser;
      await verifyMail(email);
      const { data, error } = await client.sendVerificationEmail({ email, callbackURL: "/verified" });
      expect(error).toBeNull();
      expect(data).toEqual({ status: true });
      expectSent(browser, "POST", "/send-verification-email", { email, callbackURL: "/verified" });
      const mail = await platform.smtp.waitFor(email, (m) => linkIn(m, "/verify-email").includes("callbackURL=%2Fverified"));
      expect(linkIn(mail, "/verify-email").startsWith(`${platform.baseURL}/verify-email?token=`)).toBe(true);
    });

    it("sendVerificationEmail answers the same data for an unknown address", async () => {
      const { data, error } = await aBrowser().client.sendVerificationEmail({ email: uniqueEmail("ghost") });
      expect(error).toBeNull();
      expect(data).toEqual({ status: true });
    });

    it("sendVerificationEmail errors: untrusted callbackURL is 403 INVALID_CALLBACKURL, a malformed address 400 INVALID_EMAIL", async () => {
      const { client, email } = await signedUp();
      const evil = await client.sendVerificationEmail({ email, callbackURL: EVIL });
      expect(evil.data).toBeNull();
      expect(evil.error).toMatchObject({ status: 403, code: "INVALID_CALLBACKURL", message: "Invalid callbackURL" });
      const malformed = await client.sendVerificationEmail({ email: "not-an-email" });
      expect(malformed.data).toBeNull();
      expect(malformed.error).toMatchObject({ status: 400, code: "INVALID_EMAIL", message: "Invalid email" });
    });

    it("verifyEmail({ query: { token } }) with the mailed token: data has the verified user, getSession agrees", async () => {
      const browser = await signedUp();
      const { client, email, user } = browser;
      const link = linkIn(await verifyMail(email), "/verify-email");
      const token = tokenOf(link);
      const { data, error } = await client.verifyEmail({ query: { token } });
      expect(error).toBeNull();
      expect(data).toMatchObject({ status: true, user: { id: user.id, email, emailVerified: true } });
      expectSent(browser, "GET", "/verify-email");
      expect(new URL(browser.last().url).searchParams.get("token")).toBe(token);
      const session = await client.getSession({ query: { disableCookieCache: true } });
      expect(session.data!.user).toMatchObject({ id: user.id, emailVerified: true });
      // The same token again: still fine, still verified.
      expect((await client.verifyEmail({ query: { token } })).data).toMatchObject({ status: true, user: { emailVerified: true } });
    });

    it("verifyEmail with a callbackURL answers a 302 the client hands back as error status 302; Location is the callback", async () => {
      const { client, email, last } = await signedUp();
      const token = tokenOf(linkIn(await verifyMail(email), "/verify-email"));
      const { data, error } = await client.verifyEmail({ query: { token, callbackURL: "/welcome" } });
      expect(data).toBeNull();
      expect(error).toMatchObject({ status: 302 });
      expect(last()).toMatchObject({ status: 302, location: "/welcome" });
      expect((await client.getSession()).data!.user.emailVerified).toBe(true);
    });

    it("verifyEmail errors: a forged token is 400 INVALID_TOKEN; with a callbackURL a redirect carrying error=invalid_token", async () => {
      const { client, last } = await signedUp();
      const forged = await client.verifyEmail({ query: { token: "eyJhbGciOiJIUzI1NiJ9.eyJlbWFpbCI6ImFAYi5jIn0.forged" } });
      expect(forged.data).toBeNull();
      expect(forged.error).toMatchObject({ status: 400, code: "INVALID_TOKEN", message: "invalid token" });
      const redirected = await client.verifyEmail({ query: { token: "garbage", callbackURL: "/welcome" } });
      expect(redirected.data).toBeNull();
      expect(redirected.error).toMatchObject({ status: 302 });
      expect(last()).toMatchObject({ status: 302, location: "/welcome?error=invalid_token" });
      const evil = await client.verifyEmail({ query: { token: "garbage", callbackURL: EVIL } });
      expect(evil.error).toMatchObject({ status: 403, code: "INVALID_CALLBACKURL" });
    });
  });

  describe("forgetPassword and resetPassword", () => {
    it("forgetPassword mails a link; the link lands on redirectTo with the token; resetPassword sets the password once", async () => {
      const { email } = await signedUp();
      const browser = aBrowser();
      const { data, error } = await browser.client.forgetPassword({ email, redirectTo: "/reset" });
      expect(error).toBeNull();
      expect(data).toEqual({ status: true });
      expectSent(browser, "POST", "/forget-password", { email, redirectTo: "/reset" });

      const link = linkIn(await platform.smtp.waitFor(email, (m) => m.text.includes("/reset-password/")), "/reset-password/");
      const landing = await browser.open(link);
      expect(landing.status).toBe(302);
      const location = new URL(landing.location!, "http://app.invalid");
      expect(location.pathname).toBe("/reset");
      const token = location.searchParams.get("token")!;
      expect(token).toMatch(/^[A-Za-z0-9]{24}$/);

      const tooShort = await browser.client.resetPassword({ newPassword: "short", token });
      expect(tooShort.data).toBeNull();
      expect(tooShort.error).toMatchObject({ status: 400, code: "PASSWORD_TOO_SHORT", message: "Password too short" });

      const reset = await browser.client.resetPassword({ newPassword: "new-password-456", token });
      expect(reset.error).toBeNull();
      expect(reset.data).toEqual({ status: true });
      expectSent(browser, "POST", "/reset-password", { newPassword: "new-password-456", token });

      const again = await browser.client.resetPassword({ newPassword: "another-password-1", token });
      expect(again.data).toBeNull();
      expect(again.error).toMatchObject({ status: 400, code: "INVALID_TOKEN", message: "invalid token" });

      const old = await aBrowser().client.signIn.email({ email, password: PASSWORD });
      expect(old.error).toMatchObject({ status: 401, code: "INVALID_EMAIL_OR_PASSWORD" });
      const fresh = await aBrowser().client.signIn.email({ email, password: "new-password-456" });
      expect(fresh.error).toBeNull();
      expect(fresh.data!.token).toMatch(TOKEN);
      // The used link now lands on redirectTo with the error.
      expect((await browser.open(link)).location).toBe("/reset?error=INVALID_TOKEN");
    });

    it("forgetPassword answers the same data for an unknown address and mails nothing", async () => {
      const before = platform.smtp.mails.length;
      const ghost = uniqueEmail("ghost");
      const { data, error } = await aBrowser().client.forgetPassword({ email: ghost, redirectTo: "/reset" });
      expect(error).toBeNull();
      expect(data).toEqual({ status: true });
      await platform.mailSettled();
      expect(platform.smtp.mails.slice(before).filter((m) => m.to.includes(ghost))).toEqual([]);
    });

    it("forgetPassword with an untrusted redirectTo is error 403 INVALID_REDIRECTURL; resetPassword with a forged token 400 INVALID_TOKEN", async () => {
      const { email } = await signedUp();
      const evil = await aBrowser().client.forgetPassword({ email, redirectTo: EVIL });
      expect(evil.data).toBeNull();
      expect(evil.error).toMatchObject({ status: 403, code: "INVALID_REDIRECTURL", message: "Invalid redirectURL" });
      const forged = await aBrowser().client.resetPassword({ newPassword: "whatever-1234", token: "A".repeat(24) });
      expect(forged.data).toBeNull();
      expect(forged.error).toMatchObject({ status: 400, code: "INVALID_TOKEN", message: "invalid token" });
    });
  });

  describe("both forgot-password paths over plain HTTP (1.1 clients call /forget-password, 1.7 /request-password-reset)", () => {
    for (const path of ["/forget-password", "/request-password-reset"]) {
      it(`POST ${path} mails a working reset link and answers { status: true } for known and unknown addresses`, async () => {
        const { email } = await signedUp();
        const http = new TestClient(platform.baseURL);
        const known = await http.post(path, { email, redirectTo: "/reset" });
        const unknown = await http.post(path, { email: uniqueEmail("nobody"), redirectTo: "/reset" });
        expect({ status: known.status, body: known.body }).toEqual({ status: 200, body: { status: true } });
        expect({ status: unknown.status, body: unknown.body }).toEqual({ status: 200, body: { status: true } });
        const evil = await http.post(path, { email, redirectTo: EVIL });
        expect(evil).toMatchObject({ status: 403, body: { code: "INVALID_REDIRECTURL", message: "Invalid redirectURL" } });

        const link = linkIn(await platform.smtp.waitFor(email, (m) => m.text.includes("/reset-password/")), "/reset-password/");
        expect(new URL(link).searchParams.get("callbackURL")).toBe("/reset");
        const token = new URL(link).pathname.split("/").pop()!;
        expect((await http.post("/reset-password", { newPassword: `${path}-pw-1`, token })).body).toEqual({ status: true });
        expect((await http.post("/sign-in/email", { email, password: `${path}-pw-1` })).status).toBe(200);
      });
    }
  });

  describe("changeEmail", () => {
    it("an unverified user's address changes at once: data { status: true }, getSession shows it, the new address gets a link", async () => {
      const browser = await signedUp();
      const { client, email } = browser;
      const newEmail = uniqueEmail("moved");
      const { data, error } = await client.changeEmail({ newEmail });
      expect(error).toBeNull();
      expect(data).toEqual({ status: true });
      expectSent(browser, "POST", "/change-email", { newEmail });
      expect((await client.getSession({ query: { disableCookieCache: true } })).data!.user).toMatchObject({ email: newEmail, emailVerified: false });
      const token = tokenOf(linkIn(await verifyMail(newEmail), "/verify-email"));
      expect((await client.verifyEmail({ query: { token } })).data).toMatchObject({ status: true, user: { email: newEmail, emailVerified: true } });
      expect((await aBrowser().client.signIn.email({ email, password: PASSWORD })).error).toMatchObject({ status: 401 });
    });

    it("a verified user confirms from the old address; verifyEmail with that token moves the account", async () => {
      const { client, email } = await verifiedUser();
      const newEmail = uniqueEmail("confirmed");
      const { data, error } = await client.changeEmail({ newEmail, callbackURL: "/settings" });
      expect(error).toBeNull();
      expect(data).toEqual({ status: true });
      expect((await client.getSession({ query: { disableCookieCache: true } })).data!.user.email).toBe(email);
      const confirmation = linkIn(await platform.smtp.waitFor(email, (m) => m.text.includes(newEmail)), "/verify-email");
      expect(tokenOf(confirmation, "callbackURL")).toBe("/settings");
      const moved = await client.verifyEmail({ query: { token: tokenOf(confirmation) } });
      expect(moved.error).toBeNull();
      expect(moved.data).toMatchObject({ status: true, user: { email: newEmail, emailVerified: false } });
      expect((await client.getSession({ query: { disableCookieCache: true } })).data!.user).toMatchObject({ email: newEmail, emailVerified: false });
      await verifyMail(newEmail);
    });

    it("changeEmail errors: same address 400 EMAIL_IS_THE_SAME, taken 422 USER_ALREADY_EXISTS, untrusted callback 403, anonymous 401", async () => {
      const { client, email } = await signedUp();
      const other = await signedUp();
      const same = await client.changeEmail({ newEmail: email.toUpperCase() });
      expect(same.data).toBeNull();
      expect(same.error).toMatchObject({ status: 400, code: "EMAIL_IS_THE_SAME", message: "Email is the same" });
      const taken = await client.changeEmail({ newEmail: other.email });
      expect(taken.data).toBeNull();
      expect(taken.error).toMatchObject({ status: 422, code: "USER_ALREADY_EXISTS", message: "User already exists" });
      const evil = await client.changeEmail({ newEmail: uniqueEmail(), callbackURL: EVIL });
      expect(evil.error).toMatchObject({ status: 403, code: "INVALID_CALLBACKURL" });
      const anonymous = await aBrowser().client.changeEmail({ newEmail: uniqueEmail() });
      expect(anonymous.data).toBeNull();
      expect(anonymous.error).toMatchObject({ status: 401, code: "UNAUTHORIZED", message: "Unauthorized" });
    });
  });

  describe("changePassword", () => {
    it("with revokeOtherSessions: data.token is the new session, which the browser now holds; the other browser is signed out", async () => {
      const browser = await signedUp();
      const { client, cookies, email, token: oldToken } = browser;
      const phone = aBrowser();
      expect((await phone.client.signIn.email({ email, password: PASSWORD })).error).toBeNull();

      const { data, error } = await client.changePassword({ currentPassword: PASSWORD, newPassword: "next-password-1", revokeOtherSessions: true });
      expect(error).toBeNull();
      expectSent(browser, "POST", "/change-password", { currentPassword: PASSWORD, newPassword: "next-password-1", revokeOtherSessions: true });
      expect(data!.token).toMatch(TOKEN);
      expect(data!.token).not.toBe(oldToken);
      expect(decodeURIComponent(sessionCookie(cookies)!)).toMatch(new RegExp(`^${data!.token}\\.`));
      expect((await client.getSession()).data!.session.token).toBe(data!.token);
      expect((await phone.client.getSession()).data).toBeNull();

      expect((await aBrowser().client.signIn.email({ email, password: PASSWORD })).error).toMatchObject({ status: 401 });
      expect((await aBrowser().client.signIn.email({ email, password: "next-password-1" })).error).toBeNull();
    });

    it("without revokeOtherSessions: data.token is null and every session lives on", async () => {
      const { client, email, token } = await signedUp();
      const phone = aBrowser();
      await phone.client.signIn.email({ email, password: PASSWORD });
      const { data, error } = await client.changePassword({ currentPassword: PASSWORD, newPassword: "next-password-2", revokeOtherSessions: false });
      expect(error).toBeNull();
      expect(data).toMatchObject({ token: null });
      expect((await client.getSession()).data!.session.token).toBe(token);
      expect((await phone.client.getSession()).data).not.toBeNull();
    });

    it("changePassword errors: wrong current password 400 INVALID_PASSWORD, too short 400 PASSWORD_TOO_SHORT, anonymous 401", async () => {
      const { client } = await signedUp();
      const wrong = await client.changePassword({ currentPassword: "wrong-password", newPassword: "next-password-1" });
      expect(wrong.data).toBeNull();
      expect(wrong.error).toMatchObject({ status: 400, code: "INVALID_PASSWORD", message: "Invalid password" });
      const short = await client.changePassword({ currentPassword: PASSWORD, newPassword: "short" });
      expect(short.data).toBeNull();
      expect(short.error).toMatchObject({ status: 400, code: "PASSWORD_TOO_SHORT", message: "Password too short" });
      const anonymous = await aBrowser().client.changePassword({ currentPassword: PASSWORD, newPassword: "next-password-1" });
      expect(anonymous.error).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    });
  });

  describe("updateUser", () => {
    it("updateUser({ name, image }): data { status: true }; getSession shows both at once", async () => {
      const browser = await signedUp();
      const { client, user } = browser;
      const { data, error } = await client.updateUser({ name: "Grace Hopper", image: "https://img.example/g.png" });
      expect(error).toBeNull();
      expect(data).toEqual({ status: true });
      expectSent(browser, "POST", "/update-user", { name: "Grace Hopper", image: "https://img.example/g.png" });
      const session = await client.getSession();
      expect(session.data!.user).toMatchObject({ id: user.id, name: "Grace Hopper", image: "https://img.example/g.png" });
      // image may be cleared with null.
      expect((await client.updateUser({ image: null })).data).toEqual({ status: true });
      expect((await client.getSession()).data!.user).toMatchObject({ name: "Grace Hopper", image: null });
    });

    it("updateUser errors: an email field 400 EMAIL_CAN_NOT_BE_UPDATED, an empty name 400 VALIDATION_ERROR, anonymous 401", async () => {
      const { client } = await signedUp();
      const email = await client.updateUser({ email: uniqueEmail() } as { name?: string });
      expect(email.data).toBeNull();
      expect(email.error).toMatchObject({ status: 400, code: "EMAIL_CAN_NOT_BE_UPDATED", message: "Email can not be updated" });
      const empty = await client.updateUser({ name: "" });
      expect(empty.data).toBeNull();
      expect(empty.error).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
      expect(empty.error!.message).toMatch(/\bname\b/);
      const anonymous = await aBrowser().client.updateUser({ name: "Nobody" });
      expect(anonymous.error).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    });
  });

  describe("deleteUser", () => {
    it("deleteUser({ password }): data 'User deleted', the cookie is dropped, getSession is null, sign-in fails", async () => {
      const browser = await signedUp();
      const { client, cookies, email } = browser;
      const wrong = await client.deleteUser({ password: "wrong-password" });
      expectSent(browser, "POST", "/delete-user", { password: "wrong-password" });
      expect(wrong.data).toBeNull();
      expect(wrong.error).toMatchObject({ status: 400, code: "INVALID_PASSWORD", message: "Invalid password" });

      const { data, error } = await client.deleteUser({ password: PASSWORD });
      expect(error).toBeNull();
      expect(data).toEqual({ success: true, message: "User deleted" });
      expect(sessionCookie(cookies)).toBeUndefined();
      expect(await client.getSession()).toMatchObject({ data: null, error: null });
      expect((await aBrowser().client.signIn.email({ email, password: PASSWORD })).error).toMatchObject({ status: 401, code: "INVALID_EMAIL_OR_PASSWORD" });
    });

    it("deleteUser({}): data 'Verification email sent'; opening the mailed callback link deletes the user", async () => {
      const browser = await signedUp();
      const { client, cookies, email, open } = browser;
      const { data, error } = await client.deleteUser({});
      expect(error).toBeNull();
      expect(data).toEqual({ success: true, message: "Verification email sent" });
      expectSent(browser, "POST", "/delete-user", {});
      // Nothing is gone yet.
      expect((await client.getSession()).data!.user.email).toBe(email);

      const link = linkIn(await platform.smtp.waitFor(email, (m) => m.text.includes("/delete-user/callback")), "/delete-user/callback");
      expect(tokenOf(link)).toMatch(/^[0-9a-z]{32}$/);
      const opened = await aBrowser().open(link);
      // Another browser (no session) cannot use it.
      expect(opened).toMatchObject({ status: 401, body: { code: "UNAUTHORIZED" } });

      const followed = await open(link);
      expect(followed).toMatchObject({ status: 200, body: { success: true, message: "User deleted" } });
      expect(sessionCookie(cookies)).toBeUndefined();
      expect((await client.getSession()).data).toBeNull();
      expect((await aBrowser().client.signIn.email({ email, password: PASSWORD })).error).toMatchObject({ status: 401 });
    });

    it("deleteUser({ callbackURL }): the mailed link redirects to the callback after deleting", async () => {
      const browser = await signedUp();
      const { data, error } = await browser.client.deleteUser({ callbackURL: "/goodbye" });
      expect(error).toBeNull();
      expect(data).toEqual({ success: true, message: "Verification email sent" });
      const link = linkIn(await platform.smtp.waitFor(browser.email, (m) => m.text.includes("/delete-user/callback")), "/delete-user/callback");
      expect(tokenOf(link, "callbackURL")).toBe("/goodbye");
      const followed = await browser.open(link);
      expect(followed).toMatchObject({ status: 302, location: "/goodbye" });
      expect(sessionCookie(browser.cookies)).toBeUndefined();
      expect((await browser.client.getSession()).data).toBeNull();
      // The link is used up.
      const again = await signedUp();
      expect((await again.open(link)).location).toBe("/goodbye?error=invalid_token");
    });

    it("deleteUser errors: an untrusted callbackURL is 403 INVALID_CALLBACKURL, anonymous 401", async () => {
      const { client } = await signedUp();
      const evil = await client.deleteUser({ callbackURL: EVIL });
      expect(evil.data).toBeNull();
      expect(evil.error).toMatchObject({ status: 403, code: "INVALID_CALLBACKURL", message: "Invalid callbackURL" });
      const anonymous = await aBrowser().client.deleteUser({ password: PASSWORD });
      expect(anonymous.data).toBeNull();
      expect(anonymous.error).toMatchObject({ status: 401, code: "UNAUTHORIZED", message: "Unauthorized" });
      expect((await client.getSession()).data).not.toBeNull();
    });
  });

  describe("listAccounts and unlinkAccount", () => {
    it("listAccounts: data lists the credential account", async () => {
      const browser = await signedUp();
      const { client, user } = browser;
      const { data, error } = await client.listAccounts();
      expect(error).toBeNull();
      expectSent(browser, "GET", "/list-accounts");
      expect(data).toHaveLength(1);
      expect(data![0]).toMatchObject({ id: expect.any(String), provider: "credential", accountId: user.id, scopes: [] });
      // The client's JSON parser turns the ISO strings into dates.
      expect((data![0] as unknown as { createdAt: unknown }).createdAt).toBeInstanceOf(Date);
      const anonymous = await aBrowser().client.listAccounts();
      expect(anonymous.data).toBeNull();
      expect(anonymous.error).toMatchObject({ status: 401, code: "UNAUTHORIZED", message: "Unauthorized" });
    });

    it("unlinkAccount({ providerId: 'credential' }) of the only account: error 400 FAILED_TO_UNLINK_LAST_ACCOUNT", async () => {
      const browser = await signedUp();
      const { client } = browser;
      const { data, error } = await client.unlinkAccount({ providerId: "credential" });
      expectSent(browser, "POST", "/unlink-account", { providerId: "credential" });
      expect(data).toBeNull();
      expect(error).toMatchObject({ status: 400, code: "FAILED_TO_UNLINK_LAST_ACCOUNT", message: "You can't unlink your last account" });
      expect((await client.listAccounts()).data).toHaveLength(1);
      const anonymous = await aBrowser().client.unlinkAccount({ providerId: "credential" });
      expect(anonymous.error).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    });
  });
});

