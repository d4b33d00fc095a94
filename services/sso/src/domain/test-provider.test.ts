/** "Test connection": each check of an OpenID or SAML provider, and who may run it. */
import { describe, expect, it } from "vitest";
import { errorCode } from "../../../../testing/error-code.js";
import { createSamlIdp } from "../../../../testing/saml-idp.js";
import { testRegistry } from "../../test/test-registry.js";
import { registerProvider } from "./providers.js";
import { testProvider } from "./test-provider.js";

const oidc = { clientId: "client-abcd1234", clientSecret: "the-client-secret" };
const YEAR = 365 * 86_400_000;

describe("testing a provider", () => {
  it("an OpenID provider: discovery, issuer, token and key-set endpoints, each said", async () => {
    const r = testRegistry();
    const owner = r.member("owner");
    const issuer = r.issuer();
    await registerProvider(r, owner, { providerId: "acme", issuer, domain: "acme.example.com", oidc });
    const result = await testProvider(r, owner, "acme");
    expect(result).toEqual({
      ok: true,
      checks: [
        { name: "discovery", ok: true, detail: `${issuer}/.well-known/openid-configuration` },
        { name: "issuer", ok: true, detail: issuer },
        { name: "token_endpoint", ok: true, detail: `${issuer}/token` },
        { name: "jwks_endpoint", ok: true, detail: `${issuer}/jwks` },
      ],
    });
  });

  it("says which check fails: a discovery document gone, one naming another issuer, an endpoint inside the network", async () => {
    const r = testRegistry();
    const owner = r.member("owner");
    const issuer = r.issuer();
    await registerProvider(r, owner, { providerId: "acme", issuer, domain: "acme.example.com", oidc: { ...oidc, jwksEndpoint: "https://keys.example.com/jwks" } });
    const document = r.documents.get(`${issuer}/.well-known/openid-configuration`)!;
    r.documents.set(`${issuer}/.well-known/openid-configuration`, { ...document, issuer: "https://other.example.com" });
    const renamed = await testProvider(r, owner, "acme");
    expect(renamed.ok).toBe(false);
    expect(renamed.checks.find((c) => c.name === "issuer")).toEqual({ name: "issuer", ok: false, detail: `the discovery document names https://other.example.com, not ${issuer}` });

    r.documents.delete(`${issuer}/.well-known/openid-configuration`);
    const gone = await testProvider(r, owner, "acme");
    expect(gone.checks.map((c) => [c.name, c.ok])).toEqual([
      ["discovery", false],
      ["token_endpoint", true],
      ["jwks_endpoint", true],
    ]);
    expect(gone.checks[0]!.detail).toBe("the discovery document could not be read");

    const stored = (await r.store.getProvider("acme"))!;
    await r.store.updateProvider("acme", { updatedAt: r.now(), oidc: { ...stored.oidc!, tokenEndpoint: "https://idp.internal/token" } });
    r.documents.set(`${issuer}/.well-known/openid-configuration`, document);
    const inside = await testProvider(r, owner, "acme");
    expect(inside.checks.find((c) => c.name === "token_endpoint")).toEqual({ name: "token_endpoint", ok: false, detail: "the URL must lead to a public address" });
  });

  it("a SAML provider: its metadata URL read again, each certificate's expiry, its SSO URL", async () => {
    const r = testRegistry();
    const owner = r.member("owner");
    const idp = await createSamlIdp();
    r.metadata.set("https://idp.example.com/metadata", idp.metadataXml());
    await registerProvider(r, owner, { providerId: "acme-saml", issuer: idp.entityId, domain: "acme.example.com", saml: { metadataUrl: "https://idp.example.com/metadata" } });
    const result = await testProvider(r, owner, "acme-saml");
    expect(result.ok).toBe(true);
    expect(result.checks.map((c) => c.name)).toEqual(["metadata_url", "certificate", "sso_url"]);
    expect(result.checks[1]!.detail).toMatch(/^CN=test-idp: expires on \d{4}-/);

    // Ten years on, the certificate has expired, and the metadata is gone.
    r.advance(11 * YEAR);
    r.metadata.delete("https://idp.example.com/metadata");
    const later = await testProvider(r, owner, "acme-saml");
    expect(later.ok).toBe(false);
    expect(later.checks.map((c) => [c.name, c.ok])).toEqual([
      ["metadata_url", false],
      ["certificate", false],
      ["sso_url", true],
    ]);
    expect(later.checks[1]!.detail).toMatch(/expired on/);
  });

  it("is refused to a member who may not manage the provider (403), and as not found to another organization's owner", async () => {
    const r = testRegistry();
    const owner = r.member("owner");
    await registerProvider(r, owner, { providerId: "acme", issuer: r.issuer(), domain: "acme.example.com", oidc });
    const member = r.member("member", owner.organizationId);
    const stranger = r.member("owner");
    expect(await errorCode(testProvider(r, member, "acme"))).toBe("YOU_MUST_BE_AN_ORGANIZATION_OWNER_OR_ADMIN_TO_REGISTER_SSO_PROVIDERS");
    expect(await errorCode(testProvider(r, stranger, "acme"))).toBe("PROVIDER_NOT_FOUND");
    expect(await errorCode(testProvider(r, owner, "nope"))).toBe("PROVIDER_NOT_FOUND");
  });
});
