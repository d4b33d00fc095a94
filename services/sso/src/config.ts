/** The sso service's configuration, from the environment (docs/configuration.md, docs/sso.md). */
import * as z from "zod";
import { env, loadConfig, secretFromEnv } from "@auth-platform/runtime/config";
import { type GrpcServerSettings, grpcServerFromEnv } from "@auth-platform/runtime/grpc-transport";
import { type DomainSettings, domainSettings } from "./domains/config.js";

const schema = z.object({
  LOG_LEVEL: env.logLevel(),
  SSO_PORT: env.port(50057),
  SSO_DATABASE_URL: z.string().min(1).default("file:data/sso.db"),
  IDENTITY_SERVICE_URL: z.string().min(1).default("127.0.0.1:50051"),
  ORGANIZATION_SERVICE_URL: z.string().min(1).default("127.0.0.1:50054"),
  AUTH_BASE_URL: env.optionalUrl(),
  SSO_MANAGER_ROLES: env.list(),
  SSO_TRUSTED_DOMAINS: env.list(),
  SSO_ALLOW_PRIVATE_ADDRESSES: env.bool(false),
  SSO_HTTP_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
});

export interface SsoConfig extends DomainSettings {
  logLevel: "debug" | "info" | "warn" | "error";
  port: number;
  /** GRPC_TLS_DIR / GRPC_INSECURE, GRPC_HOST, GRPC_HEALTH_PORT (the server and its clients). */
  grpc: GrpcServerSettings;
  databaseUrl: string;
  identityServiceUrl: string;
  organizationServiceUrl: string;
  /** Public URL of the API: an OpenID Connect provider's redirect URI is `<baseUrl>/sso/callback/<providerId>`. */
  baseUrl: string;
  /** AUTH_SECRET: the key that seals client secrets at rest is derived from it. */
  secret: string;
  /** The organization roles that may manage the organization's providers (default owner and admin). */
  managerRoles: string[];
  /**
   * Domains a provider's domain routes sign-in for without a verified-domain record: set by the operator
   * (docs/adr/0068-a-domain-routes-sign-in-once-verified.md). "*" trusts every domain (a single-tenant install).
   */
  trustedDomains: string[];
  /** Lets discovery and the token exchange reach loopback and private addresses (tests, an IdP on the LAN). */
  allowPrivateAddresses: boolean;
  httpTimeoutMs: number;
}

export function ssoConfig(source: Record<string, string | undefined>): SsoConfig {
  const c = loadConfig(schema, source);
  return {
    logLevel: c.LOG_LEVEL,
    port: c.SSO_PORT,
    grpc: grpcServerFromEnv(source),
    databaseUrl: c.SSO_DATABASE_URL,
    identityServiceUrl: c.IDENTITY_SERVICE_URL,
    organizationServiceUrl: c.ORGANIZATION_SERVICE_URL,
    baseUrl: (c.AUTH_BASE_URL ?? "http://localhost:3000/api/auth").replace(/\/+$/, ""),
    secret: secretFromEnv(source).secret,
    managerRoles: c.SSO_MANAGER_ROLES.length ? c.SSO_MANAGER_ROLES : ["owner", "admin"],
    trustedDomains: c.SSO_TRUSTED_DOMAINS.map((d) => d.toLowerCase()),
    allowPrivateAddresses: c.SSO_ALLOW_PRIVATE_ADDRESSES,
    httpTimeoutMs: c.SSO_HTTP_TIMEOUT_MS,
    ...domainSettings(source),
  };
}
