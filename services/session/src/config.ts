/** The session service's configuration, from the environment (docs/configuration.md). */
import * as z from "zod";
import { env, loadConfig, secretFromEnv } from "@auth-platform/runtime/config";
import { type RedisConnection, redisFromEnv } from "@auth-platform/runtime/redis-connection";
import { type GrpcServerSettings, grpcServerFromEnv } from "@auth-platform/runtime/grpc-transport";

const schema = z.object({
  LOG_LEVEL: env.logLevel(),
  SESSION_PORT: env.port(50052),
  SESSION_DATABASE_URL: z.string().min(1).default("file:data/session.db"),
  REDIS_KEY_PREFIX: z.string().default("auth:"),
  SESSION_EXPIRES_IN: env.seconds(604_800),
  SESSION_UPDATE_AGE: env.seconds(86_400),
  SESSION_CACHE_LEASE_MS: z.coerce.number().int().min(500).max(60_000).default(2_000),
  // Entries live at most an hour in the cache; serving them longer than that is not possible anyway.
  SESSION_CACHE_STALE_SERVE_SECONDS: z.coerce.number().int().min(0).max(3_600).default(300),
  NODE_ENV: z.string().default("development"),
});

export interface SessionConfig {
  logLevel: "debug" | "info" | "warn" | "error";
  port: number;
  /** GRPC_TLS_DIR / GRPC_INSECURE, GRPC_HOST, GRPC_HEALTH_PORT (the server and its clients). */
  grpc: GrpcServerSettings;
  databaseUrl: string;
  /** REDIS_URL with its credentials and TLS settings (redis-connection.ts); unset: process memory. */
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
}

/** rememberMe false gives a one-day session (docs/http-api/sessions.md). */
export const SHORT_SESSION_SECONDS = 86_400;

export function sessionConfig(source: Record<string, string | undefined>): SessionConfig {
  const c = loadConfig(schema, source);
  const { secret, isDefault } = secretFromEnv(source);
  return {
    logLevel: c.LOG_LEVEL,
    port: c.SESSION_PORT,
    grpc: grpcServerFromEnv(source),
    databaseUrl: c.SESSION_DATABASE_URL,
    redis: redisFromEnv(source),
    redisKeyPrefix: c.REDIS_KEY_PREFIX,
    expiresInSeconds: c.SESSION_EXPIRES_IN,
    updateAgeSeconds: c.SESSION_UPDATE_AGE,
    secret,
    secretIsDefault: isDefault,
    cacheLeaseMs: c.SESSION_CACHE_LEASE_MS,
    cacheStaleServeSeconds: c.SESSION_CACHE_STALE_SERVE_SECONDS,
    production: c.NODE_ENV === "production",
  };
}
