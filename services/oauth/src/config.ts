/** The oauth service's configuration, from the environment (docs/configuration.md, docs/social-sign-in.md). */
import * as z from "zod";
import { ConfigError, env, loadConfig } from "@auth-platform/runtime/config";
import { type GrpcServerSettings, grpcServerFromEnv } from "@auth-platform/runtime/grpc-transport";
import { PROVIDER_IDS, type ProviderId } from "./providers/catalogue.js";

const schema = z.object({
  LOG_LEVEL: env.logLevel(),
  OAUTH_PORT: env.port(50053),
  OAUTH_DATABASE_URL: z.string().min(1).default("file:data/oauth.db"),
  IDENTITY_SERVICE_URL: z.string().min(1).default("127.0.0.1:50051"),
  AUTH_BASE_URL: env.optionalUrl(),
  OAUTH_TRUSTED_PROVIDERS: env.list(),
  OAUTH_DISABLE_IMPLICIT_LINKING: env.bool(false),
  OAUTH_HTTP_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
});

/** Endpoint overrides every provider takes: `<PROVIDER>_<NAME>` (GitHub Enterprise, self-hosted GitLab, tests). */
export const ENDPOINT_NAMES = ["ISSUER", "AUTHORIZATION_URL", "TOKEN_URL", "USERINFO_URL", "JWKS_URL", "EMAILS_URL", "PHOTO_URL", "TOKENINFO_URL"] as const;
type EndpointName = (typeof ENDPOINT_NAMES)[number];

export interface ProviderSettings {
  clientId: string;
  clientSecret: string;
  /** Scopes asked for beyond the provider's defaults (`<PROVIDER>_SCOPES`, comma-separated). */
  scopes: string[];
  endpoints: Partial<Record<EndpointName, string>>;
}

export interface OAuthConfig {
  logLevel: "debug" | "info" | "warn" | "error";
  port: number;
  /** GRPC_TLS_DIR / GRPC_INSECURE, GRPC_HOST, GRPC_HEALTH_PORT (the server and its clients). */
  grpc: GrpcServerSettings;
  databaseUrl: string;
  identityServiceUrl: string;
  /** Public URL of the API: redirect URIs are `<baseUrl>/callback/<provider>`. */
  baseUrl: string;
  /** Providers whose accounts link into an existing user with the same email even unverified by them. */
  trustedProviders: string[];
  disableImplicitLinking: boolean;
  httpTimeoutMs: number;
  /** The configured providers (both client id and secret set); the others are not offered. */
  providers: Partial<Record<ProviderId, ProviderSettings>>;
  /** Any OpenID Connect or OAuth 2 provider the operator named in OAUTH_GENERIC_PROVIDERS (docs/social-sign-in.md). */
  genericProviders: GenericProviderSettings[];
}

/** The profile fields a generic provider's claims (or user info) map to, by claim name (a dotted path reads nested objects). */
export interface ClaimMapping {
  id: string;
  email: string;
  emailVerified: string;
  name: string;
  picture: string;
}

export interface GenericProviderSettings extends ProviderSettings {
  id: string;
  /** The name the sign-in screen shows. */
  displayName: string;
  /** OpenID Connect (an issuer to discover, id tokens verified) or plain OAuth 2 (explicit endpoints, user info). */
  kind: "oidc" | "oauth2";
  pkce: boolean;
  clientAuth: "post" | "basic";
  claims: ClaimMapping;
}

/** A generic provider's id: lower-case letters, digits and hyphens (its variables' names are made from it). */
const GENERIC_ID = /^[a-z][a-z0-9-]{0,31}$/;
/** Ids a generic provider cannot take: the built-in providers' and the password account's. */
const RESERVED_IDS = new Set<string>([...PROVIDER_IDS, "credential"]);
/** The endpoints a generic provider takes: an issuer to discover, or the three of plain OAuth 2 (and overrides of discovered ones). */
const GENERIC_ENDPOINTS = ["ISSUER", "AUTHORIZATION_URL", "TOKEN_URL", "USERINFO_URL", "JWKS_URL"] as const;
const DEFAULT_CLAIMS: ClaimMapping = { id: "sub", email: "email", emailVerified: "email_verified", name: "name", picture: "picture" };
const CLAIM_VARIABLES: Record<keyof ClaimMapping, string> = {
  id: "CLAIM_ID",
  email: "CLAIM_EMAIL",
  emailVerified: "CLAIM_EMAIL_VERIFIED",
  name: "CLAIM_NAME",
  picture: "CLAIM_PICTURE",
};

/** `OAUTH_GENERIC_<ID>_`: the prefix of a generic provider's variables (`my-idp` -> `OAUTH_GENERIC_MY_IDP_`). */
export const genericPrefix = (id: string) => `OAUTH_GENERIC_${id.toUpperCase().replace(/-/g, "_")}_`;

const genericSchema = (p: string) =>
  z.object({
    [`${p}CLIENT_ID`]: z.string().trim().min(1, "required for a provider listed in OAUTH_GENERIC_PROVIDERS"),
    [`${p}CLIENT_SECRET`]: z.string().trim().min(1, "required for a provider listed in OAUTH_GENERIC_PROVIDERS"),
    [`${p}NAME`]: z.string().trim().max(64).optional(),
    [`${p}SCOPES`]: env.list(),
    [`${p}PKCE`]: env.bool(true),
    [`${p}CLIENT_AUTH`]: z.enum(["post", "basic"]).default("post"),
    ...Object.fromEntries(
      GENERIC_ENDPOINTS.map((name) => [
        `${p}${name}`,
        z
          .string()
          .trim()
          .url()
          .optional()
          .or(z.literal("").transform(() => undefined)),
      ]),
    ),
    ...Object.fromEntries(Object.values(CLAIM_VARIABLES).map((name) => [`${p}${name}`, z.string().trim().max(255).optional()])),
  });

