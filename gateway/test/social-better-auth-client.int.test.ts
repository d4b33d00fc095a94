/**
 * The better-auth client's social calls (1.1 and the current generation) against the gateway, with a real
 * OpenID provider behind Google: signIn.social answers the provider URL the browser then follows,
 * signIn.social with an id token signs in at once, linkSocial links to the signed-in user (and refuses a
 * provider already linked at once), and an unconfigured provider is a 404 'Provider not found'.
 */
import { describe, expect, it } from "vitest";
import { CLIENT_GENERATIONS } from "../../testing/better-auth-clients.js";
import type { BrowserFlow } from "../../testing/browser-flow.js";
import { useSocialPlatform } from "../../testing/social-platform.js";

const social = useSocialPlatform();

/** A client whose requests go through the flow's cookie jar, as a page's fetch shares the browser's cookies. */
function clientIn(generation: (typeof CLIENT_GENERATIONS)[number], flow: BrowserFlow) {
  return generation.make(social.platform.baseURL, (input, init) => flow.request(input instanceof Request ? input.url : String(input), init));
}

describe.each(CLIENT_GENERATIONS)("better-auth client $version: social sign-in", (generation) => {
  it("signIn.social answers the provider URL; following it signs the user in", async () => {
    const account = social.anAccount(`client-${generation.version}`);
    social.idp.signInAs(account);
    const flow = social.browser();
    const client = clientIn(generation, flow);
    const { data, error } = await client.signIn.social({ provider: "google", callbackURL: "/dashboard", newUserCallbackURL: "/welcome" });
    expect(error).toBeNull();
    expect(data).toMatchObject({ redirect: true, url: expect.stringContaining(social.idp.issuer) });
    const end = await flow.follow((data as { url: string }).url);
    expect(end.url.href).toBe(`${social.platform.origin}/welcome`);
    const session = await client.getSession();
    expect(session.data?.user).toMatchObject({ email: account.email, emailVerified: true });
    const accounts = await client.listAccounts();
    expect(accounts.data?.map((a) => a.providerId ?? (a as { provider?: string }).provider)).toEqual(["google"]);
  });

  it("signIn.social with a Google id token signs in directly", async () => {
    const account = social.anAccount(`idtoken-${generation.version}`);
    const token = await social.idp.forgeIdToken({ sub: account.sub, email: account.email, email_verified: true, name: account.name });
    const flow = social.browser();
    const client = clientIn(generation, flow);
    const { data, error } = await client.signIn.social({ provider: "google", idToken: { token } });
    expect(error).toBeNull();
    expect(data).toMatchObject({ redirect: false, token: expect.any(String), user: { email: account.email } });
    expect((await client.getSession()).data?.user.email).toBe(account.email);
  });

  it("signIn.social with an id token for another audience is refused: 400 invalid token", async () => {
    const token = await social.idp.forgeIdToken({ sub: "x", email: "x@example.com", email_verified: true, aud: "someone-else" });
    const { error } = await clientIn(generation, social.browser()).signIn.social({ provider: "google", idToken: { token } });
    expect(error).toMatchObject({ status: 400, code: "INVALID_TOKEN" });
  });

  it("an unconfigured provider is a 404 'Provider not found'", async () => {
    const { data, error } = await clientIn(generation, social.browser()).signIn.social({ provider: "github", callbackURL: "/dashboard" });
    expect(data).toBeNull();
    expect(error).toMatchObject({ status: 404, code: "PROVIDER_NOT_FOUND", message: "Provider not found" });
  });

  it("linkSocial links the provider account to the signed-in user", async () => {
    const flow = social.browser();
    const client = clientIn(generation, flow);
    const email = social.anAccount("local").email;
    const signedUp = await client.signUp.email({ email, password: "correct horse battery", name: "Local" });
    expect(signedUp.error).toBeNull();
    social.idp.signInAs(social.anAccount(`link-${generation.version}`, { email }));
    const { data, error } = await client.linkSocial({ provider: "google", callbackURL: "/settings" });
    expect(error).toBeNull();
    expect(data).toMatchObject({ redirect: true, url: expect.stringContaining(social.idp.issuer) });
    expect((await flow.follow((data as { url: string }).url)).url.href).toBe(`${social.platform.origin}/settings`);
    const accounts = await client.listAccounts();
    expect(accounts.data?.map((a) => a.providerId ?? (a as { provider?: string }).provider).sort()).toEqual(["credential", "google"]);
    // Linking it again is refused at once, with no provider URL: the 1.1 server's answer.
    const again = await client.linkSocial({ provider: "google", callbackURL: "/settings" });
    expect(again.data).toBeNull();
    expect(again.error).toMatchObject({ status: 400, code: "SOCIAL_ACCOUNT_ALREADY_LINKED", message: "Social account already linked" });
  });
});
