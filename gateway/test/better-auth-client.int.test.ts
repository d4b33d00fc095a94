/**
 * The real better-auth client (1.1.9) driving the gateway over HTTP, as a browser app would: every call the
 * web app makes for sign-up, sign-in, sessions and sign-out, checking the `data` and `error` it hands back.
 */
import { createAuthClient } from "better-auth/client";
import { usernameClient } from "better-auth/client/plugins";
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { browserFetch } from "../../testing/browser.js";
import { usePlatform } from "../../testing/use-platform.js";

const platform = usePlatform();

const PASSWORD = "password-123";
const TOKEN = /^[A-Za-z0-9]{32}$/;

/** A better-auth client with its own cookie jar (one browser). */
function aBrowser() {
  const { cookies, customFetchImpl } = browserFetch(platform.origin);
  const client = createAuthClient({ baseURL: platform.baseURL, plugins: [usernameClient()], fetchOptions: { customFetchImpl } });
  return { client, cookies };
}

async function signedUp(extra: { username?: string } = {}) {
  const browser = aBrowser();
  const email = uniqueEmail("client");
  const { data, error } = await browser.client.signUp.email({ name: "Ada", email, password: PASSWORD, ...extra });
  expect(error).toBeNull();
  return { ...browser, email, user: data!.user, token: data!.token as string };
}

const sessionCookie = (cookies: Map<string, string>) => cookies.get("better-auth.session_token");

