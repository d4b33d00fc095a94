/** The checks on request fields every caller gets (the gateway checks shapes too): a bad one is VALIDATION_ERROR naming it. */
import { AuthError } from "@auth-platform/proto/errors";
import type { ClaimMapping as ClaimMessage, OidcInput as OidcMessage } from "@auth-platform/proto/gen/auth/sso/v1/sso";
import type { OidcInput } from "../domain/providers.js";

const PROVIDER_ID = /^[A-Za-z0-9_-]{1,64}$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const ROLE = /^[a-z][a-z0-9_-]{0,31}(,[a-z][a-z0-9_-]{0,31})*$/;
const CLAIM = /^[A-Za-z0-9_.:-]{1,255}$/;
const MAX_URL = 2048;

export function providerId(value: string): string {
  if (!PROVIDER_ID.test(value)) throw new AuthError("VALIDATION_ERROR", "providerId must be 1 to 64 letters, digits, '-' or '_'");
  return value;
}

export function domain(value: string): string {
  const lower = value.trim().toLowerCase();
  if (!DOMAIN.test(lower)) throw new AuthError("VALIDATION_ERROR", "domain must be a domain name such as example.com");
  return lower;
}

/** An address to route by its domain: one "@", a domain after it. */
export function email(value: string): string {
  const at = value.lastIndexOf("@");
  if (value.length > 254 || at < 1) throw new AuthError("VALIDATION_ERROR", "email must be an email address");
  domain(value.slice(at + 1));
  return value.trim();
}

export function url(name: string, value: string): string {
  if (value.length > MAX_URL || !URL.canParse(value) || !["https:", "http:"].includes(new URL(value).protocol)) {
    throw new AuthError("VALIDATION_ERROR", `${name} must be an absolute https URL`);
  }
  return value;
}

const optionalUrl = (name: string, value: string | undefined) => (value === undefined || value === "" ? undefined : url(name, value));

export function role(value: string): string {
  if (!ROLE.test(value)) throw new AuthError("VALIDATION_ERROR", "defaultRole must be a role name");
  return value;
}

export function id(name: string, value: string): string {
  if (!value || value.length > 64) throw new AuthError("VALIDATION_ERROR", `${name} is required`);
  return value;
}

function mapping(message: ClaimMessage | undefined): Partial<ClaimMapping> | undefined {
  if (!message) return undefined;
  const out: Partial<ClaimMapping> = {};
  for (const key of ["id", "email", "emailVerified", "name", "image"] as const) {
    const claim = message[key];
    if (!claim) continue;
    if (!CLAIM.test(claim)) throw new AuthError("VALIDATION_ERROR", `oidcConfig.mapping.${key} must be a claim name`);
    out[key] = claim;
  }
  return out;
}

type ClaimMapping = { id: string; email: string; emailVerified: string; name: string; image: string };

export function oidc(message: OidcMessage): OidcInput {
  const text = (name: string, value: string | undefined, max: number) => {
    if (value === undefined) return undefined;
    if (!value.trim() || value.length > max) throw new AuthError("VALIDATION_ERROR", `oidcConfig.${name} must be 1 to ${max} characters`);
    return value.trim();
  };
  if (message.scopes.length > 30 || message.scopes.some((s) => !/^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/.test(s))) {
    throw new AuthError("VALIDATION_ERROR", "oidcConfig.scopes must be at most 30 scope tokens");
  }
  const auth = message.tokenEndpointAuthentication;
  if (auth !== undefined && auth !== "client_secret_post" && auth !== "client_secret_basic") {
    throw new AuthError("VALIDATION_ERROR", "oidcConfig.tokenEndpointAuthentication must be client_secret_post or client_secret_basic");
  }
  return {
    clientId: text("clientId", message.clientId, 512),
    clientSecret: text("clientSecret", message.clientSecret, 4096),
    discoveryEndpoint: optionalUrl("oidcConfig.discoveryEndpoint", message.discoveryEndpoint),
    authorizationEndpoint: optionalUrl("oidcConfig.authorizationEndpoint", message.authorizationEndpoint),
    tokenEndpoint: optionalUrl("oidcConfig.tokenEndpoint", message.tokenEndpoint),
    userInfoEndpoint: optionalUrl("oidcConfig.userInfoEndpoint", message.userInfoEndpoint),
    jwksEndpoint: optionalUrl("oidcConfig.jwksEndpoint", message.jwksEndpoint),
    scopes: message.setScopes ? message.scopes : undefined,
    pkce: message.pkce,
    tokenEndpointAuthentication: auth,
    mapping: mapping(message.mapping),
  };
}
