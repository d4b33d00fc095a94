/**
 * Single sign-on through an organization's SAML 2.0 identity provider, on the whole platform, against a SAML
 * IdP that signs real assertions (testing/saml-idp.ts): our SP metadata, POST /sign-in/sso by email domain
 * and by provider id, the IdP's cross-site POST to the ACS, the browser's GET that completes the sign-in, the
 * membership with the provider's default role and a session that says "sso"; and the attacks at the HTTP
 * edge: an assertion posted into another browser (login CSRF), a replayed response, an unsigned or wrongly
 * signed assertion, a wrong audience, an IdP-initiated response while that is off (docs/http-api/sso.md).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { type RunningOrganization, startOrganization } from "../../testing/platform.js";
import { createSamlIdp, type TestSamlIdp } from "../../testing/saml-idp.js";
import { usePlatform } from "../../testing/use-platform.js";
import { eventually } from "../../testing/eventually.js";
import { anAdmin } from "./admin-fixtures.js";
import { organizationOf, person } from "./organization-fixtures.js";

const DOMAIN = "saml-corp.example";
const IDP_ORIGIN = "https://idp.example.test";

describe(`single sign-on with a SAML identity provider (${backendLabel()})`, () => {
  const platform = usePlatform({ serviceEnv: { sso: { SSO_TRUSTED_DOMAINS: DOMAIN } } });
  let idp: TestSamlIdp;
  let organizationId: string;
  let organizationSlug: string;
  const providerId = "saml-corp";
  const sp = () => ({ entityId: `${platform.baseURL}/sso/saml2/sp/metadata?providerId=${providerId}`, acsUrl: `${platform.baseURL}/sso/saml2/sp/acs/${providerId}` });

  beforeAll(async () => {
    idp = await createSamlIdp();
    const owner = await person(platform, "Owner");
    const organization = await organizationOf(owner);
    organizationId = organization.id;
    organizationSlug = organization.slug;
    const registered = await owner.c.post("/sso/register", {
      providerId,
      issuer: idp.entityId,
      domain: DOMAIN,
      organizationId,
      samlConfig: { idpMetadata: { metadata: idp.metadataXml() } },
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    expect(registered.body.samlConfig).toMatchObject({ spEntityId: sp().entityId, acsUrl: sp().acsUrl });
    ownerClient = owner.c;
  });
  let restartedOrganization: RunningOrganization | undefined;
  afterAll(async () => {
    await idp.stop();
    await restartedOrganization?.close();
  });
  let ownerClient: ReturnType<typeof platform.client>;

  /** POST /sign-in/sso in a fresh browser; answers the browser and the AuthnRequest the IdP received. */
  async function start(body: Record<string, unknown>) {
    const browser = platform.client();
    const started = await browser.post("/sign-in/sso", { callbackURL: "/dashboard", newUserCallbackURL: "/welcome", errorCallbackURL: "/oops", ...body });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body.url.startsWith(idp.ssoUrl)).toBe(true);
    return { browser, request: await idp.readAuthnRequest(started.body.url) };
  }

  /** The IdP's auto-posted form to our ACS, as a browser sends it (cross-site: the IdP's Origin, no Lax cookie needed). */
  async function postToAcs(browser: ReturnType<typeof platform.client>, samlResponse: string, relayState: string | null, userAgent = "saml-test") {
    const form = new URLSearchParams({ SAMLResponse: samlResponse, ...(relayState ? { RelayState: relayState } : {}) });
    return browser.request("POST", `/sso/saml2/sp/acs/${providerId}`, {
      body: form.toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", origin: IDP_ORIGIN, "user-agent": userAgent },
    });
  }

  /** Follows a redirect that stays on the gateway; answers the final Location as a URL. */
  async function land(browser: ReturnType<typeof platform.client>, location: string): Promise<URL> {
    const url = new URL(location, platform.baseURL);
    const res = await browser.get(url.pathname.slice(new URL(platform.baseURL).pathname.length) + url.search);
    expect([302, 303]).toContain(res.status);
    return new URL(res.headers.get("location")!, platform.baseURL);
  }

  it("serves our SP metadata per provider, with the ACS URL the admin gives the IdP", async () => {
    const res = await fetch(`${platform.baseURL}/sso/saml2/sp/metadata?providerId=${providerId}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/samlmetadata+xml");
    const xml = await res.text();
    expect(xml).toContain(`entityID="${sp().entityId.replace(/&/g, "&amp;")}"`);
    expect(xml).toContain(sp().acsUrl);
    expect((await fetch(`${platform.baseURL}/sso/saml2/sp/metadata?providerId=nobody`)).status).toBe(404);
  });

  it("a new user signs in by email domain: ACS, then the browser's GET; member with the default role, session says sso", async () => {
    const email = uniqueEmail("jane").replace(/@.*/, `@${DOMAIN}`);
    const { browser, request } = await start({ email });
    expect(request.acsUrl).toBe(sp().acsUrl);
    const samlResponse = await idp.response({ sp: sp(), user: { nameId: email, email, name: "Jane Saml" }, inResponseTo: request.requestId });
    const acs = await postToAcs(browser, samlResponse, request.relayState);
    expect(acs.status).toBe(303);
    expect(acs.headers.get("location")).toMatch(new RegExp(`/sso/saml2/callback/${providerId}\\?handoff=[A-Za-z0-9_-]{43}$`));
    expect(acs.headers.get("set-cookie")).toBeNull();

    const end = await land(browser, acs.headers.get("location")!);
    expect(end.pathname).toBe("/welcome");
    const session = await browser.get("/get-session");
    // The IdP vouches for addresses at the provider's verified domain.
    expect(session.body.user).toMatchObject({ email, name: "Jane Saml", emailVerified: true });
    expect(session.body.session).toMatchObject({ authMethod: "sso" });
    const members = await ownerClient.get(`/organization/list-members?organizationId=${organizationId}`);
    expect(members.body.members.find((m: { user: { email: string } }) => m.user.email === email)).toMatchObject({ role: "member" });

    // Signing in again through the organization's slug: the same user, the plain callback URL.
    const again = await start({ organizationSlug });
    const second = await idp.response({ sp: sp(), user: { nameId: email, email }, inResponseTo: again.request.requestId });
    const acs2 = await postToAcs(again.browser, second, again.request.relayState);
    expect((await land(again.browser, acs2.headers.get("location")!)).pathname).toBe("/dashboard");
    expect((await again.browser.get("/get-session")).body.user.id).toBe(session.body.user.id);
  });

  it("an unknown organization slug, and one without a provider, answer alike", async () => {
    const stranger = await person(platform, "Stranger");
    const bare = await organizationOf(stranger);
    for (const slug of ["no-such-organization", bare.slug]) {
      const res = await platform.client().post("/sign-in/sso", { organizationSlug: slug, callbackURL: "/" });
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 404, code: "PROVIDER_NOT_FOUND" });
    }
  });

  it("an assertion posted into another browser does not sign that browser in (login CSRF), and a handoff is used once", async () => {
    const email = `mallory-${Date.now().toString(36)}@${DOMAIN}`;
    const { browser: attacker, request } = await start({ email });
    const samlResponse = await idp.response({ sp: sp(), user: { nameId: email, email }, inResponseTo: request.requestId });
    const victim = platform.client();
    const acs = await postToAcs(victim, samlResponse, request.relayState);
    expect(acs.status).toBe(303);
    const end = await land(victim, acs.headers.get("location")!);
    expect(end.searchParams.get("error")).toBe("please_restart_the_process");
    expect(end.pathname).toBe("/oops");
    expect((await victim.get("/get-session")).body).toBeNull();
    // The attacker's own browser cannot use the spent handoff either.
    const replayed = await land(attacker, acs.headers.get("location")!);
    expect(replayed.searchParams.get("error")).toBe("state_not_found");
  });

  it("refuses a replayed response, an unsigned or foreign-signed assertion and a wrong audience, without saying why", async () => {
    const email = `eve-${Date.now().toString(36)}@${DOMAIN}`;
    const first = await start({ email });
    const good = await idp.response({ sp: sp(), user: { nameId: email, email }, inResponseTo: first.request.requestId });
    await land(first.browser, (await postToAcs(first.browser, good, first.request.relayState)).headers.get("location")!);

    const cases = [
      { name: "replayed", make: async () => good },
      { name: "unsigned", make: async (id: string) => idp.response({ sp: sp(), user: { nameId: email, email }, inResponseTo: id, sign: "none" }) },
      { name: "foreign key", make: async (id: string) => idp.response({ sp: sp(), user: { nameId: email, email }, inResponseTo: id, foreignKey: true }) },
      { name: "audience", make: async (id: string) => idp.response({ sp: sp(), user: { nameId: email, email }, inResponseTo: id, audience: "https://other.example/sp" }) },
    ];
    for (const attack of cases) {
      const { browser, request } = await start({ email });
      const acs = await postToAcs(browser, await attack.make(request.requestId), request.relayState, attack.name);
      expect(acs.status, attack.name).toBe(302);
      const target = new URL(acs.headers.get("location")!, platform.baseURL);
      expect(target.searchParams.get("error"), attack.name).toBe("invalid_saml_response");
      expect(target.pathname, attack.name).toBe("/oops");
      expect((await browser.get("/get-session")).body, attack.name).toBeNull();
    }
    // Each refusal is a security event in the audit log, with the provider and the public code only.
    const admin = await anAdmin(platform);
    await eventually(async () => {
      const log = await admin.c.get("/admin/list-audit-events?action=sign-in.sso");
      const names = cases.map((c) => c.name);
      const events = (log.body.events as { userAgent: string }[]).filter((e) => names.includes(e.userAgent));
      expect(events.map((e) => e.userAgent).sort()).toEqual([...names].sort());
      for (const event of events) expect(event).toMatchObject({ outcome: "failure", details: { provider: providerId, error: "invalid_saml_response" } });
    });
  });

  it("an IdP-initiated response is refused until the provider allows it, then lands on the app's home", async () => {
    const email = `idp-init-${Date.now().toString(36)}@${DOMAIN}`;
    const browser = platform.client();
    const refused = await postToAcs(browser, await idp.response({ sp: sp(), user: { nameId: email, email } }), null);
    expect(new URL(refused.headers.get("location")!, platform.baseURL).searchParams.get("error")).toBe("invalid_saml_response");

    const updated = await ownerClient.post("/sso/update-provider", { providerId, samlConfig: { allowIdpInitiated: true } });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    const acs = await postToAcs(browser, await idp.response({ sp: sp(), user: { nameId: email, email } }), null);
    expect(acs.status).toBe(303);
    const end = await land(browser, acs.headers.get("location")!);
    expect(end.searchParams.get("error")).toBeNull();
    expect((await browser.get("/get-session")).body.user).toMatchObject({ email });
  });

  it("answers a malformed ACS post with a redirect, never a 500", async () => {
    const browser = platform.client();
    const empty = await browser.request("POST", `/sso/saml2/sp/acs/${providerId}`, { body: "RelayState=x", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(empty.status).toBe(302);
    expect(new URL(empty.headers.get("location")!, platform.baseURL).searchParams.get("error")).toBe("invalid_callback_request");
    const garbage = await postToAcs(browser, "not-base64-!!", "x");
    expect(new URL(garbage.headers.get("location")!, platform.baseURL).searchParams.get("error")).toBe("invalid_saml_response");
    const unknown = await browser.request("POST", "/sso/saml2/sp/acs/nobody", { body: "SAMLResponse=abcd", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(new URL(unknown.headers.get("location")!, platform.baseURL).searchParams.get("error")).toBe("oauth_provider_not_found");
  });

  it("partition: with the organization service down the sign-in fails and leaves no session; once it is back the same sign-in works", async () => {
    const email = `part-${Date.now().toString(36)}@${DOMAIN}`;
    await platform.services.organization.close();
    const { browser, request } = await start({ email });
    const acs = await postToAcs(browser, await idp.response({ sp: sp(), user: { nameId: email, email }, inResponseTo: request.requestId }), request.relayState);
    const failed = await land(browser, acs.headers.get("location")!);
    expect(failed.pathname).toBe("/oops");
    expect(failed.searchParams.get("error")).toBeTruthy();
    expect((await browser.get("/get-session")).body).toBeNull();
    // identity made the user, then could not make the membership: it opened no session for them.
    const user = await platform.services.identity.deps.store.findUserByEmail(email);
    expect(user).not.toBeNull();
    expect(await platform.services.session.deps.store.listByUser(user!.id)).toEqual([]);

    restartedOrganization = await startOrganization(platform.env);
    // identity's channel to organization may still be waiting out its reconnect backoff: the user tries again.
    const again = await eventually(async () => {
      const attempt = await start({ email });
      const acs2 = await postToAcs(
        attempt.browser,
        await idp.response({ sp: sp(), user: { nameId: email, email }, inResponseTo: attempt.request.requestId }),
        attempt.request.relayState,
      );
      expect((await land(attempt.browser, acs2.headers.get("location")!)).pathname).toBe("/dashboard");
      return attempt;
    });
    expect((await again.browser.get("/get-session")).body.session).toMatchObject({ authMethod: "sso" });
    const members = await ownerClient.get(`/organization/list-members?organizationId=${organizationId}`);
    expect(members.body.members.map((m: { user: { email: string } }) => m.user.email)).toContain(email);
  });
});
