/**
 * The key-value store behind the session cache and the rate-limit counters: Redis through ioredis when it is
 * configured (one endpoint, a cluster or Sentinel: redis-connection.ts; the store in redis-key-value.ts, loaded
 * only then), else process memory (one replica only). Values are strings; TTLs are milliseconds.
 */
import type { Logger } from "./log.js";
import type { RedisConnection } from "./redis-connection.js";

export interface KeyValue {
  readonly kind: "redis" | "memory";
  /**
   * True on a Redis Cluster: keys read together (getMany) or a guard and what it guards (setIfUnchanged) must
   * share a hash slot, i.e. carry the same hash tag `{...}` (docs/adr/0080-redis-cluster-and-sentinel.md).
   */
  readonly slotted: boolean;
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  del(...keys: string[]): Promise<void>;
  /** Several values in one round trip, atomically, null where absent (on a cluster: keys of one hash slot). */
  getMany(keys: string[]): Promise<Array<string | null>>;
  /**
   * Counts one hit in a fixed window, atomically: the first hit starts the window. Returns the count so far
   * and the milliseconds left in the window. One round trip on Redis, so replicas share one exact count.
   */
  hit(key: string, windowMs: number): Promise<{ count: number; resetMs: number }>;
  /**
   * Sets `key` (with its TTL) only while `guardKey` still holds `expected` (null: absent), atomically; true
   * when it was set. A writer that read `guardKey` before it read what it writes skips the write when
   * someone changed `guardKey` in between. Guard values are never the empty string.
   */
  setIfUnchanged(guardKey: string, expected: string | null, key: string, value: string, ttlMs: number): Promise<boolean>;
  /**
   * Resolves once the store can take commands, or after timeoutMs (Redis still down: callers fall back, and
   * the client keeps reconnecting). Processes await it at boot so the first requests do not fail.
   */
  ready(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

export function createMemoryKeyValue(now: () => number = Date.now): KeyValue {
  const values = new Map<string, { value: string; expiresAt: number }>();
  const live = (map: typeof values, key: string) => {
    const entry = map.get(key);
    if (entry && entry.expiresAt <= now()) {
      map.delete(key);
      return undefined;
    }
    return entry;
  };
  // Drop expired entries now and then so memory stays bounded under churn.
  const sweep = setInterval(() => {
    for (const key of values.keys()) live(values, key);
  }, 60_000);
  sweep.unref();
  return {
    kind: "memory",
    slotted: false,
    get: async (key) => live(values, key)?.value ?? null,
    async set(key, value, ttlMs) {
      values.set(key, { value, expiresAt: now() + ttlMs });
    },
    async del(...keys) {
      for (const key of keys) values.delete(key);
    },
    getMany: async (keys) => keys.map((key) => live(values, key)?.value ?? null),
    async hit(key, windowMs) {
      const entry = live(values, key);
      const count = entry ? Number(entry.value) + 1 : 1;
      const expiresAt = entry?.expiresAt ?? now() + windowMs;
      values.set(key, { value: String(count), expiresAt });
      return { count, resetMs: expiresAt - now() };
    },
    async setIfUnchanged(guardKey, expected, key, value, ttlMs) {
      if ((live(values, guardKey)?.value ?? null) !== expected) return false;
      values.set(key, { value, expiresAt: now() + ttlMs });
      return true;
    },
    ready: async () => true,
    async close() {
      clearInterval(sweep);
      values.clear();
    },
  };
}

/**
 * Redis when it is configured (REDIS_URL, a cluster or Sentinel), else memory with a warning (once, at boot).
 * The Redis store and ioredis under it are loaded only then.
 */
export async function openKeyValue(connection: RedisConnection | undefined, log: Logger, prefix = "auth:"): Promise<KeyValue> {
  if (connection) return (await import("./redis-key-value.js")).createRedisKeyValue(connection, log, prefix);
  log.warn("REDIS_URL is not set: using process memory for the cache (single replica only)");
  return createMemoryKeyValue();
}
