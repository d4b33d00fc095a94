/**
 * Social sign-in as an attacker would try it, against a real OpenID provider (oidc-provider) and the real
 * services: an authorization code injected into another browser's flow (PKCE), id tokens signed with the
 * client secret or by another issuer, a provider address that only lower-cases into someone else's, names,
 * ids and addresses longer than the columns that keep them, and racing unlinks that would leave a user no
 * way to sign in.
 */
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import type { BrowserFlow } from "../../testing/browser-flow.js";
import type { OpenIdAccount } from "../../testing/openid-provider.js";
import { postJson, useSocialPlatform } from "../../testing/social-platform.js";

const social = useSocialPlatform();
const at = (path: string) => `${social.platform.origin}${path}`;
const PASSWORD = "correct horse battery";

/** Signs the browser out of the provider, so its next login is the account the test names. */
function forgetProviderSession(flow: BrowserFlow) {
  for (const name of [...flow.jar.cookies.keys()]) if (name.startsWith("_session") || name.startsWith("_interaction")) flow.jar.cookies.delete(name);
}

async function startGoogle(flow: BrowserFlow, path = "/sign-in/social") {
  const res = await postJson(flow, `${social.platform.baseURL}${path}`, { provider: "google", callbackURL: "/dashboard", errorCallbackURL: "/oops" }, social.platform.origin);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.url as string;
}

async function googleSignIn(flow: BrowserFlow, account: OpenIdAccount) {
  forgetProviderSession(flow);
  social.idp.signInAs(account);
  return (await flow.follow(await startGoogle(flow))).url.href;
}

async function signUp(flow: BrowserFlow, email: string) {
  const res = await postJson(flow, `${social.platform.baseURL}/sign-up/email`, { email, password: PASSWORD, name: "Local" });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.user as { id: string; email: string };
}

const sessionUser = async (flow: BrowserFlow) => (await (await flow.request(`${social.platform.baseURL}/get-session`)).json())?.user ?? null;

describe("the provider's address is checked as the provider sent it", () => {
  it("an address that only lower-cases into a verified user's (KELVIN SIGN for k) never signs in as that user", async () => {
    const victim = social.anAccount("kelvin");
    const local = social.browser();
    const user = await signUp(local, victim.email);
    await social.platform.services.identity.deps.store.updateUser(user.id, { emailVerified: true });
    // The attacker's own provider account, "verified" by the provider, at an address that is not the victim's
    // but becomes it once lower-cased ("\u212A".toLowerCase() === "k").
    const lookAlike = victim.email.replace(/^k/, "\u212A");
    expect(lookAlike).not.toBe(victim.email);
    expect(lookAlike.toLowerCase()).toBe(victim.email);
    const attacker = social.browser();
    const landed = await googleSignIn(attacker, social.anAccount("attacker", { email: lookAlike, email_verified: true }));
    expect(landed).toBe(at("/oops?error=email_not_found"));
    expect(await sessionUser(attacker)).toBeNull();
    const accounts = await social.platform.services.identity.deps.store.listAccounts(user.id);
    expect(accounts.map((a) => a.providerId)).toEqual(["credential"]);
  });

  it("the same look-alike in an id token the client sends is refused: 400 User email not found, no session", async () => {
    const victim = social.anAccount("kelvin-token");
    const user = await signUp(social.browser(), victim.email);
    await social.platform.services.identity.deps.store.updateUser(user.id, { emailVerified: true });
    const token = await social.idp.forgeIdToken({ sub: `attacker-${victim.sub}`, email: victim.email.replace(/^k/, "\u212A"), email_verified: true, name: "Mallory" });
    const attacker = social.browser();
    const res = await postJson(attacker, `${social.platform.baseURL}/sign-in/social`, { provider: "google", idToken: { token } });
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { code: "USER_EMAIL_NOT_FOUND", message: "User email not found" } });
    expect(await sessionUser(attacker)).toBeNull();
  });

  it("linking a provider account at the look-alike of the user's own address is refused: email_doesn't_match", async () => {
    const mine = social.anAccount("kelvin-link");
    const flow = social.browser();
    await signUp(flow, mine.email);
    forgetProviderSession(flow);
    social.idp.signInAs(social.anAccount("kelvin-link-provider", { email: mine.email.replace(/^k/, "\u212A") }));
    expect((await flow.follow(await startGoogle(flow, "/link-social"))).url.href).toBe(at("/oops?error=email_doesn%27t_match"));
    const accounts = (await (await flow.request(`${social.platform.baseURL}/list-accounts`)).json()) as Array<{ provider: string }>;
    expect(accounts.map((a) => a.provider)).toEqual(["credential"]);
  });
});

