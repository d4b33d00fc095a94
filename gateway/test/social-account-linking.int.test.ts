/**
 * The linking rules (docs/http-api/social.md#linking-rules) end to end (real OpenID provider, real services): an existing user with
 * the provider's email is linked only when that user's address is verified and the provider vouches for it
 * (or is trusted); never into an unverified local account (pre-registration takeover), trusted provider or
 * not; /link-social links to the signed-in user only, never an account another user holds, never a provider
 * twice.
 */
import { describe, expect, it } from "vitest";
import type { BrowserFlow } from "../../testing/browser-flow.js";
import { eventually } from "../../testing/eventually.js";
import { postJson, type SocialPlatform, useSocialPlatform } from "../../testing/social-platform.js";
import type { OpenIdAccount } from "../../testing/openid-provider.js";

const social = useSocialPlatform();
// The helpers work on the file's platform unless given another (the trusted-provider suite's).
const at = (path: string, on: SocialPlatform = social) => `${on.platform.origin}${path}`;

async function signUp(flow: BrowserFlow, email: string, on: SocialPlatform = social) {
  const res = await postJson(flow, `${on.platform.baseURL}/sign-up/email`, { email, password: "correct horse battery", name: "Local" });
  expect(res.status).toBe(200);
  return res.body.user as { id: string };
}

async function verify(userId: string, on: SocialPlatform = social) {
  await on.platform.services.identity.deps.store.updateUser(userId, { emailVerified: true });
}

async function googleSignIn(flow: BrowserFlow, account: OpenIdAccount, on: SocialPlatform = social) {
  forgetProviderSession(flow);
  on.idp.signInAs(account);
  const res = await postJson(flow, `${on.platform.baseURL}/sign-in/social`, { provider: "google", callbackURL: "/dashboard", errorCallbackURL: "/oops" });
  expect(res.status).toBe(200);
  return (await flow.follow(res.body.url)).url.href;
}

async function linkGoogle(flow: BrowserFlow, account: OpenIdAccount) {
  forgetProviderSession(flow);
  social.idp.signInAs(account);
  const res = await postJson(flow, `${social.platform.baseURL}/link-social`, { provider: "google", callbackURL: "/settings", errorCallbackURL: "/oops" }, social.platform.origin);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.redirect).toBe(true);
  return (await flow.follow(res.body.url)).url.href;
}

/** Signs the browser out of the provider, so its next login is the account the test names. */
function forgetProviderSession(flow: BrowserFlow) {
  for (const name of [...flow.jar.cookies.keys()]) if (name.startsWith("_session") || name.startsWith("_interaction")) flow.jar.cookies.delete(name);
}

const providersOf = async (flow: BrowserFlow, on: SocialPlatform = social) =>
  ((await (await flow.request(`${on.platform.baseURL}/list-accounts`)).json()) as Array<{ provider: string }>).map((a) => a.provider);

describe("linking at social sign-in", () => {
  it("links into a verified local account when the provider verified the same email", async () => {
    const account = social.anAccount("verified");
    const local = social.browser();
    const user = await signUp(local, account.email);
    await verify(user.id);
    const flow = social.browser();
    expect(await googleSignIn(flow, account)).toBe(at("/dashboard"));
    const session = await (await flow.request(`${social.platform.baseURL}/get-session`)).json();
    expect(session.user.id).toBe(user.id);
    expect((await providersOf(flow)).sort()).toEqual(["credential", "google"]);
  });

  it("refuses when the provider does not vouch for the email: account_not_linked", async () => {
    const account = social.anAccount("unvouched", { email_verified: false });
    const user = await signUp(social.browser(), account.email);
    await verify(user.id);
    const flow = social.browser();
    expect(await googleSignIn(flow, account)).toBe(at("/oops?error=account_not_linked"));
    expect(flow.jar.cookies.has("better-auth.session_token")).toBe(false);
  });

  it("never links into an unverified local account (pre-registration takeover): account_not_linked, the squatter's account untouched", async () => {
    const victim = social.anAccount("takeover");
    // The attacker registers the victim's address first, with a password of their own, and never verifies it.
    const attacker = social.browser();
    const squatter = await signUp(attacker, victim.email);
    const flow = social.browser();
    expect(await googleSignIn(flow, victim)).toBe(at("/oops?error=account_not_linked"));
    expect(flow.jar.cookies.has("better-auth.session_token")).toBe(false);
    // The attacker's session sees no provider account appear on "their" user.
    expect(await providersOf(attacker)).toEqual(["credential"]);
    const accounts = await social.platform.services.identity.deps.store.listAccounts(squatter.id);
    expect(accounts.map((a) => a.providerId)).toEqual(["credential"]);
  });
});

