/**
 * The key-value store behind the session cache and the rate-limit counters: Redis through ioredis when it is
 * configured (one endpoint, a cluster or Sentinel: redis-connection.ts), else process memory (one replica only). Values are strings; TTLs are milliseconds.
 */
import { registerDependency } from "./dependencies.js";
import type { Logger } from "./log.js";
import { createRedisClient, isCluster, type RedisConnection } from "./redis-connection.js";

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

// INCR and PEXPIRE in one script: atomic, and one round trip.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

// GET, compare, SET in one script: nothing can change the guard between the comparison and the write.
const SET_IF_UNCHANGED_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if current == false then current = '' end
if current ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
return 1`;

/** `connection`: the process's Redis settings (redis-connection.ts), or just a URL (tests, tools). */
export function createRedisKeyValue(connection: RedisConnection | string, log: Logger, prefix = "auth:"): KeyValue {
  const redis = createRedisClient(connection, {
    keyPrefix: prefix,
    // Fail fast while Redis is down instead of queueing: callers fall back or fail open.
    enableOfflineQueue: false,
    // Commands issued in the same tick share one socket write: under load, writes are the gateway's main cost.
    enableAutoPipelining: true,
    maxRetriesPerRequest: 1,
    commandTimeout: 1_000,
    lazyConnect: false,
  });
  let down = false;
  redis.on("error", (error) => {
    if (!down) log.warn("redis unavailable", { error: error.message });
    down = true;
  });
  redis.on("ready", () => {
    if (down) log.info("redis available again");
    down = false;
  });
  redis.defineCommand("authHit", { numberOfKeys: 1, lua: HIT_SCRIPT });
  redis.defineCommand("authSetIfUnchanged", { numberOfKeys: 2, lua: SET_IF_UNCHANGED_SCRIPT });
  const connected = new Promise<void>((resolve) => redis.once("ready", () => resolve()));
  const unregister = registerDependency({ kind: "redis", required: false, check: async () => void (await redis.ping()) });
  return {
    kind: "redis",
    slotted: isCluster(connection),
    get: (key) => redis.get(key),
    async set(key, value, ttlMs) {
      await redis.set(key, value, "PX", Math.max(1, Math.ceil(ttlMs)));
    },
    async del(...keys) {
      if (keys.length) await redis.del(...keys);
    },
    getMany: (keys) => (keys.length ? redis.mget(...keys) : Promise.resolve([])),
    async hit(key, windowMs) {
      const [count, ttl] = await (redis as unknown as { authHit(k: string, w: number): Promise<[number, number]> }).authHit(key, windowMs);
      return { count, resetMs: ttl };
    },
    async setIfUnchanged(guardKey, expected, key, value, ttlMs) {
      const scripts = redis as unknown as { authSetIfUnchanged(g: string, k: string, e: string, v: string, ttl: number): Promise<number> };
      return (await scripts.authSetIfUnchanged(guardKey, key, expected ?? "", value, Math.max(1, Math.ceil(ttlMs)))) === 1;
    },
    async ready(timeoutMs = 5_000) {
      if (redis.status === "ready") return true;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
      const ok = await Promise.race([connected.then(() => true), timedOut]);
      clearTimeout(timer);
      if (!ok) log.warn("redis not reachable at start; serving without it until it is", { timeoutMs });
      return ok;
    },
    async close() {
      unregister();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
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

/** Redis when it is configured (REDIS_URL, a cluster or Sentinel), else memory with a warning (once, at boot). */
export function createKeyValue(connection: RedisConnection | undefined, log: Logger, prefix = "auth:"): KeyValue {
  if (connection) return createRedisKeyValue(connection, log, prefix);
  log.warn("REDIS_URL is not set: using process memory for the cache (single replica only)");
  return createMemoryKeyValue();
}
