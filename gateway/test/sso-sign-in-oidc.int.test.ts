/**
 * Single sign-on through an organization's OpenID Connect provider, end to end on the whole platform against
 * a real OpenID provider on loopback (oidc-provider): registration by an organization owner, POST
 * /sign-in/sso by provider id and by a verified email domain (through the 1.7 SSO client and plain fetch),
 * the callback, the membership with the provider's default role, a session that says "sso"; and the
 * attacks: a replayed state, a wrong nonce, an id token for another client, an unverified domain, a
 * disabled provider (docs/http-api/sso.md#sign-in).
 */
import { ssoAuthClient } from "@auth-platform/test-clients/sso";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { startDnsServer } from "../../testing/dns-server.js";
import type { BrowserFlow } from "../../testing/browser-flow.js";
import { postJson, useSocialPlatform } from "../../testing/social-platform.js";

const TRUSTED = "corp-a.example";
const dns = await startDnsServer();
const social = useSocialPlatform({
  ssoProviderIds: ["corp-a", "corp-b", "corp-off", "corp-mallory"],
  serviceEnv: { sso: { SSO_TRUSTED_DOMAINS: TRUSTED, SSO_DNS_SERVERS: dns.servers.join(",") } },
});
afterAll(() => dns.stop());

afterEach(() => {
  social.tokens.forgedIdToken = undefined;
});

let n = 0;
/** An owner signed up by email, with an organization; answers the owner's browser and the organization. */
async function anOrganization() {
  const owner = social.browser();
  n += 1;
  const email = `owner-${Date.now().toString(36)}-${n}@owner.example`;
  const signUp = await postJson(owner, `${social.platform.baseURL}/sign-up/email`, { name: "Owner", email, password: "password-123" });
  expect(signUp.status, JSON.stringify(signUp.body)).toBe(200);
  const slug = `sso-${Date.now().toString(36)}-${n}`;
  const org = await postJson(owner, `${social.platform.baseURL}/organization/create`, { name: `Org ${slug}`, slug });
  expect(org.status, JSON.stringify(org.body)).toBe(200);
  return { owner, organization: org.body as { id: string; slug: string } };
}