describe("linking at social sign-in with the provider trusted (OAUTH_TRUSTED_PROVIDERS)", () => {
  const trusted = useSocialPlatform({ env: { OAUTH_TRUSTED_PROVIDERS: "google" } });

  it("links into a verified local account even when the provider does not vouch for the email", async () => {
    const account = trusted.anAccount("trusted", { email_verified: false });
    const user = await signUp(trusted.browser(), account.email, trusted);
    await verify(user.id, trusted);
    const flow = trusted.browser();
    expect(await googleSignIn(flow, account, trusted)).toBe(at("/dashboard", trusted));
    expect((await providersOf(flow, trusted)).sort()).toEqual(["credential", "google"]);
  });

  it("still never links into an unverified local account: account_not_linked, the squatter's account untouched", async () => {
    // The victim's provider vouches for the address and is trusted; the squatter registered it first.
    const victim = trusted.anAccount("trusted-takeover");
    const attacker = trusted.browser();
    const squatter = await signUp(attacker, victim.email, trusted);
    const flow = trusted.browser();
    expect(await googleSignIn(flow, victim, trusted)).toBe(at("/oops?error=account_not_linked", trusted));
    expect(flow.jar.cookies.has("better-auth.session_token")).toBe(false);
    expect(await providersOf(attacker, trusted)).toEqual(["credential"]);
    const { store } = trusted.platform.services.identity.deps;
    expect((await store.listAccounts(squatter.id)).map((a) => a.providerId)).toEqual(["credential"]);
    // The provider's word verifies nothing either: the owner recovers the address by a reset (docs/adr/0014-reset-of-an-unverified-account.md).
    expect((await store.findUserById(squatter.id))!.emailVerified).toBe(false);
    expect((await postJson(trusted.browser(), `${trusted.platform.baseURL}/sign-in/email`, { email: victim.email, password: "correct horse battery" })).status).toBe(200);
  });
});

describe("POST /link-social", () => {
  it("links the provider account to the signed-in user and lists it with its scopes", async () => {
    const account = social.anAccount("link");
    const flow = social.browser();
    await signUp(flow, account.email);
    expect(await linkGoogle(flow, account)).toBe(at("/settings"));
    const accounts = (await (await flow.request(`${social.platform.baseURL}/list-accounts`)).json()) as Array<{ provider: string; scopes: string[] }>;
    expect(accounts.find((a) => a.provider === "google")?.scopes.sort()).toEqual(["email", "openid", "profile"]);
  });

  it("refuses a provider account linked to another user, and a second account of the same provider", async () => {
    const account = social.anAccount("owned");
    await googleSignIn(social.browser(), account);
    const other = social.browser();
    await signUp(other, account.email.replace("@", "+other@"));
    // Same provider account, another user (and another email): refused either way.
    const sameEmail = { ...account, email: account.email.replace("@", "+other@") };
    expect(await linkGoogle(other, sameEmail)).toBe(at("/oops?error=unable_to_link_account"));
    const fresh = social.anAccount("second", { email: sameEmail.email });
    expect(await linkGoogle(other, fresh)).toBe(at("/settings"));
    // A second Google account is refused when the link starts (below); asking for more scopes gets to the
    // callback, where another account of the provider is refused all the same.
    const third = social.anAccount("third", { email: sameEmail.email });
    forgetProviderSession(other);
    social.idp.signInAs(third);
    const widening = await postJson(
      other,
      `${social.platform.baseURL}/link-social`,
      { provider: "google", callbackURL: "/settings", errorCallbackURL: "/oops", scopes: ["offline_access"] },
      social.platform.origin,
    );
    expect(widening.status).toBe(200);
    expect((await other.follow(widening.body.url)).url.href).toBe(at("/oops?error=unable_to_link_account"));
    expect((await providersOf(other)).sort()).toEqual(["credential", "google"]);
  });

  it("refuses a provider the user already has at once: 400 SOCIAL_ACCOUNT_ALREADY_LINKED, before any redirect to the provider", async () => {
    const account = social.anAccount("twice");
    const flow = social.browser();
    await signUp(flow, account.email);
    expect(await linkGoogle(flow, account)).toBe(at("/settings"));
    const authorizationsBefore = social.idp.authorizations.length;
    const again = await postJson(
      flow,
      `${social.platform.baseURL}/link-social`,
      { provider: "google", callbackURL: "/settings", errorCallbackURL: "/oops" },
      social.platform.origin,
    );
    expect({ status: again.status, body: again.body }).toEqual({ status: 400, body: { code: "SOCIAL_ACCOUNT_ALREADY_LINKED", message: "Social account already linked" } });
    // No provider URL, no sign-in state bound to the browser, nothing asked of the provider.
    expect(again.headers.getSetCookie()).toEqual([]);
    expect(social.idp.authorizations.length).toBe(authorizationsBefore);
    expect((await providersOf(flow)).sort()).toEqual(["credential", "google"]);
  });

  it("lets a user with the provider linked ask for more scopes: the same account gets the new grant", async () => {
    const account = social.anAccount("widen");
    const flow = social.browser();
    await signUp(flow, account.email);
    expect(await linkGoogle(flow, account)).toBe(at("/settings"));
    const accessToken = async () =>
      (await postJson(flow, `${social.platform.baseURL}/get-access-token`, { providerId: "google" }, social.platform.origin)).body.accessToken as string;
    const googleAccounts = async () =>
      ((await (await flow.request(`${social.platform.baseURL}/list-accounts`)).json()) as Array<{ id: string; provider: string }>).filter((a) => a.provider === "google");
    const before = await googleAccounts();
    const firstToken = await accessToken();
    forgetProviderSession(flow);
    social.idp.signInAs(account);
    const res = await postJson(
      flow,
      `${social.platform.baseURL}/link-social`,
      { provider: "google", callbackURL: "/settings", scopes: ["offline_access"] },
      social.platform.origin,
    );
    expect(res.status).toBe(200);
    expect(new URL(res.body.url).searchParams.get("scope")!.split(" ")).toContain("offline_access");
    expect((await flow.follow(res.body.url)).url.href).toBe(at("/settings"));
    expect((await googleAccounts()).map((a) => a.id)).toEqual(before.map((a) => a.id));
    expect(await accessToken()).not.toBe(firstToken);
  });

  it("refuses a provider account whose email is not the user's: email_doesn't_match", async () => {
    const flow = social.browser();
    await signUp(flow, social.anAccount("mine").email);
    expect(await linkGoogle(flow, social.anAccount("someone-else"))).toBe(at("/oops?error=email_doesn%27t_match"));
  });

  it("needs a session: 401", async () => {
    const res = await postJson(social.browser(), `${social.platform.baseURL}/link-social`, { provider: "google", callbackURL: "/settings" });
    expect(res.status).toBe(401);
  });
});