describe("a provider's answer is bounded like any input", () => {
  const signInWithToken = async (claims: Record<string, unknown>) => {
    const token = await social.idp.forgeIdToken({
      sub: `long-${Date.now()}-${Math.random()}`,
      email: `long-${Date.now().toString(36)}-${Math.round(Math.random() * 1e6)}@example.com`,
      email_verified: true,
      ...claims,
    });
    const flow = social.browser();
    const res = await postJson(flow, `${social.platform.baseURL}/sign-in/social`, { provider: "google", idToken: { token } });
    return { res, flow };
  };

  it("an over-long name is kept cut to 255 characters, through the callback and an id token", async () => {
    const name = "N".repeat(254) + "\u{1F600}".repeat(10);
    const flow = social.browser();
    expect(await googleSignIn(flow, social.anAccount("long-name", { name }))).toBe(at("/dashboard"));
    expect(Array.from((await sessionUser(flow)).name as string)).toHaveLength(255);
    const { res } = await signInWithToken({ name });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.user.name).toBe(`${"N".repeat(254)}\u{1F600}`);
  });

  it("an over-long user id or address is refused (unable_to_get_user_info, email_not_found; 400 by id token), never a 500, nothing stored", async () => {
    const longSub = social.anAccount("long-sub", { sub: "s".repeat(300) });
    const bySub = social.browser();
    expect(await googleSignIn(bySub, longSub)).toBe(at("/oops?error=unable_to_get_user_info"));
    const longEmail = social.anAccount("long-email", { email: `${"e".repeat(250)}@example.com` });
    const byEmail = social.browser();
    expect(await googleSignIn(byEmail, longEmail)).toBe(at("/oops?error=email_not_found"));
    for (const flow of [bySub, byEmail]) expect(await sessionUser(flow)).toBeNull();
    expect(await social.platform.services.identity.deps.store.findUserByEmail(longSub.email)).toBeNull();
    expect(await social.platform.services.identity.deps.store.findUserByEmail(longEmail.email)).toBeNull();

    expect((await signInWithToken({ sub: "s".repeat(300) })).res.body).toEqual({ code: "INVALID_TOKEN", message: "invalid token" });
    expect((await signInWithToken({ email: `${"e".repeat(250)}@example.com` })).res.body).toEqual({ code: "USER_EMAIL_NOT_FOUND", message: "User email not found" });
  });
});

describe("attacks on the callback that the platform resists", () => {
  it("an authorization code from the attacker's own flow, injected with the victim's state, is refused (PKCE)", async () => {
    // The attacker completes a flow at the provider and stops before the callback: the code is theirs.
    const attacker = social.browser();
    forgetProviderSession(attacker);
    social.idp.signInAs(social.anAccount("injector"));
    const attackerStart = await startGoogle(attacker);
    let callback = "";
    let url = attackerStart;
    for (let i = 0; i < 10 && !callback; i++) {
      const res = await attacker.request(url);
      await res.arrayBuffer();
      const next = new URL(res.headers.get("location")!, url).href;
      if (next.startsWith(`${social.platform.baseURL}/callback/`)) callback = next;
      url = next;
    }
    const code = new URL(callback).searchParams.get("code")!;
    expect(code).toBeTruthy();
    // The victim's browser starts its own sign-in; the attacker's code is put in the victim's callback.
    const victim = social.browser();
    const state = new URL(await startGoogle(victim)).searchParams.get("state")!;
    const res = await victim.request(`${social.platform.baseURL}/callback/google?${new URLSearchParams({ code, state, iss: social.idp.issuer })}`);
    // The provider refuses the code at the token exchange: the victim's verifier is not the one it was issued for.
    expect(res.headers.get("location")).toBe(at("/oops?error=please_restart_the_process"));
    expect(await sessionUser(victim)).toBeNull();
  });

  it("an id token signed with the client secret (HS256) or by another issuer is refused: 400 invalid token", async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: "forged-sub", email: "forged@example.com", email_verified: true, aud: social.idp.clientId, iat: now, exp: now + 600 };
    const hs256 = await new SignJWT({ ...claims, iss: social.idp.issuer }).setProtectedHeader({ alg: "HS256" }).sign(new TextEncoder().encode(social.idp.clientSecret));
    const otherIssuer = await social.idp.forgeIdToken({ ...claims, iss: "https://accounts.evil.example" });
    for (const token of [hs256, otherIssuer]) {
      const res = await postJson(social.browser(), `${social.platform.baseURL}/sign-in/social`, { provider: "google", idToken: { token } });
      expect(res.body).toEqual({ code: "INVALID_TOKEN", message: "invalid token" });
    }
  });

  it("a provider error that is not a plain code is passed on as invalid_callback_request, and its description is bounded", async () => {
    const flow = social.browser();
    const state = new URL(await startGoogle(flow)).searchParams.get("state")!;
    const res = await flow.request(
      `${social.platform.baseURL}/callback/google?${new URLSearchParams({ state, error: "<script>x</script>", error_description: "d".repeat(2000) })}`,
    );
    const location = new URL(res.headers.get("location")!);
    expect(location.searchParams.get("error")).toBe("invalid_callback_request");
    expect(location.searchParams.get("error_description")!.length).toBeLessThanOrEqual(500);
  });
});

describe("unlinking never leaves a user without an account", () => {
  // Both used to read two accounts and delete one each (always on PostgreSQL; SQLite rarely interleaves them).
  it("two concurrent unlinks of a user's two accounts remove one at most", async () => {
    for (let round = 0; round < 5; round++) {
      const account = social.anAccount("race");
      const flow = social.browser();
      await signUp(flow, account.email);
      forgetProviderSession(flow);
      social.idp.signInAs(account);
      expect((await flow.follow(await startGoogle(flow, "/link-social"))).url.href).toBe(at("/dashboard"));
      const unlink = (providerId: string) => postJson(flow, `${social.platform.baseURL}/unlink-account`, { providerId }, social.platform.origin);
      const answers = await Promise.all([unlink("credential"), unlink("google")]);
      const accounts = (await (await flow.request(`${social.platform.baseURL}/list-accounts`)).json()) as unknown[];
      expect(accounts.length, JSON.stringify(answers.map((a) => a.body))).toBe(1);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    }
  });
});
