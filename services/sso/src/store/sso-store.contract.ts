/** The SsoStore contract: one suite, run on every backend (memory, SQLite, PostgreSQL). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@auth-platform/runtime/random";
import type { ProviderRecord, SsoStore } from "./sso-store.js";
import { errorCode } from "../../../../testing/error-code.js";

const T0 = Date.UTC(2030, 0, 1, 2, 3, 4, 567);
const at = (ms: number) => new Date(T0 + ms);

export function aProvider(overrides: Partial<ProviderRecord> = {}): ProviderRecord {
  const id = newId();
  return {
    providerId: `idp-${id}`,
    organizationId: newId(),
    type: "oidc",
    issuer: "https://idp.example.com",
    domain: `${id.toLowerCase()}.example.com`,
    domainVerified: false,
    enabled: true,
    defaultRole: "member",
    userId: newId(),
    oidc: {
      clientId: "client-1234",
      sealedClientSecret: "k.iv.ct.tag",
      discoveryEndpoint: "https://idp.example.com/.well-known/openid-configuration",
      authorizationEndpoint: "https://idp.example.com/authorize",
      tokenEndpoint: "https://idp.example.com/token",
      userInfoEndpoint: null,
      jwksEndpoint: "https://idp.example.com/jwks",
      scopes: ["openid", "email", "profile"],
      pkce: true,
      tokenEndpointAuthentication: "client_secret_post",
      mapping: { id: "sub", email: "email", emailVerified: "email_verified", name: "name", image: "picture" },
    },
    saml: null,
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

export function ssoStoreContract(backend: string, open: () => Promise<SsoStore>): void {
  describe(`SsoStore contract (${backend})`, () => {
    let store: SsoStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    it("stores a provider and reads it back by id and by domain, settings included", async () => {
      const provider = aProvider({ saml: { entryPoint: "https://idp.example.com/sso" } });
      await store.insertProvider(provider);
      expect(await store.getProvider(provider.providerId)).toEqual(provider);
      expect(await store.findProviderByDomain(provider.domain)).toEqual(provider);
      expect(await store.getProvider("nobody")).toBeNull();
      expect(await store.findProviderByDomain("nowhere.example.com")).toBeNull();
    });

    it("refuses a second provider with the same id, or with a domain already used", async () => {
      const provider = aProvider();
      await store.insertProvider(provider);
      expect(await errorCode(store.insertProvider(aProvider({ providerId: provider.providerId })))).toBe("SSO_PROVIDER_WITH_THIS_PROVIDERID_ALREADY_EXISTS");
      expect(await errorCode(store.insertProvider(aProvider({ domain: provider.domain })))).toBe("THIS_DOMAIN_IS_ALREADY_USED_BY_ANOTHER_SSO_PROVIDER");
    });

    it("lists an organization's providers oldest first, and no other organization's", async () => {
      const organizationId = newId();
      const second = aProvider({ organizationId, createdAt: at(2000) });
      const first = aProvider({ organizationId, createdAt: at(1000) });
      await store.insertProvider(second);
      await store.insertProvider(first);
      await store.insertProvider(aProvider());
      expect((await store.listProviders(organizationId)).map((p) => p.providerId)).toEqual([first.providerId, second.providerId]);
      expect(await store.listProviders(newId())).toEqual([]);
    });

    it("updates the fields a patch names and keeps the others", async () => {
      const provider = aProvider();
      await store.insertProvider(provider);
      const oidc = { ...provider.oidc!, clientId: "client-5678", scopes: ["openid"] };
      const updated = await store.updateProvider(provider.providerId, { enabled: false, issuer: "https://other.example.com", oidc, updatedAt: at(5000) });
      expect(updated).toEqual({ ...provider, enabled: false, issuer: "https://other.example.com", oidc, updatedAt: at(5000) });
      expect(await store.getProvider(provider.providerId)).toEqual(updated);
      expect(await store.updateProvider("nobody", { enabled: false })).toBeNull();
    });

    it("refuses to move a provider to a domain another one uses", async () => {
      const a = aProvider();
      const b = aProvider();
      await store.insertProvider(a);
      await store.insertProvider(b);
      expect(await errorCode(store.updateProvider(b.providerId, { domain: a.domain }))).toBe("THIS_DOMAIN_IS_ALREADY_USED_BY_ANOTHER_SSO_PROVIDER");
      expect((await store.getProvider(b.providerId))?.domain).toBe(b.domain);
    });

    it("deletes a provider once", async () => {
      const provider = aProvider();
      await store.insertProvider(provider);
      expect(await store.deleteProvider(provider.providerId)).toBe(true);
      expect(await store.deleteProvider(provider.providerId)).toBe(false);
      expect(await store.getProvider(provider.providerId)).toBeNull();
      // The domain is free again.
      await store.insertProvider(aProvider({ domain: provider.domain }));
    });
  });
}