async function registerProvider(owner: BrowserFlow, organizationId: string, providerId: string, domain: string, extra: Record<string, unknown> = {}) {
  const res = await postJson(owner, `${social.platform.baseURL}/sso/register`, {
    providerId,
    issuer: social.idp.issuer,
    domain,
    organizationId,
    oidcConfig: { clientId: social.idp.clientId, clientSecret: social.idp.clientSecret, tokenEndpoint: social.tokens.url, pkce: true },
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const at = (path: string) => `${social.platform.origin}${path}`;

describe(`single sign-on with an OpenID provider (${backendLabel()})`, () => {
  let org: Awaited<ReturnType<typeof anOrganization>>;

  it("an owner registers a provider; a new user signs in through it by provider id: member, new-user URL, authMethod sso", async () => {
    org = await anOrganization();
    await registerProvider(org.owner, org.organization.id, "corp-a", TRUSTED);
    const account = social.anAccount("sso-new", { email: `new-${Date.now().toString(36)}@${TRUSTED}` });
    social.idp.signInAs(account);
    const flow = social.browser();
    const started = await postJson(flow, `${social.platform.baseURL}/sign-in/sso`, { providerId: "corp-a", callbackURL: "/dashboard", newUserCallbackURL: "/welcome" });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body.redirect).toBe(true);
    const params = new URL(started.body.url).searchParams;
    expect(new URL(started.body.url).origin).toBe(social.idp.issuer);
    expect(params.get("state")).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(params.get("nonce")).toBeTruthy();
    expect(params.get("code_challenge_method")).toBe("S256");
    expect(params.get("redirect_uri")).toBe(`${social.platform.baseURL}/sso/callback/corp-a`);

    const end = await flow.follow(started.body.url);
    expect(end.url.href).toBe(at("/welcome"));
    const session = await (await flow.request(`${social.platform.baseURL}/get-session`)).json();
    expect(session.user).toMatchObject({ email: account.email, emailVerified: true });
    expect(session.session).toMatchObject({ authMethod: "sso" });
    const orgs = await (await flow.request(`${social.platform.baseURL}/organization/list`)).json();
    expect(orgs.map((o: { id: string }) => o.id)).toEqual([org.organization.id]);
    const member = await (await flow.request(`${social.platform.baseURL}/organization/get-active-member-role?organizationId=${org.organization.id}`)).json();
    expect(member).toMatchObject({ role: "member" });

    // The same user again, by the email's verified domain through the 1.7 client: the callback URL this time.
    const again = social.browser();
    const client = ssoAuthClient(social.platform.baseURL, (input, init) => again.request(input instanceof Request ? input.url : String(input), init));
    const { data, error } = await client.signIn.sso({ email: account.email, callbackURL: "/dashboard", newUserCallbackURL: "/welcome" });
    expect(error).toBeNull();
    expect((await again.follow(data!.url)).url.href).toBe(at("/dashboard"));
    expect((await (await again.request(`${social.platform.baseURL}/get-session`)).json()).user.id).toBe(session.user.id);
  });

  it("attack: a replayed state is refused (single use)", async () => {
    social.idp.signInAs(social.anAccount("replay", { email: `replay-${Date.now().toString(36)}@${TRUSTED}` }));
    const flow = social.browser();
    const started = await postJson(flow, `${social.platform.baseURL}/sign-in/sso`, { providerId: "corp-a", callbackURL: "/dashboard", errorCallbackURL: "/oops" });
    const { visited } = await flow.follow(started.body.url);
    const callback = visited.find((u) => u.includes("/sso/callback/corp-a"));
    expect(callback).toBeTruthy();
    const replay = await flow.request(callback!, { redirect: "manual" });
    expect(replay.status).toBe(302);
    expect(new URL(replay.headers.get("location")!).searchParams.get("error")).toMatch(/state_not_found|please_restart_the_process/);
  });

  it.each([
    ["a wrong nonce", { nonce: "not-the-nonce" }],
    ["an id token for another client", { aud: "another-client" }],
    ["an id token of another issuer", { iss: "https://evil.example" }],
    ["an expired id token", { exp: Math.floor(Date.now() / 1000) - 3600 }],
  ])("attack: %s is refused, the browser sent to the error URL, no session", async (_kind, claims) => {
    const flow = social.browser();
    const started = await postJson(flow, `${social.platform.baseURL}/sign-in/sso`, { providerId: "corp-a", callbackURL: "/dashboard", errorCallbackURL: "/oops" });
    const nonce = new URL(started.body.url).searchParams.get("nonce")!;
    social.idp.signInAs(social.anAccount("forged", { email: `victim@${TRUSTED}` }));
    social.tokens.forgedIdToken = await social.idp.forgeIdToken({ sub: "forged", email: `victim@${TRUSTED}`, email_verified: true, nonce, ...claims });
    const end = await flow.follow(started.body.url);
    expect(end.url.origin + end.url.pathname).toBe(at("/oops"));
    expect(end.url.searchParams.get("error")).toBe("unable_to_get_user_info");
    expect(await (await flow.request(`${social.platform.baseURL}/get-session`)).json()).toBeNull();
  });

  it("attack: an email domain no one verified does not route, whatever providers exist (one answer)", async () => {
    const other = await anOrganization();
    await registerProvider(other.owner, other.organization.id, "corp-b", "unverified-b.example");
    const flow = social.browser();
    for (const email of ["ada@unverified-b.example", "ada@nobody.example"]) {
      const res = await postJson(flow, `${social.platform.baseURL}/sign-in/sso`, { email, callbackURL: "/dashboard" });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("PROVIDER_DOMAIN_HAS_NOT_BEEN_VERIFIED");
    }
  });

  it("attack: a disabled provider is refused as unknown; a callback for it signs no one in", async () => {
    const other = await anOrganization();
    await registerProvider(other.owner, other.organization.id, "corp-off", "off.example");
    const flow = social.browser();
    const started = await postJson(flow, `${social.platform.baseURL}/sign-in/sso`, { providerId: "corp-off", callbackURL: "/dashboard", errorCallbackURL: "/oops" });
    expect(started.status).toBe(200);
    const off = await postJson(other.owner, `${social.platform.baseURL}/sso/update-provider`, { providerId: "corp-off", enabled: false });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    const refused = await postJson(flow, `${social.platform.baseURL}/sign-in/sso`, { providerId: "corp-off", callbackURL: "/dashboard" });
    expect(refused.status).toBe(404);
    expect(refused.body.code).toBe("PROVIDER_NOT_FOUND");
    social.idp.signInAs(social.anAccount("off", { email: `someone@off.example` }));
    const end = await flow.follow(started.body.url);
    expect(end.url.origin + end.url.pathname).toBe(at("/oops"));
    expect(await (await flow.request(`${social.platform.baseURL}/get-session`)).json()).toBeNull();
  });

  it("attack: organization A's provider does not route, nor vouch for, a domain only organization B verified", async () => {
    const shared = `shared-${Date.now().toString(36)}.example`;
    const mallory = await anOrganization();
    await registerProvider(mallory.owner, mallory.organization.id, "corp-mallory", shared);
    const owner = await anOrganization();
    const claimed = await postJson(owner.owner, `${social.platform.baseURL}/organization/claim-domain`, { organizationId: owner.organization.id, domain: shared });
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
    dns.setTxt(claimed.body.record.name, [claimed.body.record.value]);
    const verified = await postJson(owner.owner, `${social.platform.baseURL}/organization/verify-domain`, { organizationId: owner.organization.id, domainId: claimed.body.id });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);

    const flow = social.browser();
    const routed = await postJson(flow, `${social.platform.baseURL}/sign-in/sso`, { email: `ceo@${shared}`, callbackURL: "/dashboard" });
    expect(routed.status).toBe(400);
    expect(routed.body.code).toBe("PROVIDER_DOMAIN_HAS_NOT_BEEN_VERIFIED");

    // Through its id, Mallory's provider still signs in, but its "verified" for an address at a domain its
    // organization did not verify is not believed: the user is an unverified one, linkable into no one.
    const victim = social.anAccount("victim", { email: `ceo@${shared}` });
    social.idp.signInAs(victim);
    const started = await postJson(flow, `${social.platform.baseURL}/sign-in/sso`, { providerId: "corp-mallory", callbackURL: "/dashboard", errorCallbackURL: "/oops" });
    expect(started.status).toBe(200);
    await flow.follow(started.body.url);
    const session = await (await flow.request(`${social.platform.baseURL}/get-session`)).json();
    expect(session.user).toMatchObject({ email: `ceo@${shared}`, emailVerified: false });
  });
});
