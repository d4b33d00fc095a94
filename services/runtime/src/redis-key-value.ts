/** The key-value store (key-value.ts) on Redis: one endpoint, a cluster or Sentinel (redis-connection.ts). */
import { registerDependency } from "./dependencies.js";
import type { KeyValue } from "./key-value.js";
import type { Logger } from "./log.js";
import { createRedisClient } from "./redis-client.js";
import { isCluster, type RedisConnection } from "./redis-connection.js";

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
