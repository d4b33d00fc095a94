/**
 * Social sign-in end to end against a real OpenID provider on loopback (oidc-provider): discovery, the
 * authorization redirect with PKCE (S256) and a nonce, the code exchange, the id token verified against
 * the provider's key set, the session, and every way the callback refuses: a reused or expired state, a
 * callback from another browser, an id token with a wrong audience, nonce or signature, a provider error.
 */
import { createHash } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { postJson, useSocialPlatform } from "../../testing/social-platform.js";

const social = useSocialPlatform();

async function startGoogle(flow: ReturnType<typeof social.browser>, body: Record<string, unknown> = {}) {
  const res = await postJson(flow, `${social.platform.baseURL}/sign-in/social`, {
    provider: "google",
    callbackURL: "/dashboard",
    newUserCallbackURL: "/welcome",
    errorCallbackURL: "/oops",
    ...body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { url: string; redirect: boolean };
}

/** An absolute URL on the platform's origin (where relative callback URLs resolve). */
const at = (path: string) => `${social.platform.origin}${path}`;
const stateOf = (url: string) => new URL(url).searchParams.get("state")!;
const callbackUrl = (params: Record<string, string>) => `${social.platform.baseURL}/callback/google?${new URLSearchParams(params)}`;

afterEach(() => {
  social.tokens.forgedIdToken = undefined;
  vi.useRealTimers();
});

describe("social sign-in with an OpenID provider", () => {
  it("registers a new user: PKCE and nonce sent, id token verified, session issued, new-user URL", async () => {
    const account = social.anAccount("new");
    social.idp.signInAs(account);
    const flow = social.browser();
    const { url, redirect } = await startGoogle(flow);
    expect(redirect).toBe(true);
    const authorize = new URL(url);
    expect(authorize.origin).toBe(social.idp.issuer);
    const params = authorize.searchParams;
    expect(params.get("state")).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(params.get("code_challenge_method")).toBe("S256");
    expect(params.get("nonce")).toBeTruthy();
    expect(params.get("redirect_uri")).toBe(`${social.platform.baseURL}/callback/google`);
    expect(params.get("scope")!.split(" ").sort()).toEqual(["email", "openid", "profile"]);

    const requestsBefore = social.tokens.requests.length;
    const end = await flow.follow(url);
    expect(end.url.href).toBe(`${social.platform.origin}/welcome`);
    // The verifier went to the token endpoint, and it is the one the challenge was made from.
    const tokenRequest = social.tokens.requests[requestsBefore]!;
    const verifier = tokenRequest.get("code_verifier")!;
    expect(verifier).toHaveLength(128);
    expect(createHash("sha256").update(verifier).digest("base64url")).toBe(params.get("code_challenge"));

    const session = await (await flow.request(`${social.platform.baseURL}/get-session`)).json();
    expect(session.user).toMatchObject({ email: account.email, emailVerified: true, name: account.name, image: account.picture });
    expect(session.session).toMatchObject({ authMethod: "social:google", secondFactor: null });
    const accounts = await (await flow.request(`${social.platform.baseURL}/list-accounts`)).json();
    expect(accounts).toEqual([expect.objectContaining({ provider: "google", accountId: account.sub, scopes: expect.arrayContaining(["openid", "email", "profile"]) })]);
  });

  it.each([
    ["a javascript: URL", "javascript:alert(document.cookie)"],
    ["an http: URL", "http://img.example/avatar.png"],
    ["an SVG data URL", "data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+"],
  ])("registers a user whose picture claim is %s without an image (the avatar dropped, the sign-in kept)", async (_kind, picture) => {
    const account = social.anAccount("avatar", { picture });
    social.idp.signInAs(account);
    const flow = social.browser();
    const end = await flow.follow((await startGoogle(flow)).url);
    expect(end.url.href).toBe(`${social.platform.origin}/welcome`);
    const session = await (await flow.request(`${social.platform.baseURL}/get-session`)).json();
    expect(session.user).toMatchObject({ email: account.email, image: null });
  });

  it("signs a returning user in to the callback URL, same user", async () => {
    const account = social.anAccount("returning");
    social.idp.signInAs(account);
    const first = social.browser();
    await first.follow((await startGoogle(first)).url);
    const firstUser = (await (await first.request(`${social.platform.baseURL}/get-session`)).json()).user;
    const again = social.browser();
    const end = await again.follow((await startGoogle(again)).url);
    expect(end.url.href).toBe(`${social.platform.origin}/dashboard`);
    expect((await (await again.request(`${social.platform.baseURL}/get-session`)).json()).user.id).toBe(firstUser.id);
  });

  it("uses a state once: replaying the callback is refused with state_not_found", async () => {
    social.idp.signInAs(social.anAccount("replay"));
    const flow = social.browser();
    const { url } = await startGoogle(flow);
    const stateCookie = [...flow.jar.cookies].find(([name]) => name.endsWith("oauth_state"))!;
    const end = await flow.follow(url);
    expect(end.url.pathname).toBe("/welcome");
    const callback = end.visited.find((visited) => visited.includes("/callback/google"))!;
    flow.jar.cookies.set(stateCookie[0], stateCookie[1]);
    const replay = await flow.request(callback);
    expect(replay.status).toBe(302);
    // Without its state the callback no longer knows the error URL: the default error page.
    expect(replay.headers.get("location")).toBe(at("/api/auth/error?error=state_not_found"));
  });

  it("refuses a state older than 10 minutes with please_restart_the_process", async () => {
    const flow = social.browser();
    const { url } = await startGoogle(flow);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 10 * 60_000 + 1_000 });
    const res = await flow.request(callbackUrl({ code: "any", state: stateOf(url), iss: social.idp.issuer }));
    expect(res.headers.get("location")).toBe(at("/oops?error=please_restart_the_process"));
  });

  it("refuses a callback in a browser that did not start the sign-in (login CSRF)", async () => {
    const flow = social.browser();
    const { url } = await startGoogle(flow);
    const victim = social.browser();
    const res = await victim.request(callbackUrl({ code: "attackers-code", state: stateOf(url), iss: social.idp.issuer }));
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get("location")!, social.platform.origin).searchParams.get("error")).toBe("please_restart_the_process");
    expect(res.headers.getSetCookie().some((c) => c.includes("session_token="))).toBe(false);
  });

  it.each([
    ["a wrong audience", { aud: "another-client" }, false],
    ["a wrong nonce", { nonce: "not-the-nonce" }, false],
    ["a signature by a key the provider does not publish", {}, true],
    ["an expired token", { exp: Math.floor(Date.now() / 1000) - 60 }, false],
  ])("refuses an id token with %s: unable_to_get_user_info, no session", async (_label, claims, foreignKey) => {
    const flow = social.browser();
    const { url } = await startGoogle(flow);
    const nonce = new URL(url).searchParams.get("nonce")!;
    social.tokens.forgedIdToken = await social.idp.forgeIdToken({ sub: "forged", email: "victim@example.com", email_verified: true, nonce, ...claims }, { foreignKey });
    const res = await flow.request(callbackUrl({ code: "any", state: stateOf(url), iss: social.idp.issuer }));
    expect(res.headers.get("location")).toBe(at("/oops?error=unable_to_get_user_info"));
    expect(res.headers.getSetCookie().some((c) => c.includes("session_token="))).toBe(false);
  });

  it("accepts a forged-looking id token only when everything checks (the stand-in itself is sound)", async () => {
    const flow = social.browser();
    const { url } = await startGoogle(flow);
    const nonce = new URL(url).searchParams.get("nonce")!;
    const account = social.anAccount("standin");
    social.tokens.forgedIdToken = await social.idp.forgeIdToken({ sub: account.sub, email: account.email, email_verified: true, name: account.name, nonce });
    const res = await flow.request(callbackUrl({ code: "any", state: stateOf(url), iss: social.idp.issuer }));
    expect(res.headers.get("location")).toBe(at("/welcome"));
  });

  it("passes the provider's error on to the error URL", async () => {
    const flow = social.browser();
    const { url } = await startGoogle(flow);
    const res = await flow.request(callbackUrl({ error: "access_denied", error_description: "The user said no", state: stateOf(url) }));
    expect(res.headers.get("location")).toBe(at("/oops?error=access_denied&error_description=The+user+said+no"));
  });

  it("answers no_code and state_not_found, and the default error page without an error URL", async () => {
    const flow = social.browser();
    const { url } = await startGoogle(flow);
    expect((await flow.request(callbackUrl({ state: stateOf(url) }))).headers.get("location")).toBe(at("/oops?error=no_code"));
    const anonymous = social.browser();
    expect((await anonymous.request(callbackUrl({ code: "x" }))).headers.get("location")).toBe(at("/api/auth/error?error=state_not_found"));
  });

  it("passes the provider's error_description on beside no_code", async () => {
    const flow = social.browser();
    const { url } = await startGoogle(flow);
    const res = await flow.request(callbackUrl({ state: stateOf(url), error_description: "The window was closed" }));
    expect(res.headers.get("location")).toBe(at("/oops?error=no_code&error_description=The+window+was+closed"));
  });

  it("answers oauth_provider_not_found for a callback naming a provider that is not configured", async () => {
    const flow = social.browser();
    const { url } = await startGoogle(flow);
    const res = await flow.request(`${social.platform.baseURL}/callback/github?${new URLSearchParams({ code: "any", state: stateOf(url) })}`);
    expect(res.headers.get("location")).toBe(at("/oops?error=oauth_provider_not_found"));
    expect(res.headers.getSetCookie().some((c) => c.includes("session_token="))).toBe(false);
  });

  it("answers please_restart_the_process when the provider refuses the code at the token exchange", async () => {
    const flow = social.browser();
    const { url } = await startGoogle(flow);
    const requestsBefore = social.tokens.requests.length;
    const res = await flow.request(callbackUrl({ code: "a-code-the-provider-never-issued", state: stateOf(url), iss: social.idp.issuer }));
    // The provider itself was asked, and refused the code.
    expect(social.tokens.requests.slice(requestsBefore).map((form) => form.get("code"))).toEqual(["a-code-the-provider-never-issued"]);
    expect(res.headers.get("location")).toBe(at("/oops?error=please_restart_the_process"));
    expect(res.headers.getSetCookie().some((c) => c.includes("session_token="))).toBe(false);
  });

  it("answers a form POST (Apple's form_post) from another site by moving it to a GET with the cookies", async () => {
    const flow = social.browser();
    const { url } = await startGoogle(flow);
    const res = await flow.request(`${social.platform.baseURL}/callback/google`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://appleid.apple.com" },
      body: new URLSearchParams({ state: stateOf(url), error: "user_cancelled_authorize" }),
    });
    expect(res.status).toBe(302);
    const next = res.headers.get("location")!;
    expect(next).toBe(callbackUrl({ state: stateOf(url), error: "user_cancelled_authorize" }));
    expect((await flow.request(next)).headers.get("location")).toBe(at("/oops?error=user_cancelled_authorize"));
  });
});
