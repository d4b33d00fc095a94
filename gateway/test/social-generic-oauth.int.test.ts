/**
 * Generic providers (OAUTH_GENERIC_PROVIDERS) end to end against the real OpenID provider on loopback: one
 * configured by issuer discovery (OpenID Connect: PKCE, nonce, the id token verified), one as plain OAuth 2
 * with its endpoints given by hand (the profile from user info), one changing every default (no PKCE, HTTP
 * Basic, other claims). Through plain HTTP, better-auth 1.1's genericOAuthClient (/sign-in/oauth2) and the
 * current client's signIn.social and linkSocial (1.7.25 has no genericOAuthClient); the linking rules of the
 * built-in providers (a provider that does not vouch for the address takes over nothing), /oauth2/link, a
 * forged, replayed or foreign state, a forged id token, and untrusted callback URLs.
 */
import { createHash } from "node:crypto";
import { createAuthClient as createLegacyClient } from "better-auth/client";
import { genericOAuthClient } from "better-auth/client/plugins";
import { afterEach, describe, expect, it } from "vitest";
import type { BrowserFlow } from "../../testing/browser-flow.js";
import type { OpenIdAccount } from "../../testing/openid-provider.js";
import { clientIn, GENERIC_BASIC, GENERIC_OAUTH2, GENERIC_OIDC, postJson, useSocialPlatform } from "../../testing/social-platform.js";

// A third generic provider whose issuer does not answer (nothing listens on port 1).
const social = useSocialPlatform({
  genericProviders: true,
  genericEnv: {
    OAUTH_GENERIC_PROVIDERS: `${GENERIC_OIDC.id},${GENERIC_OAUTH2.id},${GENERIC_BASIC.id},corp-down`,
    OAUTH_GENERIC_CORP_DOWN_CLIENT_ID: "id",
    OAUTH_GENERIC_CORP_DOWN_CLIENT_SECRET: "secret",
    OAUTH_GENERIC_CORP_DOWN_ISSUER: "http://127.0.0.1:1",
  },
});

const at = (path: string) => `${social.platform.origin}${path}`;
const api = (path: string) => `${social.platform.baseURL}${path}`;

afterEach(() => {
  social.tokens.forgedIdToken = undefined;
});

/** Signs the browser out of the provider, so its next login is the account the test names. */
function forgetProviderSession(flow: BrowserFlow) {
  for (const name of [...flow.jar.cookies.keys()]) if (name.startsWith("_session") || name.startsWith("_interaction")) flow.jar.cookies.delete(name);
}

