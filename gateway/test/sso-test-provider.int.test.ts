/**
 * POST /sso/test-provider on the whole platform against a real OpenID provider on loopback: a good provider
 * passes every check; one whose discovery document no longer answers fails that check (an answer, not an
 * error); a member without a manager's role is refused with 403; another organization's owner gets 404, as
 * for a provider that does not exist (docs/http-api/sso.md#post-ssotest-provider). And a SAML provider
 * registered over HTTP from its metadata XML: our SP values answered, its certificate's expiry checked.
 */
import { describe, expect, it } from "vitest";
import type { BrowserFlow } from "../../testing/browser-flow.js";
import { createSamlIdp } from "../../testing/saml-idp.js";
import { postJson, useSocialPlatform } from "../../testing/social-platform.js";

const social = useSocialPlatform({ ssoProviderIds: ["tested"] });

let n = 0;
async function person(label: string): Promise<{ flow: BrowserFlow; email: string }> {
  const flow = social.browser();
  n += 1;
  const email = `${label}-${Date.now().toString(36)}-${n}@tp.example`;
  const res = await postJson(flow, `${social.platform.baseURL}/sign-up/email`, { name: label, email, password: "password-123" });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { flow, email };
}

async function organizationOf(owner: BrowserFlow): Promise<string> {
  const slug = `tp-${Date.now().toString(36)}-${n}`;
  const org = await postJson(owner, `${social.platform.baseURL}/organization/create`, { name: `Org ${slug}`, slug });
  expect(org.status, JSON.stringify(org.body)).toBe(200);
  return org.body.id;
}

const testProvider = (flow: BrowserFlow, providerId: string) => postJson(flow, `${social.platform.baseURL}/sso/test-provider`, { providerId });

describe("POST /sso/test-provider", () => {
  it("checks a provider: every check passes, then a discovery document gone fails its check; a plain member gets 403, a stranger 404", async () => {
    const owner = await person("owner");
    const organizationId = await organizationOf(owner.flow);
    const registered = await postJson(owner.flow, `${social.platform.baseURL}/sso/register`, {
      providerId: "tested",
      issuer: social.idp.issuer,
      domain: "tested.example",
      organizationId,
      oidcConfig: { clientId: social.idp.clientId, clientSecret: social.idp.clientSecret },
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);

    const good = await testProvider(owner.flow, "tested");
    expect(good.status, JSON.stringify(good.body)).toBe(200);
    expect(good.body).toEqual({
      ok: true,
      checks: [
        { name: "discovery", ok: true, detail: `${social.idp.issuer}/.well-known/openid-configuration` },
        { name: "issuer", ok: true, detail: social.idp.issuer },
        { name: "token_endpoint", ok: true, detail: registered.body.oidcConfig.tokenEndpoint },
        { name: "jwks_endpoint", ok: true, detail: registered.body.oidcConfig.jwksEndpoint },
      ],
    });

    // The IdP's discovery document moved away (an address nothing answers on): said by its check.
    const store = social.platform.services.sso.deps.store;
    const stored = (await store.getProvider("tested"))!;
    const gone = "http://127.0.0.1:9/.well-known/openid-configuration";
    await store.updateProvider("tested", { updatedAt: new Date(), oidc: { ...stored.oidc!, discoveryEndpoint: gone } });
    const unreachable = await testProvider(owner.flow, "tested");
    expect(unreachable.status).toBe(200);
    expect(unreachable.body.ok).toBe(false);
    expect(unreachable.body.checks[0]).toEqual({ name: "discovery", ok: false, detail: "the discovery document could not be read" });
    expect(unreachable.body.checks.map((c: { name: string }) => c.name)).toEqual(["discovery", "token_endpoint", "jwks_endpoint"]);

    // A member of the organization who may not manage its providers.
    const member = await person("member");
    const invited = await postJson(owner.flow, `${social.platform.baseURL}/organization/invite-member`, { email: member.email, role: "member", organizationId });
    expect(invited.status, JSON.stringify(invited.body)).toBe(200);
    expect((await postJson(member.flow, `${social.platform.baseURL}/organization/accept-invitation`, { invitationId: invited.body.id })).status).toBe(200);
    const refused = await testProvider(member.flow, "tested");
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("YOU_MUST_BE_AN_ORGANIZATION_OWNER_OR_ADMIN_TO_REGISTER_SSO_PROVIDERS");

    // Another organization's owner: as for a provider that does not exist.
    const stranger = await person("stranger");
    await organizationOf(stranger.flow);
    const hidden = await testProvider(stranger.flow, "tested");
    expect(hidden.status).toBe(404);
    expect(hidden.body.code).toBe("PROVIDER_NOT_FOUND");
    expect((await testProvider(stranger.flow, "nobody")).body.code).toBe("PROVIDER_NOT_FOUND");
    // Without a session: 401.
    expect((await testProvider(social.browser(), "tested")).status).toBe(401);
  });

  it("registers a SAML provider from its metadata XML, answers our SP values, and checks its certificate and SSO URL", async () => {
    const owner = await person("saml-owner");
    const organizationId = await organizationOf(owner.flow);
    const idp = await createSamlIdp();
    const registered = await postJson(owner.flow, `${social.platform.baseURL}/sso/register`, {
      providerId: "tested-saml",
      issuer: idp.entityId,
      domain: "saml.tested.example",
      organizationId,
      samlConfig: { idpMetadata: { metadata: idp.metadataXml() } },
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    expect(registered.body.type).toBe("saml");
    expect(registered.body.samlConfig).toMatchObject({
      idpEntityId: idp.entityId,
      entryPoint: idp.ssoUrl,
      spEntityId: `${social.platform.baseURL}/sso/saml2/sp/metadata?providerId=tested-saml`,
      acsUrl: `${social.platform.baseURL}/sso/saml2/sp/acs/tested-saml`,
      spMetadataUrl: `${social.platform.baseURL}/sso/saml2/sp/metadata?providerId=tested-saml`,
    });
    expect(registered.body.spMetadataUrl).toBe(registered.body.samlConfig.spMetadataUrl);
    const bad = await postJson(owner.flow, `${social.platform.baseURL}/sso/register`, {
      providerId: "tested-saml-bad",
      issuer: idp.entityId,
      domain: "bad.tested.example",
      organizationId,
      samlConfig: { idpMetadata: { metadata: "<nope/>" } },
    });
    expect([bad.status, bad.body.code]).toEqual([400, "INVALID_SAML_METADATA"]);

    const tested = await testProvider(owner.flow, "tested-saml");
    expect(tested.status).toBe(200);
    expect(tested.body.ok).toBe(true);
    expect(tested.body.checks.map((c: { name: string }) => c.name)).toEqual(["certificate", "sso_url"]);
    expect(tested.body.checks[0].detail).toMatch(/^CN=test-idp: expires on \d{4}-\d{2}-\d{2}T/);
  });
});
