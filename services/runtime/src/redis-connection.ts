/**
 * How a process reaches Redis (REDIS_URL and its companions), read by the config loader of each process that
 * uses it (gateway, session). Redis is an authorisation input: the session cache says who a request is, and
 * its tombstones end revoked sessions. The entries carry a MAC (cache-mac.ts), so a writer without AUTH_SECRET
 * cannot forge one; credentials (an ACL user and password) and TLS are what stop anyone who reaches the port
 * or the network path from reading the cache, deleting tombstones or flushing it (docs/configuration.md, "Redis").
 */
import { readFileSync } from "node:fs";
import type { RedisOptions } from "ioredis";
import * as z from "zod";
import { ConfigError, env, loadConfig } from "./config.js";

export interface RedisConnection {
  /** redis:// or rediss:// (TLS); may hold the user and password, so it is never logged. */
  url: string;
  /** The ACL user and password when given apart from the URL (REDIS_USERNAME, REDIS_PASSWORD). */
  username?: string;
  password?: string;
  /** PEM of the CA that signs the server's certificate (REDIS_TLS_CA_FILE); unset: Node's trusted CAs. */
  ca?: string;
}

const schema = z.object({
  REDIS_URL: env.optionalUrl().refine((url) => !url || /^rediss?:\/\//.test(url), "must start with redis:// or rediss:// (TLS)"),
  REDIS_USERNAME: z.string().optional(),
  REDIS_PASSWORD: z.string().optional(),
  REDIS_TLS_CA_FILE: z.string().optional(),
});

/** The Redis settings, or undefined without REDIS_URL (the process then keeps its cache in memory). */
export function redisFromEnv(source: Record<string, string | undefined>): RedisConnection | undefined {
  const c = loadConfig(schema, source);
  const username = c.REDIS_USERNAME || undefined;
  const password = c.REDIS_PASSWORD || undefined;
  const caFile = c.REDIS_TLS_CA_FILE || undefined;
  if (!c.REDIS_URL) {
    const orphans = Object.entries({ REDIS_USERNAME: username, REDIS_PASSWORD: password, REDIS_TLS_CA_FILE: caFile }).filter(([, value]) => value);
    if (orphans.length) throw new ConfigError(orphans.map(([name]) => `${name}: set without REDIS_URL`));
    return undefined;
  }
  const url = new URL(c.REDIS_URL);
  const problems: string[] = [];
  if ((username || password) && (url.username || url.password)) problems.push("REDIS_USERNAME / REDIS_PASSWORD: the URL already holds credentials (give them in one place)");
  if (username && !password) problems.push("REDIS_PASSWORD: required with REDIS_USERNAME (an ACL user signs in with its password)");
  if (caFile && url.protocol !== "rediss:") problems.push("REDIS_TLS_CA_FILE: only with a rediss:// REDIS_URL (TLS)");
  let ca: string | undefined;
  if (caFile && !problems.length) {
    try {
      ca = readFileSync(caFile, "utf8");
    } catch (error) {
      problems.push(`REDIS_TLS_CA_FILE: cannot read ${caFile}: ${(error as Error).message}`);
    }
  }
  if (problems.length) throw new ConfigError(problems);
  return { url: c.REDIS_URL, username, password, ca };
}

/** The client options a connection adds to the URL (ioredis reads user, password and TLS from rediss:// itself). */
export function redisClientOptions(connection: RedisConnection): RedisOptions {
  return {
    ...(connection.username ? { username: connection.username } : {}),
    ...(connection.password ? { password: connection.password } : {}),
    ...(connection.ca ? { tls: { ca: connection.ca } } : {}),
  };
}

/**
 * What a process warns about at start in production: a Redis without credentials (anyone who reaches it reads
 * and flushes the cache), or reached in plaintext away from loopback (the network path sees and can alter it).
 */
export function redisWarnings(connection: RedisConnection | undefined, production: boolean): string[] {
  if (!connection || !production) return [];
  const url = new URL(connection.url);
  const warnings: string[] = [];
  if (!connection.password && !url.password)
    warnings.push("Redis without a password (REDIS_PASSWORD or in REDIS_URL): anyone who reaches it can read the session cache, delete revocations and flush it");
  const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
  if (url.protocol !== "rediss:" && !loopback) warnings.push("REDIS_URL is not rediss://: the session cache and credentials cross the network in plaintext");
  return warnings;
}