function genericProvider(id: string, source: Record<string, string | undefined>): GenericProviderSettings {
  const p = genericPrefix(id);
  const c = loadConfig(genericSchema(p), source) as Record<string, unknown>;
  const endpoints: ProviderSettings["endpoints"] = {};
  for (const name of GENERIC_ENDPOINTS) if (c[`${p}${name}`]) endpoints[name] = c[`${p}${name}`] as string;
  // Codes, tokens and profiles travel to these endpoints: HTTPS, or plain HTTP to this machine (a test provider).
  const insecure = Object.entries(endpoints).filter(([, url]) => {
    const { protocol, hostname } = new URL(url);
    return protocol !== "https:" && !(protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(hostname));
  });
  if (insecure.length) throw new ConfigError(insecure.map(([name]) => `${p}${name}: must be an https: URL (http: only to 127.0.0.1 or localhost)`));
  const kind = endpoints.ISSUER ? "oidc" : "oauth2";
  if (kind === "oauth2") {
    const missing = (["AUTHORIZATION_URL", "TOKEN_URL", "USERINFO_URL"] as const).filter((name) => !endpoints[name]).map((name) => `${p}${name}`);
    if (missing.length) throw new ConfigError(missing.map((name) => `${name}: required without ${p}ISSUER (plain OAuth 2 takes the authorization, token and user-info endpoints)`));
  }
  const scopes = c[`${p}SCOPES`] as string[];
  const claims = { ...DEFAULT_CLAIMS };
  for (const [field, name] of Object.entries(CLAIM_VARIABLES) as [keyof ClaimMapping, string][]) {
    const value = c[`${p}${name}`] as string | undefined;
    if (value) claims[field] = value;
  }
  return {
    id,
    displayName: (c[`${p}NAME`] as string | undefined) || id,
    kind,
    clientId: c[`${p}CLIENT_ID`] as string,
    clientSecret: c[`${p}CLIENT_SECRET`] as string,
    // OpenID Connect always asks for openid; without configured scopes, for the profile and address too.
    scopes: kind === "oidc" ? [...new Set(["openid", ...(scopes.length ? scopes : ["email", "profile"])])] : scopes,
    endpoints,
    pkce: c[`${p}PKCE`] as boolean,
    clientAuth: c[`${p}CLIENT_AUTH`] as "post" | "basic",
    claims,
  };
}

/** The generic providers OAUTH_GENERIC_PROVIDERS names, each read from its `OAUTH_GENERIC_<ID>_` variables. */
function genericProviders(source: Record<string, string | undefined>): GenericProviderSettings[] {
  const ids = loadConfig(z.object({ OAUTH_GENERIC_PROVIDERS: env.list() }), source).OAUTH_GENERIC_PROVIDERS;
  const problems: string[] = [];
  for (const id of ids) {
    if (!GENERIC_ID.test(id)) problems.push(`OAUTH_GENERIC_PROVIDERS: "${id}" is not a provider id (lower-case letters, digits and hyphens, at most 32)`);
    else if (RESERVED_IDS.has(id))
      problems.push(`OAUTH_GENERIC_PROVIDERS: "${id}" is a built-in provider's id; configure it with ${id.toUpperCase()}_CLIENT_ID instead or choose another id`);
  }
  if (new Set(ids).size !== ids.length) problems.push("OAUTH_GENERIC_PROVIDERS: an id is listed twice");
  if (problems.length) throw new ConfigError(problems);
  return ids.map((id) => genericProvider(id, source));
}

/** The social sign-in state lives 10 minutes (docs/http-api.md#limits-and-defaults). */
export const STATE_TTL_MS = 10 * 60_000;

export function oauthConfig(source: Record<string, string | undefined>): OAuthConfig {
  const c = loadConfig(schema, source);
  const providers: OAuthConfig["providers"] = {};
  for (const id of PROVIDER_IDS) {
    const prefix = id.toUpperCase();
    const clientId = source[`${prefix}_CLIENT_ID`]?.trim();
    const clientSecret = source[`${prefix}_CLIENT_SECRET`]?.trim();
    if (!clientId || !clientSecret) continue;
    const endpoints: ProviderSettings["endpoints"] = {};
    for (const name of ENDPOINT_NAMES) {
      const value = source[`${prefix}_${name}`]?.trim();
      if (value) endpoints[name] = loadConfig(z.object({ [`${prefix}_${name}`]: z.string().url() }), { [`${prefix}_${name}`]: value })[`${prefix}_${name}`] as string;
    }
    const scopes = (source[`${prefix}_SCOPES`] ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    providers[id] = { clientId, clientSecret, scopes, endpoints };
  }
  return {
    logLevel: c.LOG_LEVEL,
    port: c.OAUTH_PORT,
    grpc: grpcServerFromEnv(source),
    databaseUrl: c.OAUTH_DATABASE_URL,
    identityServiceUrl: c.IDENTITY_SERVICE_URL,
    baseUrl: (c.AUTH_BASE_URL ?? "http://localhost:3000/api/auth").replace(/\/+$/, ""),
    trustedProviders: c.OAUTH_TRUSTED_PROVIDERS,
    disableImplicitLinking: c.OAUTH_DISABLE_IMPLICIT_LINKING,
    httpTimeoutMs: c.OAUTH_HTTP_TIMEOUT_MS,
    providers,
    genericProviders: genericProviders(source),
  };
}
