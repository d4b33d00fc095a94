/** The session service's configuration, from the environment (docs/configuration.md). */
import * as z from "zod";
import { ConfigError, env, loadConfig, secretFromEnv } from "@auth-platform/runtime/config";
import { type RedisConnection, redisFromEnv } from "@auth-platform/runtime/redis-connection";
import { type GrpcServerSettings, grpcServerFromEnv } from "@auth-platform/runtime/grpc-transport";

/** The signing algorithms a session JWT may use: Ed25519 (default), P-256, RSA 2048. */
export const JWT_ALGORITHMS = ["EdDSA", "ES256", "RS256"] as const;
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];

/** Seconds a key is published before it signs beyond SESSION_JWKS_MAX_AGE, and kept after its last token expires. */
export const JWT_KEY_MARGIN_SECONDS = 60;

const schema = z.object({
  LOG_LEVEL: env.logLevel(),
  SESSION_PORT: env.port(50052),
  SESSION_DATABASE_URL: z.string().min(1).default("file:data/session.db"),
  // Webhook events go to the notification service (docs/adr/0077-signed-webhooks.md).
  NOTIFICATION_SERVICE_URL: z.string().min(1).default("127.0.0.1:50056"),
  REDIS_KEY_PREFIX: z.string().default("auth:"),
  SESSION_EXPIRES_IN: env.seconds(604_800),
  SESSION_UPDATE_AGE: env.seconds(86_400),
  SESSION_CACHE_LEASE_MS: z.coerce.number().int().min(500).max(60_000).default(2_000),
  // Entries live at most an hour in the cache; serving them longer than that is not possible anyway.
  SESSION_CACHE_STALE_SERVE_SECONDS: z.coerce.number().int().min(0).max(3_600).default(300),
  NODE_ENV: z.string().default("development"),
  // Session JWTs (docs/adr/0076-session-jwts-signed-by-the-session-service.md).
  AUTH_BASE_URL: env.optionalUrl(),
  SESSION_JWT_ALGORITHM: z.enum(JWT_ALGORITHMS).default("EdDSA"),
  SESSION_JWT_EXPIRES_IN: z.coerce.number().int().min(30).max(86_400).default(900),
  SESSION_JWT_AUDIENCE: z.string().trim().max(500).optional(),
  SESSION_JWT_ROTATION_SECONDS: z.coerce.number().int().min(60).max(31_536_000).default(2_592_000),
  SESSION_JWKS_MAX_AGE: z.coerce.number().int().min(0).max(86_400).default(300),
});

export interface SessionConfig {
  logLevel: "debug" | "info" | "warn" | "error";
  port: number;
  /** GRPC_TLS_DIR / GRPC_INSECURE, GRPC_HOST, GRPC_HEALTH_PORT (the server and its clients). */
  grpc: GrpcServerSettings;
  databaseUrl: string;
  /** NOTIFICATION_SERVICE_URL: where session.created and session.revoked are published. */
  notificationServiceUrl: string;
  /** REDIS_URL (or a cluster, or Sentinel) with its credentials and TLS settings (redis-connection.ts); unset: process memory. */
  redis?: RedisConnection;
  redisKeyPrefix: string;
  expiresInSeconds: number;
  updateAgeSeconds: number;
  /** AUTH_SECRET: the keys that hash and seal session tokens at rest are derived from it. */
  secret: string;
  secretIsDefault: boolean;
  /** How long one cache lease lasts; a revocation Redis cannot take waits this long (plus a margin). */
  cacheLeaseMs: number;
  /**
   * How long get-session keeps answering from the cache entries it holds while the store is out of reach
   * (read-only: no refresh, no new session); 0 turns it off.
   */
  cacheStaleServeSeconds: number;
  /** NODE_ENV=production: a Redis without credentials or TLS is warned about at start. */
  production: boolean;
  /** Session JWTs (GET /token) and the key set that verifies them (GET /jwks). */
  jwt: {
    /** SESSION_JWT_ALGORITHM: what new keys are. */
    algorithm: JwtAlgorithm;
    /** AUTH_BASE_URL (no trailing slash): the `iss` claim. */
    issuer: string;
    /** SESSION_JWT_AUDIENCE, else the issuer: the `aud` claim. */
    audience: string;
    /** SESSION_JWT_EXPIRES_IN: a token's lifetime. */
    expiresInSeconds: number;
    /** SESSION_JWT_ROTATION_SECONDS: how long one key signs. */
    rotationSeconds: number;
    /** SESSION_JWKS_MAX_AGE: how long a verifier may cache the key set (Cache-Control of GET /jwks). */
    jwksMaxAgeSeconds: number;
  };
}

/** rememberMe false gives a one-day session (docs/http-api/sessions.md). */
export const SHORT_SESSION_SECONDS = 86_400;

export function sessionConfig(source: Record<string, string | undefined>): SessionConfig {
  const c = loadConfig(schema, source);
  const { secret, isDefault } = secretFromEnv(source);
  // A key is published SESSION_JWKS_MAX_AGE (plus a margin) before it signs, within the previous key's period.
  if (c.SESSION_JWT_ROTATION_SECONDS <= 2 * (c.SESSION_JWKS_MAX_AGE + JWT_KEY_MARGIN_SECONDS)) {
    throw new ConfigError([
      `SESSION_JWT_ROTATION_SECONDS: must exceed twice SESSION_JWKS_MAX_AGE plus ${JWT_KEY_MARGIN_SECONDS} seconds (${2 * (c.SESSION_JWKS_MAX_AGE + JWT_KEY_MARGIN_SECONDS)})`,
    ]);
  }
  const issuer = (c.AUTH_BASE_URL ?? "http://localhost:3000/api/auth").replace(/\/+$/, "");
  return {
    logLevel: c.LOG_LEVEL,
    port: c.SESSION_PORT,
    grpc: grpcServerFromEnv(source),
    databaseUrl: c.SESSION_DATABASE_URL,
    notificationServiceUrl: c.NOTIFICATION_SERVICE_URL,
    redis: redisFromEnv(source),
    redisKeyPrefix: c.REDIS_KEY_PREFIX,
    expiresInSeconds: c.SESSION_EXPIRES_IN,
    updateAgeSeconds: c.SESSION_UPDATE_AGE,
    secret,
    secretIsDefault: isDefault,
    cacheLeaseMs: c.SESSION_CACHE_LEASE_MS,
    cacheStaleServeSeconds: c.SESSION_CACHE_STALE_SERVE_SECONDS,
    production: c.NODE_ENV === "production",
    jwt: {
      algorithm: c.SESSION_JWT_ALGORITHM,
      issuer,
      audience: c.SESSION_JWT_AUDIENCE || issuer,
      expiresInSeconds: c.SESSION_JWT_EXPIRES_IN,
      rotationSeconds: c.SESSION_JWT_ROTATION_SECONDS,
      jwksMaxAgeSeconds: c.SESSION_JWKS_MAX_AGE,
    },
  };
}