describe("a password for an account made through a provider", () => {
  /** The newest mail to `to` in the development outbox (no SMTP_URL here), once it holds a reset link. */
  async function resetLinkFor(to: string): Promise<string> {
    return eventually(async () => {
      const res = await fetch(`${social.platform.baseURL}/dev/outbox?to=${encodeURIComponent(to)}`);
      const { messages } = (await res.json()) as { messages: { links: string[] }[] };
      const link = messages.flatMap((m) => m.links).find((url) => url.includes("/reset-password/"));
      if (!link) throw new Error(`no reset mail to ${to}`);
      return link;
    });
  }

  it("the mailed reset link creates the credential account: the person then signs in with email and password too", async () => {
    const account = social.anAccount("set-password");
    const flow = social.browser();
    expect(await googleSignIn(flow, account)).toBe(at("/dashboard"));
    expect(await providersOf(flow)).toEqual(["google"]);
    // No password yet: email sign-in fails like any wrong password.
    expect((await postJson(social.browser(), `${social.platform.baseURL}/sign-in/email`, { email: account.email, password: "my-new-password-1" })).status).toBe(401);

    const asked = await postJson(flow, `${social.platform.baseURL}/request-password-reset`, { email: account.email, redirectTo: "/reset-password" }, social.platform.origin);
    expect(asked.status).toBe(200);
    const landing = await flow.follow(await resetLinkFor(account.email));
    expect(landing.url.pathname).toBe("/reset-password");
    const token = landing.url.searchParams.get("token")!;
    expect((await postJson(social.browser(), `${social.platform.baseURL}/reset-password`, { token, newPassword: "my-new-password-1" })).status).toBe(200);

    const signedIn = social.browser();
    const res = await postJson(signedIn, `${social.platform.baseURL}/sign-in/email`, { email: account.email, password: "my-new-password-1" });
    expect(res.status).toBe(200);
    expect((await providersOf(signedIn)).sort()).toEqual(["credential", "google"]);
    // The reset ended the provider session it was asked from (as every reset does).
    expect(await (await flow.request(`${social.platform.baseURL}/get-session`)).json()).toBeNull();
  });
});
