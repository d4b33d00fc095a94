/**
 * The real better-auth client, both generations (1.1.9 and the current 1.7), driving the gateway over HTTP
 * as a browser app would: every call the web app makes for sign-up, sign-in, sessions and sign-out,
 * checking the `data` and `error` it hands back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_GENERATIONS, type ClientGeneration } from "../../testing/better-auth-clients.js";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { browserFetch } from "../../testing/browser.js";
import { type Platform, startPlatform } from "../../testing/platform.js";

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform?.stop();
});

const PASSWORD = "password-123";
const TOKEN = /^[A-Za-z0-9]{32}$/;

const sessionCookie = (cookies: Map<string, string>) => cookies.get("better-auth.session_token");

describe.each(CLIENT_GENERATIONS)(`better-auth $version client against the gateway (${backendLabel()})`, (generation: ClientGeneration) => {
  /** A better-auth client of this generation with its own cookie jar (one browser). */
  function aBrowser() {
    const { cookies, exchanges, customFetchImpl } = browserFetch(platform.origin);
    const client = generation.make(platform.baseURL, customFetchImpl);
    return { client, cookies, exchanges };
  }

  async function signedUp(extra: { username?: string } = {}) {
    const browser = aBrowser();
    const email = uniqueEmail("client");
    const { data, error } = await browser.client.signUp.email({ name: "Ada", email, password: PASSWORD, ...extra });
    expect(error).toBeNull();
    return { ...browser, email, user: data!.user, token: data!.token as string };
  }

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
    for (const attempt of [
      { email, password: "wrong-password" },
      { email: uniqueEmail("nobody"), password: PASSWORD },
    ]) {
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

  it("the user JSON always carries username and displayUsername: null when the sign-up named none", async () => {
    const { client, user } = await signedUp();
    expect(user).toMatchObject({ username: null, displayUsername: null });
    expect((await client.getSession()).data!.user).toMatchObject({ username: null, displayUsername: null });
  });

  it("signIn.username answers redirect (false, or true with the url for a callbackURL), the token and user, as the current client declares", async () => {
    const username = `redir_${Date.now().toString(36)}`;
    await signedUp({ username });
    const { data, error } = await aBrowser().client.signIn.username({ username, password: PASSWORD });
    expect(error).toBeNull();
    expect(data).toMatchObject({ redirect: false, token: expect.stringMatching(TOKEN), user: { username } });
    const redirected = await aBrowser().client.signIn.username({ username, password: PASSWORD, callbackURL: "/dashboard" });
    expect(redirected.error).toBeNull();
    expect(redirected.data).toMatchObject({ redirect: true, url: "/dashboard" });
    const evil = await aBrowser().client.signIn.username({ username, password: PASSWORD, callbackURL: "https://evil.example/x" });
    expect(evil.error).toMatchObject({ status: 403, code: "INVALID_CALLBACKURL" });
  });

  it("getSession is served on GET and on POST (the current client's session refresh)", async () => {
    const { client, token, exchanges } = await signedUp();
    expect((await client.getSession()).data!.session.token).toBe(token);
    expect(new URL(exchanges[exchanges.length - 1]!.url).pathname).toBe("/api/auth/get-session");
    const posted = await client.$fetch<{ session: { token: string } }>("/get-session", { method: "POST" });
    expect(posted.error).toBeNull();
    expect(posted.data!.session.token).toBe(token);
    expect(exchanges[exchanges.length - 1]!.method).toBe("POST");
    expect((await aBrowser().client.$fetch("/get-session", { method: "POST" })).data).toBeNull();
  });

  it("isUsernameAvailable: false for a taken name in any case, true for a free one; 400 for an invalid one", async () => {
    const username = `avail_${Date.now().toString(36)}`;
    await signedUp({ username });
    const { client } = aBrowser();
    expect((await client.isUsernameAvailable({ username: username.toUpperCase() })).data).toEqual({ available: false });
    expect((await client.isUsernameAvailable({ username: `${username}_free` })).data).toEqual({ available: true });
    const invalid = await client.isUsernameAvailable({ username: "a b" });
    expect(invalid.data).toBeNull();
    expect(invalid.error).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
  });

  it("updateSession answers the caller's session (no session field is configurable; other fields are ignored); 401 without one", async () => {
    const { client, token, user } = await signedUp();
    const { data, error } = await client.updateSession({ theme: "dark" } as unknown as Record<string, never>);
    expect(error).toBeNull();
    expect(data!.session).toMatchObject({ token, userId: user.id });
    expect(data!.session.expiresAt).toBeInstanceOf(Date);
    expect((await client.getSession()).data!.session).not.toHaveProperty("theme");
    expect((await aBrowser().client.updateSession({ theme: "dark" } as unknown as Record<string, never>)).error).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
  });
});
