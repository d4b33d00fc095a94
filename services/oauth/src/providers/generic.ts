/**
 * A generic provider (docs/adr/0063-generic-oauth-providers.md): any OpenID Connect provider (discovery,
 * id token verified like Google's) or plain OAuth 2 provider (explicit endpoints, user info), as one more
 * definition of the catalogue's shape, so sign-in, linking and tokens run the built-in providers' code.
 */
import type { ClaimMapping, GenericProviderSettings } from "../config.js";
import type { ProfileContext, ProviderDefinition } from "./catalogue.js";
import { type Json, flag, str } from "./http.js";

/** The claim at a name; a dotted name (`data.email`) reads nested objects. */
function claimAt(source: Json, name: string): unknown {
  if (Object.hasOwn(source, name)) return source[name];
  let value: unknown = source;
  for (const part of name.split(".")) {
    // Own fields only: a claim named after an Object.prototype member is absent, not that member.
    if (!value || typeof value !== "object" || Array.isArray(value) || !Object.hasOwn(value, part)) return undefined;
    value = (value as Json)[part];
  }
  return value;
}

/** Maps the provider's claims to a profile; no id, no profile. The default id claim `sub` falls back to `id` (plain OAuth 2 user info). */
export function mapClaims(raw: Json, claims: ClaimMapping) {
  const accountId = str(claimAt(raw, claims.id)) ?? (claims.id === "sub" ? str(raw.id) : undefined);
  if (!accountId) return null;
  return {
    accountId,
    email: str(claimAt(raw, claims.email)) ?? null,
    // Only a true (or "true") claim vouches for the address: absent or anything else does not.
    emailVerified: flag(claimAt(raw, claims.emailVerified)),
    name: str(claimAt(raw, claims.name)) ?? str(raw.preferred_username) ?? "",
    image: str(claimAt(raw, claims.picture)) ?? null,
  };
}

export function genericDefinition(settings: GenericProviderSettings): ProviderDefinition {
  const oidc = settings.kind === "oidc";
  return {
    discovery: oidc,
    // Discovery fills the OpenID endpoints; a plain OAuth 2 provider's were all required by config.ts.
    endpoints: {
      issuer: settings.endpoints.ISSUER,
      authorization: settings.endpoints.AUTHORIZATION_URL ?? "",
      token: settings.endpoints.TOKEN_URL ?? "",
      userInfo: settings.endpoints.USERINFO_URL,
    },
    scopes: settings.scopes,
    pkce: settings.pkce,
    clientAuth: settings.clientAuth,
    verifyIdToken: oidc,
    idTokenIssuers: settings.endpoints.ISSUER ? [settings.endpoints.ISSUER] : undefined,
    async profile(ctx: ProfileContext) {
      const claims = ctx.claims ?? {};
      // The id token's claims suffice when they name the user and the address; else the user-info endpoint.
      const complete = claimAt(claims, settings.claims.id) !== undefined && claimAt(claims, settings.claims.email) !== undefined;
      if (oidc && complete) return { raw: claims, profile: mapClaims(claims, settings.claims) };
      if (!ctx.endpoints.userInfo || !ctx.accessToken) return { raw: claims, profile: oidc ? mapClaims(claims, settings.claims) : null };
      const info = await ctx.http.getJson(ctx.endpoints.userInfo, ctx.accessToken);
      // OpenID Connect Core 5.3.2: user info about another subject than the id token's is not the user's.
      if (oidc && ctx.claims && str(info.sub) !== str(ctx.claims.sub)) return { raw: info, profile: null };
      const raw = { ...claims, ...info };
      return { raw, profile: mapClaims(raw, settings.claims) };
    },
  };
}
