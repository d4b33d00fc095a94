/** Registering and managing providers: who may, what is stored, what is never answered. */
import { describe, expect, it } from "vitest";
import { newId } from "@auth-platform/runtime/random";
import { errorCode } from "../../../../testing/error-code.js";
import { createSamlIdp } from "../../../../testing/saml-idp.js";
import { testRegistry } from "../../test/test-registry.js";
import { deleteProvider, getProvider, listProviders, registerProvider, updateProvider } from "./providers.js";

const oidc = { clientId: "client-abcd1234", clientSecret: "the-client-secret" };

describe("sso providers", () => {
  it("an owner registers a discovered provider; the client secret is stored sealed, for this provider only", async () => {
    const r = testRegistry();
    const owner = r.member("owner");
    const issuer = r.issuer();
    const provider = await registerProvider(r, owner, { providerId: "acme", issuer, domain: "acme.example.com", oidc });
    expect(provider).toMatchObject({ organizationId: owner.organizationId, type: "oidc", userId: owner.userId, enabled: true, defaultRole: "member", domainVerified: false });
    expect(provider.oidc).toMatchObject({
      clientId: "client-abcd1234",
      authorizationEndpoint: `${issuer}/authorize`,
      tokenEndpoint: `${issuer}/token`,
      jwksEndpoint: `${issuer}/jwks`,
      scopes: ["openid", "email", "profile"],
      pkce: true,
    });
    const stored = await r.store.getProvider("acme");
    expect(JSON.stringify(stored)).not.toContain("the-client-secret");
    expect(r.secrets.open(stored!.oidc!.sealedClientSecret, "acme")).toBe("the-client-secret");
    // Moved to another provider's row, it does not open.
    expect(() => r.secrets.open(stored!.oidc!.sealedClientSecret, "other")).toThrow();
  });

  it("refuses a member, a non-member and an organization of which the caller is no manager, alike", async () => {
    const r = testRegistry();
    const issuer = r.issuer();
    const member = r.member("member");
    const stranger = { ...r.member("owner"), activeOrganizationId: member.organizationId };
    for (const caller of [member, stranger]) {
      expect(await errorCode(registerProvider(r, caller, { providerId: newId(), issuer, domain: "acme.example.com", oidc, organizationId: member.organizationId }))).toBe(
        "YOU_MUST_BE_AN_ORGANIZATION_OWNER_OR_ADMIN_TO_REGISTER_SSO_PROVIDERS",
      );
    }
    expect(await r.store.listProviders(member.organizationId)).toEqual([]);
  });

  it("an admin may not hand out a role they do not hold through the provider", async () => {
    const r = testRegistry();
    const admin = r.member("admin");
    const issuer = r.issuer();
    expect(await errorCode(registerProvider(r, admin, { providerId: "p1", issuer, domain: "a.example.com", oidc, defaultRole: "owner" }))).toBe("VALIDATION_ERROR");
    await registerProvider(r, admin, { providerId: "p1", issuer, domain: "a.example.com", oidc, defaultRole: "admin" });
    expect(await errorCode(updateProvider(r, admin, { providerId: "p1", defaultRole: "owner" }))).toBe("VALIDATION_ERROR");
  });

  it("a discovery document naming another issuer, or none, is refused", async () => {
    const r = testRegistry();
    const owner = r.member("owner");
    const issuer = r.issuer();
    r.documents.set("https://evil.example.com/.well-known/openid-configuration", r.documents.get(`${issuer}/.well-known/openid-configuration`)!);
    expect(await errorCode(registerProvider(r, owner, { providerId: "p", issuer: "https://evil.example.com", domain: "a.example.com", oidc }))).toBe("INVALID_OIDC_CONFIGURATION");
    expect(await errorCode(registerProvider(r, owner, { providerId: "p", issuer: "https://nothing.example.com", domain: "a.example.com", oidc }))).toBe(
      "INVALID_OIDC_CONFIGURATION",
    );
  });

  it("an endpoint given beside discovery is checked like the discovered ones", async () => {
    const r = testRegistry();
    const owner = r.member("owner");
    const issuer = r.issuer();
    const input = { providerId: "p", issuer, domain: "a.example.com", oidc: { ...oidc, tokenEndpoint: "https://metadata.internal/token" } };
    expect(await errorCode(registerProvider(r, owner, input))).toBe("INVALID_OIDC_CONFIGURATION");
    await registerProvider(r, owner, { ...input, oidc });
    expect(await errorCode(updateProvider(r, owner, { providerId: "p", oidc: { userInfoEndpoint: "https://metadata.internal/me" } }))).toBe("INVALID_OIDC_CONFIGURATION");
  });

  it("a domain routes sign-in only when the operator trusts it (until verified domains)", async () => {
    const r = testRegistry({ SSO_TRUSTED_DOMAINS: "trusted.example.com" });
    const owner = r.member("owner");
    const issuer = r.issuer();
    expect((await registerProvider(r, owner, { providerId: "p1", issuer, domain: "trusted.example.com", oidc })).domainVerified).toBe(true);
    expect((await registerProvider(r, owner, { providerId: "p2", issuer, domain: "other.example.com", oidc })).domainVerified).toBe(false);
    expect((await updateProvider(r, owner, { providerId: "p1", domain: "elsewhere.example.com" })).domainVerified).toBe(false);
    const everything = testRegistry({ SSO_TRUSTED_DOMAINS: "*" });
    const single = everything.member("owner");
    expect((await registerProvider(everything, single, { providerId: "p", issuer: everything.issuer(), domain: "x.example.com", oidc })).domainVerified).toBe(true);
  });

  it("attack: a domain another organization verified cannot be taken by a provider, however it is spelled", async () => {
    const r = testRegistry();
    const acme = r.member("owner");
    const mallory = r.member("owner");
    const at = new Date(r.now());
    const claim = {
      id: "claim",
      organizationId: acme.organizationId,
      domain: "acme.example.com",
      token: "t",
      createdAt: at,
      expiresAt: at,
      verifiedAt: null,
      autoJoinRole: null,
      autoJoinSince: null,
    };
    expect(await r.store.insertDomain(claim)).toBe(true);
    expect(await r.store.markDomainVerified("claim", at)).toBe(true);
    const issuer = r.issuer();
    for (const domain of ["acme.example.com", "ACME.Example.com."]) {
      expect(await errorCode(registerProvider(r, mallory, { providerId: "squat", issuer, domain, oidc }))).toBe("DOMAIN_IS_VERIFIED_BY_ANOTHER_ORGANIZATION");
    }
    await registerProvider(r, mallory, { providerId: "squat", issuer, domain: "mallory.example.com", oidc });
    expect(await errorCode(updateProvider(r, mallory, { providerId: "squat", domain: "acme.example.com" }))).toBe("DOMAIN_IS_VERIFIED_BY_ANOTHER_ORGANIZATION");
    expect((await getProvider(r, mallory, "squat")).domain).toBe("mallory.example.com");
    // The organization that verified it registers its provider, which routes at once.
    expect((await registerProvider(r, acme, { providerId: "acme", issuer, domain: "acme.example.com", oidc })).domainVerified).toBe(true);
  });

  it("another organization's manager finds no provider to read, change or delete", async () => {
    const r = testRegistry();
    const owner = r.member("owner");
    await registerProvider(r, owner, { providerId: "acme", issuer: r.issuer(), domain: "acme.example.com", oidc });
    const other = r.member("owner");
    expect(await errorCode(getProvider(r, other, "acme"))).toBe("PROVIDER_NOT_FOUND");
    expect(await errorCode(getProvider(r, other, "nobody"))).toBe("PROVIDER_NOT_FOUND");
    expect(await errorCode(updateProvider(r, other, { providerId: "acme", enabled: false }))).toBe("PROVIDER_NOT_FOUND");
    expect(await errorCode(deleteProvider(r, other, "acme"))).toBe("PROVIDER_NOT_FOUND");
    expect(await listProviders(r, other, owner.organizationId)).toEqual([]);
    expect((await getProvider(r, owner, "acme")).enabled).toBe(true);
  });

  it("an update keeps what it does not name, rediscovers a new issuer, and reseals a new secret", async () => {
    const r = testRegistry();
    const owner = r.member("owner");
    const first = r.issuer();
    await registerProvider(r, owner, { providerId: "acme", issuer: first, domain: "acme.example.com", oidc: { ...oidc, scopes: ["groups"] } });
    expect(await errorCode(updateProvider(r, owner, { providerId: "acme" }))).toBe("NO_FIELDS_PROVIDED_FOR_UPDATE");
    const second = r.issuer();
    r.advance(1000);
    const updated = await updateProvider(r, owner, { providerId: "acme", issuer: second, oidc: { clientSecret: "rotated" }, enabled: false });
    expect(updated).toMatchObject({ issuer: second, enabled: false, domain: "acme.example.com", updatedAt: new Date(r.now()) });
    expect(updated.oidc).toMatchObject({ clientId: oidc.clientId, tokenEndpoint: `${second}/token`, scopes: ["openid", "groups"] });
    expect(r.secrets.open(updated.oidc!.sealedClientSecret, "acme")).toBe("rotated");
    await deleteProvider(r, owner, "acme");
    expect(await listProviders(r, owner)).toEqual([]);
  });

  it("lists the active organization's providers for its managers only", async () => {
    const r = testRegistry();
    const owner = r.member("owner");
    await registerProvider(r, owner, { providerId: "a", issuer: r.issuer(), domain: "a.example.com", oidc });
    r.advance(1);
    await registerProvider(r, owner, { providerId: "b", issuer: r.issuer(), domain: "b.example.com", oidc });
    expect((await listProviders(r, owner)).map((p) => p.providerId)).toEqual(["a", "b"]);
    const member = r.member("member", owner.organizationId);
    expect(await listProviders(r, member)).toEqual([]);
    expect(await listProviders(r, { ...owner, activeOrganizationId: undefined })).toEqual([]);
  });
});

