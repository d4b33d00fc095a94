/**
 * The one place that opens a Redis client (ioredis) for a connection read by redis-connection.ts. Only
 * modules that talk to Redis import it, and processes load those with import() when Redis is configured:
 * a process on its memory cache never loads ioredis (about 1.8 MiB of its heap; docs/adr/0027).
 */
import { Cluster, type ClusterOptions, Redis, type RedisOptions } from "ioredis";
import type { RedisConnection } from "./redis-connection.js";

/** The client options a connection adds to the URL (ioredis reads user, password and TLS from rediss:// itself). */
export function redisClientOptions(connection: RedisConnection): RedisOptions {
  return {
    ...(connection.username ? { username: connection.username } : {}),
    ...(connection.password ? { password: connection.password } : {}),
    ...(connection.ca ? { tls: { ca: connection.ca } } : connection.tls ? { tls: {} } : {}),
  };
}

/** A client of either kind: both take the same commands (a cluster routes each to the node of its key's slot). */
export type RedisClient = Redis | Cluster;

/**
 * Opens a client for the connection (a URL alone in tests and tools) with the caller's options. On Sentinel the
 * client asks the sentinels for the primary, and reconnects (asking again) when the node it holds answers
 * READONLY, i.e. was demoted by a failover. On a cluster, `enableOfflineQueue` and `keyPrefix` are the cluster's.
 */
export function createRedisClient(connection: RedisConnection | string, options: RedisOptions = {}): RedisClient {
  const settings: RedisConnection = typeof connection === "string" ? { url: connection } : connection;
  const base = { ...redisClientOptions(settings), ...options };
  if (settings.url) return new Redis(settings.url, base);
  if (settings.sentinel) {
    return new Redis({
      ...base,
      sentinels: settings.sentinel.nodes,
      name: settings.sentinel.name,
      ...(base.tls ? { enableTLSForSentinelMode: true, sentinelTLS: base.tls } : {}),
      failoverDetector: true,
      reconnectOnError: (error) => error.message.startsWith("READONLY"),
    });
  }
  const { enableOfflineQueue, keyPrefix, enableAutoPipelining, ...redisOptions } = base;
  const clusterOptions: ClusterOptions = {
    redisOptions,
    ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
    ...(keyPrefix ? { keyPrefix } : {}),
    ...(enableAutoPipelining ? { enableAutoPipelining } : {}),
    // A failover moves slots in about a second: commands meanwhile are retried shortly, then fail (the caller falls back).
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
  };
  return new Cluster(settings.cluster ?? [], clusterOptions);
}