describe(`better-auth client against the gateway (${backendLabel()})`, () => {
  it("signUp.email without a username: data has the user and the token, the browser gets the session cookie", async () => {
    const { client, cookies } = aBrowser();
    const email = uniqueEmail("Client.Case");
    const { data, error } = await client.signUp.email({ name: "Ada", email, password: PASSWORD });
    expect(error).toBeNull();
    expect(data!.token).toMatch(TOKEN);
    expect(data!.user).toMatchObject({ id: expect.any(String), name: "Ada", email: email.toLowerCase(), emailVerified: false, image: null });
    // The client's JSON parser turns ISO strings into dates.
    expect(data!.user.createdAt).toBeInstanceOf(Date);
    expect(data!.user.updatedAt).toBeInstanceOf(Date);
    expect(decodeURIComponent(sessionCookie(cookies)!)).toMatch(new RegExp(`^${data!.token}\\.`));
  });

  it("signUp.email with a username: lower-cased username, the typed one as displayUsername", async () => {
    const { client } = aBrowser();
    const username = `Ada_${Date.now().toString(36)}`;
    const { data, error } = await client.signUp.email({ name: "Ada", email: uniqueEmail("client"), password: PASSWORD, username });
    expect(error).toBeNull();
    expect(data!.token).toMatch(TOKEN);
    expect(data!.user).toMatchObject({ username: username.toLowerCase(), displayUsername: username });
  });

  it("a duplicate sign-up gives error 422 USER_ALREADY_EXISTS and no data", async () => {
    const { email } = await signedUp();
    const { data, error } = await aBrowser().client.signUp.email({ name: "Bea", email: email.toUpperCase(), password: PASSWORD });
    expect(data).toBeNull();
    expect(error).toMatchObject({ status: 422, code: "USER_ALREADY_EXISTS", message: "User already exists" });
  });

  it("a taken username gives error 422 USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER", async () => {
    const username = `taken_${Date.now().toString(36)}`;
    await signedUp({ username });
    const { data, error } = await aBrowser().client.signUp.email({ name: "Bea", email: uniqueEmail("client"), password: PASSWORD, username });
    expect(data).toBeNull();
    expect(error).toMatchObject({ status: 422, code: "USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER", message: "username is already taken. please try another." });
  });

  it("signIn.email: data has redirect false, the token and the user; the browser is signed in", async () => {
    const { email, user } = await signedUp();
    const { client } = aBrowser();
    const { data, error } = await client.signIn.email({ email, password: PASSWORD });
    expect(error).toBeNull();
    expect(data).toMatchObject({ redirect: false, token: expect.stringMatching(TOKEN), user: { id: user.id, email } });
    const session = await client.getSession();
    expect(session.data!.session.token).toBe(data!.token);
  });

  it("signIn.email with a callbackURL answers redirect true and the url", async () => {
    const { email } = await signedUp();
    const { data, error } = await aBrowser().client.signIn.email({ email, password: PASSWORD, callbackURL: "/dashboard" });
    expect(error).toBeNull();
    expect(data).toMatchObject({ redirect: true, url: "/dashboard" });
  });

  it("signIn.email with rememberMe false: a one-day session the browser keeps using", async () => {
    const { email } = await signedUp();
    const { client, cookies } = aBrowser();
    const { data, error } = await client.signIn.email({ email, password: PASSWORD, rememberMe: false });
    expect(error).toBeNull();
    expect(cookies.has("better-auth.dont_remember")).toBe(true);
    const session = (await client.getSession()).data!.session;
    expect(session.token).toBe(data!.token);
    expect(Math.round((session.expiresAt.getTime() - session.createdAt.getTime()) / 1000)).toBe(86_400);
  });

  it("signIn.email failures: error 401 INVALID_EMAIL_OR_PASSWORD, 'Invalid email or password', no data, no cookie", async () => {
    const { email } = await signedUp();
    for (const attempt of [{ email, password: "wrong-password" }, { email: uniqueEmail("nobody"), password: PASSWORD }]) {
      const { client, cookies } = aBrowser();
      const { data, error } = await client.signIn.email(attempt);
      expect(data).toBeNull();
      expect(error!.status).toBe(401);
      expect(error!.code).toBe("INVALID_EMAIL_OR_PASSWORD");
      expect(error!.message).toBe("Invalid email or password");
      expect(sessionCookie(cookies)).toBeUndefined();
    }
  });

  it("signIn.username: success gives the token and user; failure error 401 INVALID_USERNAME_OR_PASSWORD", async () => {
    const username = `user_${Date.now().toString(36)}`;
    const { email, user } = await signedUp({ username });
    const { client } = aBrowser();
    const ok = await client.signIn.username({ username: username.toUpperCase(), password: PASSWORD });
    expect(ok.error).toBeNull();
    expect(ok.data).toMatchObject({ token: expect.stringMatching(TOKEN), user: { id: user.id, email, username } });
    expect((await client.getSession()).data!.user.id).toBe(user.id);

    const wrong = await aBrowser().client.signIn.username({ username, password: "wrong-password" });
    expect(wrong.data).toBeNull();
    expect(wrong.error).toMatchObject({ status: 401, code: "INVALID_USERNAME_OR_PASSWORD", message: "invalid username or password" });
  });

  it("getSession returns the session and the user; null without a session", async () => {
    const { client, user, token } = await signedUp();
    const { data, error } = await client.getSession();
    expect(error).toBeNull();
    expect(data!.user).toMatchObject({ id: user.id, email: user.email, name: "Ada" });
    expect(data!.session).toMatchObject({ token, userId: user.id });
    expect(data!.session.expiresAt).toBeInstanceOf(Date);
    expect(data!.session.expiresAt.getTime()).toBeGreaterThan(Date.now());

    const fresh = await client.getSession({ query: { disableCookieCache: true } });
    expect(fresh.data!.session.token).toBe(token);

    const anonymous = await aBrowser().client.getSession();
    expect(anonymous).toMatchObject({ data: null, error: null });
  });

  it("listSessions lists both sessions after signing in from a second browser; needs a session", async () => {
    const first = await signedUp();
    const second = aBrowser();
    const signIn = await second.client.signIn.email({ email: first.email, password: PASSWORD });
    expect(signIn.error).toBeNull();
    for (const browser of [first, second]) {
      const { data, error } = await browser.client.listSessions();
      expect(error).toBeNull();
      expect(data).toHaveLength(2);
      expect(data!.map((s) => s.token).sort()).toEqual([first.token, signIn.data!.token].sort());
      expect(data!.every((s) => s.userId === first.user.id)).toBe(true);
    }
    const anonymous = await aBrowser().client.listSessions();
    expect(anonymous.data).toBeNull();
    expect(anonymous.error).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
  });

  it("revokeSession ends the other browser's session: its getSession then returns null", async () => {
    const first = await signedUp();
    const second = aBrowser();
    const signIn = await second.client.signIn.email({ email: first.email, password: PASSWORD });
    expect((await second.client.getSession()).data).not.toBeNull();

    const { data, error } = await first.client.revokeSession({ token: signIn.data!.token });
    expect(error).toBeNull();
    expect(data).toEqual({ status: true });
    expect((await second.client.getSession()).data).toBeNull();
    expect(sessionCookie(second.cookies)).toBeUndefined();
    expect((await first.client.getSession()).data!.session.token).toBe(first.token);
    expect((await first.client.listSessions()).data!.map((s) => s.token)).toEqual([first.token]);
  });

  it("revokeSession refuses a session of another user", async () => {
    const victim = await signedUp();
    const stranger = await signedUp();
    const { data, error } = await stranger.client.revokeSession({ token: victim.token });
    expect(data).toBeNull();
    expect(error).toMatchObject({ status: 404, code: "SESSION_NOT_FOUND" });
    expect((await victim.client.getSession()).data).not.toBeNull();
  });

  it("revokeOtherSessions keeps the caller's session and ends the rest", async () => {
    const first = await signedUp();
    const second = aBrowser();
    await second.client.signIn.email({ email: first.email, password: PASSWORD });
    const third = aBrowser();
    await third.client.signIn.email({ email: first.email, password: PASSWORD });

    const { data, error } = await first.client.revokeOtherSessions();
    expect(error).toBeNull();
    expect(data).toEqual({ status: true });
    expect((await second.client.getSession()).data).toBeNull();
    expect((await third.client.getSession()).data).toBeNull();
    expect((await first.client.getSession()).data!.session.token).toBe(first.token);
  });

  it("revokeSessions ends every session, the caller's included", async () => {
    const first = await signedUp();
    const second = aBrowser();
    await second.client.signIn.email({ email: first.email, password: PASSWORD });

    const { data, error } = await second.client.revokeSessions();
    expect(error).toBeNull();
    expect(data).toEqual({ status: true });
    expect((await second.client.getSession()).data).toBeNull();
    expect((await first.client.getSession()).data).toBeNull();
  });

  it("signOut answers success, clears the cookie, and getSession is null afterwards; twice is fine", async () => {
    const { client, cookies, email } = await signedUp();
    const other = aBrowser();
    await other.client.signIn.email({ email, password: PASSWORD });

    const { data, error } = await client.signOut();
    expect(error).toBeNull();
    expect(data).toEqual({ success: true });
    expect(sessionCookie(cookies)).toBeUndefined();
    expect((await client.getSession()).data).toBeNull();
    // Only this browser's session ended.
    expect((await other.client.getSession()).data).not.toBeNull();
    expect((await client.signOut()).data).toEqual({ success: true });
  });
});