describe("SAML providers", () => {
  it("an owner registers one from pasted metadata, or from a metadata URL, and updates it keeping the rest", async () => {
    const idp = await createSamlIdp();
    const r = testRegistry();
    const owner = r.member("owner");
    const provider = await registerProvider(r, owner, {
      providerId: "acme-saml",
      issuer: idp.entityId,
      domain: "acme.example.com",
      saml: { idpMetadata: { metadata: idp.metadataXml() } },
    });
    expect(provider).toMatchObject({ type: "saml", oidc: null, saml: { idpEntityId: idp.entityId, ssoUrl: idp.ssoUrl, allowIdpInitiated: false } });
    expect(r.discoveries).toBe(0);

    r.metadata.set("https://idp.example.com/metadata", idp.metadataXml());
    const fetched = await registerProvider(r, owner, {
      providerId: "acme-url",
      issuer: idp.entityId,
      domain: "url.example.com",
      saml: { metadataUrl: "https://idp.example.com/metadata" },
    });
    expect(fetched.saml).toMatchObject({ idpEntityId: idp.entityId, metadataUrl: "https://idp.example.com/metadata" });

    await idp.rotate();
    const updated = await updateProvider(r, owner, { providerId: "acme-saml", saml: { cert: idp.certificates(), allowIdpInitiated: true } });
    expect(updated.saml).toMatchObject({ idpEntityId: idp.entityId, ssoUrl: idp.ssoUrl, allowIdpInitiated: true });
    expect((updated.saml as { certificates: string[] }).certificates).toHaveLength(2);
  });

  it("refuses metadata that is not an IdP's, both or neither type, and the other type's settings on update", async () => {
    const idp = await createSamlIdp();
    const r = testRegistry();
    const owner = r.member("owner");
    const base = { issuer: idp.entityId, domain: "acme.example.com" };
    expect(await errorCode(registerProvider(r, owner, { ...base, providerId: "s1", saml: { idpMetadata: { metadata: "<nope/>" } } }))).toBe("INVALID_SAML_METADATA");
    expect(await errorCode(registerProvider(r, owner, { ...base, providerId: "s2", saml: { metadataUrl: "https://unknown.example.com/metadata" } }))).toBe("INVALID_SAML_METADATA");
    expect(await errorCode(registerProvider(r, owner, { ...base, providerId: "s3" }))).toBe("VALIDATION_ERROR");
    expect(await errorCode(registerProvider(r, owner, { ...base, providerId: "s4", oidc, saml: { idpMetadata: { metadata: idp.metadataXml() } } }))).toBe("VALIDATION_ERROR");
    await registerProvider(r, owner, { ...base, providerId: "s5", saml: { idpMetadata: { metadata: idp.metadataXml() } } });
    expect(await errorCode(updateProvider(r, owner, { providerId: "s5", oidc }))).toBe("VALIDATION_ERROR");
    expect(await r.store.listProviders(owner.organizationId)).toHaveLength(1);
  });

  it("a member may not register one", async () => {
    const idp = await createSamlIdp();
    const r = testRegistry();
    const member = r.member("member");
    expect(
      await errorCode(registerProvider(r, member, { providerId: "s", issuer: idp.entityId, domain: "acme.example.com", saml: { idpMetadata: { metadata: idp.metadataXml() } } })),
    ).toBe("YOU_MUST_BE_AN_ORGANIZATION_OWNER_OR_ADMIN_TO_REGISTER_SSO_PROVIDERS");
  });
});
