/** SSO records -> contract messages: never a client secret, sealed or not. */
import type { Provider } from "@auth-platform/proto/gen/auth/sso/v1/sso";
import type { ProviderRecord } from "../store/sso-store.js";

export function toProviderMessage(p: ProviderRecord): Provider {
  const o = p.oidc;
  return {
    providerId: p.providerId,
    type: p.type,
    issuer: p.issuer,
    domain: p.domain,
    domainVerified: p.domainVerified,
    organizationId: p.organizationId,
    enabled: p.enabled,
    defaultRole: p.defaultRole,
    userId: p.userId,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
    oidcConfig: o
      ? {
          discoveryEndpoint: o.discoveryEndpoint,
          clientIdLastFour: o.clientId.slice(-4),
          pkce: o.pkce,
          authorizationEndpoint: o.authorizationEndpoint ?? undefined,
          tokenEndpoint: o.tokenEndpoint ?? undefined,
          userInfoEndpoint: o.userInfoEndpoint ?? undefined,
          jwksEndpoint: o.jwksEndpoint ?? undefined,
          scopes: o.scopes,
          tokenEndpointAuthentication: o.tokenEndpointAuthentication,
          mapping: { ...o.mapping },
        }
      : undefined,
  };
}
