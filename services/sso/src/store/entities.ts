/** The sso service's tables; provider settings are JSON text (the OIDC ones hold the sealed client secret). */
import { defineEntity, p } from "@mikro-orm/core";

export const ProviderEntity = defineEntity({
  name: "SsoProvider",
  tableName: "sso_provider",
  properties: {
    providerId: p.string().primary(),
    organizationId: p.string(),
    type: p.string(),
    issuer: p.text(),
    domain: p.string().unique(),
    domainVerified: p.boolean(),
    enabled: p.boolean(),
    defaultRole: p.string(),
    userId: p.string(),
    oidcConfig: p.text().nullable(),
    samlConfig: p.text().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

export type ProviderRow = InstanceType<typeof ProviderEntity.class>;

/** An OpenID Connect sign-in between the redirect and the callback (single use, 10 minutes). */
export const OidcStateEntity = defineEntity({
  name: "SsoOidcState",
  tableName: "sso_oidc_state",
  properties: {
    state: p.string().primary(),
    providerId: p.string(),
    codeVerifier: p.string(),
    nonce: p.string(),
    callbackUrl: p.text(),
    errorUrl: p.text().nullable(),
    newUserUrl: p.text().nullable(),
    expiresAt: p.datetime(),
  },
});
