/** The gateway's configuration, from the environment (docs/configuration.md). */
import * as z from "zod";
import { ConfigError, env, loadConfig, secretFromEnv } from "@auth-platform/runtime/config";
import { type RedisConnection, redisFromEnv } from "@auth-platform/runtime/redis-connection";
import { type GrpcTls, grpcTlsFromEnv } from "@auth-platform/runtime/grpc-transport";
import { DEFAULT_TRUSTED_PROXIES, trustedProxyList } from "./http/client-ip.js";

const ruleSchema = z.object({ window: z.number().int().positive(), max: z.number().int().positive() });
export type RateLimitRule = z.output<typeof ruleSchema>;

/**
 * 3 per 10 s on the credential paths (docs/http-api.md#rate-limits); the same on /two-factor/* (codes are guessable) and on
 * password reset (each request mails whatever address it names; the default rule let one client send 100
 * reset mails, to 100 addresses, every 10 s).
 */
const DEFAULT_RULES: Record<string, RateLimitRule> = {
  "/sign-in": { window: 10, max: 3 },
  "/sign-up": { window: 10, max: 3 },
  "/change-password": { window: 10, max: 3 },
  "/set-password": { window: 10, max: 3 },
  "/change-email": { window: 10, max: 3 },
  "/two-factor": { window: 10, max: 3 },
  "/forget-password": { window: 10, max: 3 },
  "/request-password-reset": { window: 10, max: 3 },
  "/reset-password": { window: 10, max: 3 },
  // Mail sign-in: /sign-in/magic-link and /sign-in/email-otp fall under /sign-in, the deprecated
  // /forget-password/email-otp under /forget-password.
  "/magic-link": { window: 10, max: 3 },
  "/email-otp": { window: 10, max: 3 },
  // A passkey sign-in (its options keep the default: the sign-in screen asks for them on every visit).
  "/passkey/verify-authentication": { window: 10, max: 3 },
  // SCIM: an IdP provisions in bursts from a few addresses (a first sync is one request per user), and every
  // request needs a bearer token of 256 random bits, so guessing is not what this limit is for.
  "/scim/v2": { window: 10, max: 1000 },
  // Each verification is a DNS lookup on the sso service's resolvers: a client clicking or scripting it
  // must not turn the platform into a DNS query pump (docs/adr/0073-domains-screen-and-its-guards.md).
  "/organization/verify-domain": { window: 60, max: 10 },
  "/sso/verify-domain": { window: 60, max: 10 },
  // Services verifying API keys call it per request of theirs; a key is 48 random characters, so guessing
  // is not what this limit is for (each key has its own limit besides: docs/adr/0075-api-keys.md).
  "/api-key/verify": { window: 10, max: 1000 },
};

/** Where the rate-limit counters live (docs/configuration.md, RATE_LIMIT_STORAGE). */
const RATE_LIMIT_STORAGES = ["memory", "redis", "database"] as const;
export type RateLimitStorage = (typeof RATE_LIMIT_STORAGES)[number];

