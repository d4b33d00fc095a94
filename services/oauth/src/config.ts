/** The oauth service's configuration, from the environment (docs/configuration.md, docs/social-sign-in.md). */
import * as z from "zod";
import { env, loadConfig } from "@auth-platform/runtime/config";
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
  };
}
