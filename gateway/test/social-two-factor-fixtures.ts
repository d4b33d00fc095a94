/** Fixtures of the social two-factor suites: a two-factor user with Google linked, a Google sign-in, TOTP codes. */
import { expect } from "vitest";
import { base32Decode, totpCode, totpStep } from "../../services/identity/src/domain/totp.js";
import type { BrowserFlow } from "../../testing/browser-flow.js";
import type { OpenIdAccount } from "../../testing/openid-provider.js";
import { postJson, type SocialPlatform } from "../../testing/social-platform.js";

export const PASSWORD = "password-123";

export function socialTwoFactorFixtures(social: SocialPlatform) {
  const api = (path: string) => `${social.platform.baseURL}${path}`;
  /** A code of the authenticator `steps` 30-second steps from now (each code is usable once). */
  const codeFor = (totpURI: string, steps = 0) => totpCode(base32Decode(new URL(totpURI).searchParams.get("secret")!), totpStep(new Date()) + steps);
  const cookieNames = (res: { headers: Headers }) => res.headers.getSetCookie().map((c) => c.slice(0, c.indexOf("=")));
  const sessionOf = async (flow: BrowserFlow) => (await (await flow.request(api("/get-session"))).json()) as { user: { id: string; email: string } } | null;

  /** A password user with the provider account's email, two-factor on (activated by a first code) and Google linked; signed out. */
  async function twoFactorUserWithGoogle(account: OpenIdAccount) {
    const flow = social.browser();
    const signUp = await postJson(flow, api("/sign-up/email"), { name: account.name, email: account.email, password: PASSWORD });
    expect(signUp.status, JSON.stringify(signUp.body)).toBe(200);
    const enable = await postJson(flow, api("/two-factor/enable"), { password: PASSWORD });
    expect(enable.status).toBe(200);
    const totpURI = enable.body.totpURI as string;
    expect((await postJson(flow, api("/two-factor/verify-totp"), { code: codeFor(totpURI) })).status).toBe(200);
    social.idp.signInAs(account);
    const link = await postJson(flow, api("/link-social"), { provider: "google", callbackURL: "/linked" });
    expect(link.status).toBe(200);
    expect((await flow.follow(link.body.url)).url.pathname).toBe("/linked");
    expect((await postJson(flow, api("/sign-out"), {})).status).toBe(200);
    return { userId: signUp.body.user.id as string, totpURI };
  }

  /** Starts a Google sign-in in `flow` and follows it to the page it ends on. */
  async function signInWithGoogle(flow: BrowserFlow) {
    const start = await postJson(flow, api("/sign-in/social"), { provider: "google", callbackURL: "/dashboard?tab=1", errorCallbackURL: "/oops" });
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    return { end: (await flow.follow(start.body.url)).url };
  }

  return { api, codeFor, cookieNames, sessionOf, twoFactorUserWithGoogle, signInWithGoogle };
}