const schema = z.object({
  LOG_LEVEL: env.logLevel(),
  PORT: env.port(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  AUTH_BASE_PATH: z
    .string()
    .regex(/^\/[^?#]*$/, "must be a path starting with /")
    .default("/api/auth"),
  AUTH_BASE_URL: env.optionalUrl(),
  AUTH_APP_URL: env.optionalUrl(),
  AUTH_TRUSTED_ORIGINS: env.list(),
  // Unset: loopback and private ranges; set but empty: no peer is a proxy (forwarded headers never count).
  AUTH_TRUSTED_PROXIES: z
    .string()
    .optional()
    .transform((value) =>
      value === undefined
        ? DEFAULT_TRUSTED_PROXIES
        : value
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean),
    )
    .superRefine((entries, ctx) => {
      try {
        trustedProxyList(entries);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message.replace(/^AUTH_TRUSTED_PROXIES: /, "") });
      }
    }),
  AUTH_CLIENT_IP_HEADERS: env.list().pipe(z.array(z.string().regex(/^[A-Za-z0-9-]+$/, "must be header names"))),
  AUTH_COOKIE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/)
    .default("better-auth"),
  REDIS_KEY_PREFIX: z.string().default("auth:"),
  RATE_LIMIT_ENABLED: env.bool(true),
  RATE_LIMIT_WINDOW: z.coerce.number().int().positive().default(10),
  RATE_LIMIT_MAX: z.coerce.number().int().positive().default(100),
  RATE_LIMIT_RULES: env.json(z.record(z.string().startsWith("/"), ruleSchema), DEFAULT_RULES),
  RATE_LIMIT_STORAGE: z.preprocess((value) => (value === "" ? undefined : value), z.enum(RATE_LIMIT_STORAGES).optional()),
  RATE_LIMIT_DATABASE_URL: z
    .string()
    .optional()
    .transform((value) => value || undefined)
    .refine((url) => !url || /^postgres(ql)?:\/\//.test(url), "must be a postgres:// or postgresql:// URL"),
  GATEWAY_BODY_LIMIT: z
    .string()
    .regex(/^\d+(b|kb|mb)?$/i)
    .default("1mb"),
  GATEWAY_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1).default(30_000),
  GATEWAY_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1).default(10_000),
  GATEWAY_SESSION_CACHE_SIZE: z.coerce.number().int().min(0).max(10_000_000).default(10_000),
  GATEWAY_SESSION_JWT_HEADER: env.bool(false),
  GATEWAY_FAILURE_BURST_THRESHOLD: z.coerce.number().int().min(2).max(10_000).default(5),
  GATEWAY_FAILURE_BURST_WINDOW_SECONDS: z.coerce.number().int().min(10).max(86_400).default(900),
  // The secret of a better-auth app whose sessions were imported: its signed cookies stay signed-in sessions.
  GATEWAY_IMPORTED_COOKIE_SECRET: z
    .string()
    .optional()
    .transform((value) => value || undefined),
  IDENTITY_SERVICE_URL: z.string().min(1).default("127.0.0.1:50051"),
  SESSION_SERVICE_URL: z.string().min(1).default("127.0.0.1:50052"),
  NOTIFICATION_SERVICE_URL: z.string().min(1).default("127.0.0.1:50056"),
  ORGANIZATION_SERVICE_URL: z.string().min(1).default("127.0.0.1:50054"),
  ADMIN_SERVICE_URL: z.string().min(1).default("127.0.0.1:50055"),
  OAUTH_SERVICE_URL: z.string().min(1).default("127.0.0.1:50053"),
  SSO_SERVICE_URL: z.string().min(1).default("127.0.0.1:50057"),
  NODE_ENV: z.string().default("development"),
  METRICS_PORT: z.preprocess((value) => (value === "" ? undefined : value), z.coerce.number().int().min(0).max(65535).optional()),
});

export interface GatewayConfig {
  logLevel: "debug" | "info" | "warn" | "error";
  port: number;
  /** The HTTP bind address. */
  host: string;
  basePath: string;
  baseUrl?: string;
  appUrl?: string;
  secret: string;
  secretIsDefault: boolean;
  trustedOrigins: string[];
  trustedProxies: string[];
  /** Single-value client-IP headers believed from a trusted proxy (AUTH_CLIENT_IP_HEADERS). */
  clientIpHeaders: string[];
  cookiePrefix: string;
  /** REDIS_URL (or a cluster, or Sentinel) with its credentials and TLS settings (redis-connection.ts); unset: process memory. */
  redis?: RedisConnection;
  redisKeyPrefix: string;
  rateLimit: {
    enabled: boolean;
    default: RateLimitRule;
    rules: Record<string, RateLimitRule>;
    storage: RateLimitStorage;
    /** RATE_LIMIT_DATABASE_URL, set exactly when the storage is the database; may hold a password. */
    databaseUrl?: string;
  };
  bodyLimit: string;
  /** Bounds on receiving one request: the whole of it (headers and body), and its headers alone. */
  timeouts: { requestMs: number; headersMs: number };
  /** Sessions the gateway keeps in its own memory, invalidated by the session service's pushes (0: none). */
  sessionCacheSize: number;
  /** GATEWAY_SESSION_JWT_HEADER: get-session answers a session JWT in `set-auth-jwt` (one signing call each). */
  sessionJwtHeader: boolean;
  /**
   * A failure burst (docs/adr/0032-security-events-reported-by-gateway.md): this many failed sign-ins (or
   * two-factor codes) of one account or IP within one window, reported once per window.
   */
  failureBurst: { threshold: number; windowMs: number };
  /**
   * GATEWAY_IMPORTED_COOKIE_SECRET: the better-auth secret whose session cookies (better-auth's signature
   * encoding) are accepted beside ours (docs/adr/0079-importing-a-better-auth-database.md).
   */
  importedCookieSecret?: string;
  identityServiceUrl: string;
  sessionServiceUrl: string;
  notificationServiceUrl: string;
  organizationServiceUrl: string;
  adminServiceUrl: string;
  oauthServiceUrl: string;
  ssoServiceUrl: string;
  /** GRPC_TLS_DIR / GRPC_INSECURE: how the gateway calls the services. */
  grpcTls: GrpcTls;
  /** The development mailbox route is mounted outside production (the outbox itself answers 404 under SMTP). */
  devMailbox: boolean;
  /** NODE_ENV=production: a Redis without credentials or TLS is warned about at start. */
  production: boolean;
  /** Port of the Prometheus /metrics endpoint (METRICS_PORT), bound on `host`, never under the base path. */
  metricsPort?: number;
}