async function startOAuth2(flow: BrowserFlow, providerId: string, account: OpenIdAccount, body: Record<string, unknown> = {}) {
  forgetProviderSession(flow);
  social.idp.signInAs(account);
  const res = await postJson(flow, api("/sign-in/oauth2"), { providerId, callbackURL: "/dashboard", newUserCallbackURL: "/welcome", errorCallbackURL: "/oops", ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.redirect).toBe(true);
  return res.body.url as string;
}

const sessionOf = async (flow: BrowserFlow) => (await (await flow.request(api("/get-session"))).json()) as { user: Record<string, unknown> } | null;
const accountsOf = async (flow: BrowserFlow) => (await (await flow.request(api("/list-accounts"))).json()) as Array<{ provider: string; accountId: string }>;

async function signUp(flow: BrowserFlow, email: string, verified: boolean) {
  const res = await postJson(flow, api("/sign-up/email"), { email, password: "correct horse battery", name: "Local" });
  expect(res.status).toBe(200);
  if (verified) await social.platform.services.identity.deps.store.updateUser(res.body.user.id, { emailVerified: true });
  return res.body.user as { id: string };
}

describe("a generic OpenID Connect provider (issuer discovery)", () => {
  it("registers a new user: discovery's endpoints, PKCE (S256), a nonce, its own redirect URI, the id token's profile", async () => {
    const account = social.anAccount("generic-oidc");
    const flow = social.browser();
    const url = await startOAuth2(flow, GENERIC_OIDC.id, account);
    const authorize = new URL(url);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${social.idp.issuer}/auth`);
    const params = authorize.searchParams;
    expect(params.get("client_id")).toBe(social.idp.clientId);
    expect(params.get("redirect_uri")).toBe(api(`/oauth2/callback/${GENERIC_OIDC.id}`));
    expect(params.get("code_challenge_method")).toBe("S256");
    expect(params.get("nonce")).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(params.get("scope")!.split(" ").sort()).toEqual(["email", "openid", "profile"]);

    const before = social.tokens.requests.length;
    const end = await flow.follow(url);
    expect(end.url.href).toBe(at("/welcome"));
    const verifier = social.tokens.requests[before]!.get("code_verifier")!;
    expect(createHash("sha256").update(verifier).digest("base64url")).toBe(params.get("code_challenge"));
    const signedIn = (await sessionOf(flow)) as { user: Record<string, unknown>; session: Record<string, unknown> };
    expect(signedIn.user).toMatchObject({ email: account.email, emailVerified: true, name: account.name, image: account.picture });
    expect(signedIn.session).toMatchObject({ authMethod: `social:${GENERIC_OIDC.id}` });
    expect(await accountsOf(flow)).toEqual([expect.objectContaining({ provider: GENERIC_OIDC.id, accountId: account.sub })]);
  });

  it("signs a returning user in to the callback URL, same user", async () => {
    const account = social.anAccount("generic-returning");
    const first = social.browser();
    await first.follow(await startOAuth2(first, GENERIC_OIDC.id, account));
    const again = social.browser();
    expect((await again.follow(await startOAuth2(again, GENERIC_OIDC.id, account))).url.href).toBe(at("/dashboard"));
    expect((await sessionOf(again))?.user.id).toBe((await sessionOf(first))?.user.id);
  });

  it.each([
    ["another nonce", { nonce: "not-the-nonce-we-sent" }, false],
    ["another audience", { aud: "someone-else" }, false],
    ["a key the provider does not publish", {}, true],
    ["an expired token", { exp: Math.floor(Date.now() / 1000) - 3600 }, false],
  ])("refuses an id token with %s: unable_to_get_user_info, no session", async (_kind, claims, foreignKey) => {
    const account = social.anAccount("generic-forged");
    const flow = social.browser();
    const url = await startOAuth2(flow, GENERIC_OIDC.id, account);
    const nonce = new URL(url).searchParams.get("nonce");
    social.tokens.forgedIdToken = await social.idp.forgeIdToken({ sub: account.sub, email: account.email, email_verified: true, nonce, ...claims }, { foreignKey });
    expect((await flow.follow(url)).url.href).toBe(at("/oops?error=unable_to_get_user_info"));
    expect(await sessionOf(flow)).toBeNull();
  });

  it("a state is single use: the callback replayed answers state_not_found", async () => {
    const flow = social.browser();
    const url = await startOAuth2(flow, GENERIC_OIDC.id, social.anAccount("generic-replay"));
    const stateCookie = [...flow.jar.cookies].find(([name]) => name.endsWith("oauth_state"))!;
    const end = await flow.follow(url);
    expect(end.url.href).toBe(at("/welcome"));
    const callback = end.visited.find((visited) => visited.startsWith(api(`/oauth2/callback/${GENERIC_OIDC.id}?`)));
    expect(callback).toBeDefined();
    // The browser's own state cookie put back: the state itself is gone.
    flow.jar.cookies.set(stateCookie[0], stateCookie[1]);
    const replay = await flow.request(callback!);
    expect(replay.headers.get("location")).toBe(api("/error?error=state_not_found"));
  });

  it("refuses a forged state, one from another browser, and one made for another provider", async () => {
    const flow = social.browser();
    const locationOf = async (browser: BrowserFlow, url: string) => (await browser.request(url)).headers.get("location");
    expect(await locationOf(flow, api(`/oauth2/callback/${GENERIC_OIDC.id}?state=${"x".repeat(32)}&code=c`))).toBe(api("/error?error=please_restart_the_process"));
    const url = await startOAuth2(flow, GENERIC_OIDC.id, social.anAccount("generic-csrf"));
    const state = new URL(url).searchParams.get("state")!;
    // The state cookie is this browser's: a victim's browser sent to the callback with the attacker's state.
    expect(await locationOf(social.browser(), api(`/oauth2/callback/${GENERIC_OIDC.id}?state=${state}&code=c`))).toBe(api("/error?error=please_restart_the_process"));
    // The state names the provider it was made for: another provider's callback refuses it.
    expect(await locationOf(flow, api(`/oauth2/callback/${GENERIC_OAUTH2.id}?state=${state}&code=c`))).toBe(at("/oops?error=invalid_callback_request"));
  });
});

describe("a generic plain OAuth 2 provider (endpoints given by hand)", () => {
  it("signs in through the current client's signIn.social: PKCE, no nonce, the profile from user info", async () => {
    const account = social.anAccount("generic-oauth2");
    social.idp.signInAs(account);
    const flow = social.browser();
    const client = clientIn(social, flow);
    const { data, error } = await client.signIn.social({ provider: GENERIC_OAUTH2.id, callbackURL: "/dashboard" });
    expect(error).toBeNull();
    const params = new URL(data!.url!).searchParams;
    expect(params.get("redirect_uri")).toBe(api(`/oauth2/callback/${GENERIC_OAUTH2.id}`));
    expect(params.get("code_challenge_method")).toBe("S256");
    expect(params.has("nonce")).toBe(false);
    expect((await flow.follow(data!.url!)).url.href).toBe(at("/dashboard"));
    expect((await sessionOf(flow))?.user).toMatchObject({ email: account.email, emailVerified: true, name: account.name });
    expect((await client.listAccounts()).data).toEqual([expect.objectContaining({ providerId: GENERIC_OAUTH2.id, accountId: account.sub })]);
  });

  it("honours its settings: no PKCE, HTTP Basic at the token endpoint, claims mapped, no verified claim no vouching", async () => {
    const account = social.anAccount("generic-basic");
    const flow = social.browser();
    const url = await startOAuth2(flow, GENERIC_BASIC.id, account);
    const params = new URL(url).searchParams;
    expect(params.get("client_id")).toBe(GENERIC_BASIC.clientId);
    expect(params.has("code_challenge")).toBe(false);
    expect(params.has("nonce")).toBe(false);
    const before = social.tokens.requests.length;
    expect((await flow.follow(url)).url.href).toBe(at("/welcome"));
    // The code went to the token endpoint with the client's secret in HTTP Basic, not in the form, and no verifier.
    const basic = `Basic ${Buffer.from(`${GENERIC_BASIC.clientId}:${GENERIC_BASIC.clientSecret}`).toString("base64")}`;
    expect(social.tokens.authorizations[before]).toBe(basic);
    expect(social.tokens.requests[before]!.has("client_secret")).toBe(false);
    expect(social.tokens.requests[before]!.has("code_verifier")).toBe(false);
    expect((await sessionOf(flow))?.user).toMatchObject({ email: account.email, name: account.email, emailVerified: false });
  });

  it("signs in through better-auth 1.1's genericOAuthClient (POST /sign-in/oauth2)", async () => {
    const account = social.anAccount("generic-legacy");
    social.idp.signInAs(account);
    const flow = social.browser();
    const client = createLegacyClient({
      baseURL: social.platform.baseURL,
      plugins: [genericOAuthClient()],
      fetchOptions: { customFetchImpl: (input, init) => flow.request(input instanceof Request ? input.url : String(input), init) },
    });
    const { data, error } = await client.signIn.oauth2({ providerId: GENERIC_OAUTH2.id, callbackURL: "/dashboard" });
    expect(error).toBeNull();
    expect((await flow.follow(data!.url)).url.href).toBe(at("/dashboard"));
    expect((await sessionOf(flow))?.user).toMatchObject({ email: account.email });
  });
});

describe("the linking rules hold for generic providers", () => {
  it("a provider that does not vouch for the address does not take over the account that has it: account_not_linked", async () => {
    const account = social.anAccount("generic-unvouched", { email_verified: false });
    const owner = await signUp(social.browser(), account.email, true);
    for (const providerId of [GENERIC_OIDC.id, GENERIC_OAUTH2.id]) {
      const flow = social.browser();
      expect((await flow.follow(await startOAuth2(flow, providerId, account))).url.href).toBe(at("/oops?error=account_not_linked"));
      expect(flow.jar.cookies.has("better-auth.session_token")).toBe(false);
    }
    const owners = await social.platform.services.identity.deps.store.listAccounts(owner.id);
    expect(owners.map((a) => a.providerId)).toEqual(["credential"]);
  });

  it("a provider that does not vouch for the address signs a new user up unverified", async () => {
    const account = social.anAccount("generic-no-claim", { email_verified: false });
    const flow = social.browser();
    expect((await flow.follow(await startOAuth2(flow, GENERIC_OAUTH2.id, account))).url.href).toBe(at("/welcome"));
    expect((await sessionOf(flow))?.user).toMatchObject({ email: account.email, emailVerified: false });
  });

  it("a vouched address links into the verified account that has it", async () => {
    const account = social.anAccount("generic-vouched");
    const owner = await signUp(social.browser(), account.email, true);
    const flow = social.browser();
    expect((await flow.follow(await startOAuth2(flow, GENERIC_OIDC.id, account))).url.href).toBe(at("/dashboard"));
    expect((await sessionOf(flow))?.user.id).toBe(owner.id);
  });

  it("POST /oauth2/link links the signed-in user's own address once; another address is refused", async () => {
    const account = social.anAccount("generic-link");
    const flow = social.browser();
    await signUp(flow, account.email, false);
    forgetProviderSession(flow);
    social.idp.signInAs(account);
    const link = await postJson(flow, api("/oauth2/link"), { providerId: GENERIC_OIDC.id, callbackURL: "/settings", errorCallbackURL: "/oops" }, social.platform.origin);
    expect(link.status, JSON.stringify(link.body)).toBe(200);
    expect((await flow.follow(link.body.url)).url.href).toBe(at("/settings"));
    expect((await accountsOf(flow)).map((a) => a.provider).sort()).toEqual(["corp-sso", "credential"]);

    const again = await postJson(flow, api("/oauth2/link"), { providerId: GENERIC_OIDC.id, callbackURL: "/settings" }, social.platform.origin);
    expect(again).toMatchObject({ status: 400, body: { code: "SOCIAL_ACCOUNT_ALREADY_LINKED" } });

    forgetProviderSession(flow);
    social.idp.signInAs(social.anAccount("generic-link-other"));
    const other = await postJson(flow, api("/oauth2/link"), { providerId: GENERIC_OAUTH2.id, callbackURL: "/settings", errorCallbackURL: "/oops" }, social.platform.origin);
    expect((await flow.follow(other.body.url)).url.href).toBe(at("/oops?error=email_doesn%27t_match"));
  });

  it("the current client's linkSocial links a generic provider as a built-in one", async () => {
    const account = social.anAccount("generic-link-social");
    const flow = social.browser();
    await signUp(flow, account.email, false);
    forgetProviderSession(flow);
    social.idp.signInAs(account);
    const client = clientIn(social, flow);
    const { data, error } = await client.linkSocial({ provider: GENERIC_OAUTH2.id, callbackURL: "/settings" });
    expect(error).toBeNull();
    expect(new URL(data!.url).searchParams.get("redirect_uri")).toBe(api(`/oauth2/callback/${GENERIC_OAUTH2.id}`));
    expect((await flow.follow(data!.url)).url.href).toBe(at("/settings"));
    expect((await accountsOf(flow)).map((a) => a.provider).sort()).toEqual(["corp-oauth", "credential"]);
  });

  it("POST /oauth2/link needs a session", async () => {
    const res = await postJson(social.browser(), api("/oauth2/link"), { providerId: GENERIC_OIDC.id, callbackURL: "/settings" });
    expect(res.status).toBe(401);
  });
});

describe("starting a generic sign-in", () => {
  it.each([
    ["callbackURL", "https://evil.example/steal", "INVALID_CALLBACKURL"],
    ["errorCallbackURL", "//evil.example/", "INVALID_ERRORCALLBACKURL"],
    ["newUserCallbackURL", "javascript:alert(1)", "INVALID_NEWUSERCALLBACKURL"],
  ])("refuses an untrusted %s: 403, no state", async (field, value, code) => {
    const flow = social.browser();
    const res = await postJson(flow, api("/sign-in/oauth2"), { providerId: GENERIC_OIDC.id, callbackURL: "/dashboard", [field]: value });
    expect(res).toMatchObject({ status: 403, body: { code } });
  });

  it("refuses a provider that is not configured: 404 PROVIDER_NOT_FOUND; a body without providerId: 400", async () => {
    expect(await postJson(social.browser(), api("/sign-in/oauth2"), { providerId: "nope" })).toMatchObject({ status: 404, body: { code: "PROVIDER_NOT_FOUND" } });
    expect(await postJson(social.browser(), api("/sign-in/oauth2"), { provider: GENERIC_OIDC.id })).toMatchObject({ status: 400, body: { code: "VALIDATION_ERROR" } });
  });

  it("answers 503 INVALID_OAUTH_CONFIGURATION when the provider's discovery fails", async () => {
    expect(await postJson(social.browser(), api("/sign-in/oauth2"), { providerId: "corp-down", callbackURL: "/dashboard" })).toMatchObject({
      status: 503,
      body: { code: "INVALID_OAUTH_CONFIGURATION", message: "Invalid OAuth configuration" },
    });
  });

  it("GET /social-providers lists the generic providers with their display names", async () => {
    const res = await fetch(api("/social-providers"));
    expect(await res.json()).toEqual({
      providers: ["google", GENERIC_OIDC.id, GENERIC_OAUTH2.id, GENERIC_BASIC.id, "corp-down"],
      names: { [GENERIC_OIDC.id]: GENERIC_OIDC.name, [GENERIC_OAUTH2.id]: GENERIC_OAUTH2.name, [GENERIC_BASIC.id]: GENERIC_BASIC.name, "corp-down": "corp-down" },
    });
  });
});
