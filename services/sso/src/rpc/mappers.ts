/** SSO records -> contract messages: never a client secret, sealed or not. */
import type { Provider } from "@auth-platform/proto/gen/auth/sso/v1/sso";
import { samlConfigMessage } from "../saml/messages.js";
import { readSamlSettings } from "../saml/settings.js";
import type { ProviderRecord } from "../store/sso-store.js";

/** `baseUrl`: the public `.../api/auth`, from which the OIDC redirect URI and a SAML provider's SP values derive. */
export function toProviderMessage(p: ProviderRecord, baseUrl: string): Provider {
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
    redirectUri: o ? `${baseUrl}/sso/callback/${encodeURIComponent(p.providerId)}` : "",
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
    samlConfig: p.saml ? samlConfigMessage(baseUrl, p.providerId, readSamlSettings(p.saml)) : undefined,
  };
}