export function gatewayConfig(source: Record<string, string | undefined>): GatewayConfig {
  const c = loadConfig(schema, source);
  const { secret, isDefault } = secretFromEnv(source);
  const redis = redisFromEnv(source);
  return {
    logLevel: c.LOG_LEVEL,
    port: c.PORT,
    host: c.HOST,
    basePath: c.AUTH_BASE_PATH.replace(/\/+$/, "") || "/",
    baseUrl: c.AUTH_BASE_URL,
    appUrl: c.AUTH_APP_URL,
    secret,
    secretIsDefault: isDefault,
    trustedOrigins: c.AUTH_TRUSTED_ORIGINS,
    trustedProxies: c.AUTH_TRUSTED_PROXIES,
    clientIpHeaders: c.AUTH_CLIENT_IP_HEADERS,
    cookiePrefix: c.AUTH_COOKIE_PREFIX,
    redis,
    redisKeyPrefix: c.REDIS_KEY_PREFIX,
    rateLimit: {
      enabled: c.RATE_LIMIT_ENABLED,
      default: { window: c.RATE_LIMIT_WINDOW, max: c.RATE_LIMIT_MAX },
      rules: c.RATE_LIMIT_RULES,
      ...rateLimitStorage(c.RATE_LIMIT_STORAGE, c.RATE_LIMIT_DATABASE_URL, redis !== undefined),
    },
    bodyLimit: c.GATEWAY_BODY_LIMIT,
    // Node requires the headers bound to be no longer than the whole request's.
    timeouts: { requestMs: c.GATEWAY_REQUEST_TIMEOUT_MS, headersMs: Math.min(c.GATEWAY_HEADERS_TIMEOUT_MS, c.GATEWAY_REQUEST_TIMEOUT_MS) },
    sessionCacheSize: c.GATEWAY_SESSION_CACHE_SIZE,
    sessionJwtHeader: c.GATEWAY_SESSION_JWT_HEADER,
    failureBurst: { threshold: c.GATEWAY_FAILURE_BURST_THRESHOLD, windowMs: c.GATEWAY_FAILURE_BURST_WINDOW_SECONDS * 1000 },
    importedCookieSecret: c.GATEWAY_IMPORTED_COOKIE_SECRET,
    identityServiceUrl: c.IDENTITY_SERVICE_URL,
    sessionServiceUrl: c.SESSION_SERVICE_URL,
    notificationServiceUrl: c.NOTIFICATION_SERVICE_URL,
    organizationServiceUrl: c.ORGANIZATION_SERVICE_URL,
    adminServiceUrl: c.ADMIN_SERVICE_URL,
    oauthServiceUrl: c.OAUTH_SERVICE_URL,
    ssoServiceUrl: c.SSO_SERVICE_URL,
    grpcTls: grpcTlsFromEnv(source),
    devMailbox: c.NODE_ENV !== "production",
    production: c.NODE_ENV === "production",
    metricsPort: c.METRICS_PORT,
  };
}

/** RATE_LIMIT_STORAGE, by default Redis when there is one, else process memory; refuses what cannot work. */
function rateLimitStorage(storage: RateLimitStorage | undefined, databaseUrl: string | undefined, hasRedis: boolean): { storage: RateLimitStorage; databaseUrl?: string } {
  const chosen = storage ?? (hasRedis ? "redis" : "memory");
  if (chosen === "database" && !databaseUrl) throw new ConfigError(["RATE_LIMIT_DATABASE_URL: required with RATE_LIMIT_STORAGE=database (a postgres:// URL)"]);
  if (chosen !== "database" && databaseUrl) throw new ConfigError([`RATE_LIMIT_DATABASE_URL: only with RATE_LIMIT_STORAGE=database (the counters are in ${chosen})`]);
  if (chosen === "redis" && !hasRedis) throw new ConfigError(["RATE_LIMIT_STORAGE: redis needs REDIS_URL"]);
  return chosen === "database" ? { storage: chosen, databaseUrl } : { storage: chosen };
}
