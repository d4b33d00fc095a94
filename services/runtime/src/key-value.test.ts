/**
 * One KeyValue contract, run on the memory store (fake clock) and, when TEST_REDIS_URL is set, on Redis
 * under a unique key prefix (time moved by shortening the prefix's TTLs).
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../../../testing/eventually.js";
import { hitContract } from "../../../testing/hit-contract.js";
import { createMemoryKeyValue, type KeyValue } from "./key-value.js";
import { createRedisKeyValue } from "./redis-key-value.js";
import { createLogger } from "./log.js";
import { LOWER_ALPHANUMERIC, randomString } from "./random.js";

const REDIS_URL = process.env.TEST_REDIS_URL || undefined;
// Long enough that no key expires on the real clock while a test runs: time is moved by advance().
const TTL_MS = 5_000;
const WINDOW_MS = 10_000;

interface Backend {
  kv: KeyValue;
  /** Lets `ms` pass for the store: moves the fake clock, or shortens the TTLs of its Redis keys. */
  advance(ms: number): Promise<void>;
  /** A second store that must not see the first one's keys. */
  other(): Promise<KeyValue>;
}

const prefix = () => `test:${randomString(8, LOWER_ALPHANUMERIC)}:`;

/**
 * A Redis KeyValue once its connection is up. The store fails fast instead of queueing while it is not
 * connected (enableOfflineQueue false), which includes the first milliseconds after it is created.
 */
async function connectedRedisKeyValue(url: string, keyPrefix = prefix()): Promise<KeyValue> {
  const kv = createRedisKeyValue(url, createLogger("test", "error"), keyPrefix);
  await eventually(() => kv.get("ping"));
  return kv;
}

/**
 * Lets `ms` pass for the keys under `keyPrefix` as Redis would see it (its clock cannot be moved): each TTL is
 * shortened by `ms`, and a key whose TTL runs out is deleted. Keys without a TTL stay.
 */
async function advanceRedis(url: string, keyPrefix: string, ms: number): Promise<void> {
  const redis = new Redis(url);
  try {
    for (const key of await redis.keys(`${keyPrefix}*`)) {
      const left = await redis.pttl(key);
      if (left < 0) continue;
      if (left <= ms) await redis.del(key);
      else await redis.pexpire(key, left - ms);
    }
  } finally {
    redis.disconnect();
  }
}

function memoryBackend(): Backend {
  let now = 1_700_000_000_000;
  return {
    kv: createMemoryKeyValue(() => now),
    async advance(ms) {
      now += ms;
    },
    other: async () => createMemoryKeyValue(() => now),
  };
}

async function redisBackend(url: string): Promise<Backend> {
  const keyPrefix = prefix();
  return { kv: await connectedRedisKeyValue(url, keyPrefix), advance: (ms) => advanceRedis(url, keyPrefix, ms), other: () => connectedRedisKeyValue(url) };
}

function keyValueContract(name: string, open: () => Promise<Backend>): void {
  describe(`KeyValue contract (${name})`, () => {
    let backend: Backend;
    let kv: KeyValue;
    const key = (label: string) => `${label}:${randomString(10, LOWER_ALPHANUMERIC)}`;
    beforeAll(async () => {
      backend = await open();
      kv = backend.kv;
    });
    afterAll(async () => {
      await kv?.close();
    });

    it("reports its kind", () => {
      expect(kv.kind).toBe(name);
    });

    it("gets what was set, null for an absent key; a second set replaces value and TTL", async () => {
      const k = key("value");
      expect(await kv.get(k)).toBeNull();
      await kv.set(k, "one", 60_000);
      expect(await kv.get(k)).toBe("one");
      await kv.set(k, "two", 60_000);
      expect(await kv.get(k)).toBe("two");
      await kv.set(k, "short", TTL_MS);
      await backend.advance(TTL_MS + 100);
      expect(await kv.get(k)).toBeNull();
    });

    it("expires a value after its TTL, not before", async () => {
      const k = key("ttl");
      await kv.set(k, "soon gone", TTL_MS);
      expect(await kv.get(k)).toBe("soon gone");
      await backend.advance(TTL_MS + 100);
      expect(await kv.get(k)).toBeNull();
      expect(await kv.getMany([k])).toEqual([null]);
    });

    it("getMany answers in key order with null where absent or expired", async () => {
      const [a, b, gone, absent] = [key("a"), key("b"), key("gone"), key("absent")];
      await kv.set(a, "A", 60_000);
      await kv.set(b, "B", 60_000);
      await kv.set(gone, "G", TTL_MS);
      await backend.advance(TTL_MS + 100);
      expect(await kv.getMany([b, absent, a, gone])).toEqual(["B", null, "A", null]);
      expect(await kv.getMany([])).toEqual([]);
    });

    it("del removes every key given; absent keys and no keys are fine", async () => {
      const [a, b, c] = [key("a"), key("b"), key("c")];
      for (const k of [a, b, c]) await kv.set(k, k, 60_000);
      await kv.del(a, c, key("absent"));
      expect(await kv.getMany([a, b, c])).toEqual([null, b, null]);
      await kv.del();
      await kv.del(b);
      expect(await kv.get(b)).toBeNull();
    });

    hitContract(() => ({ counters: kv, advance: (ms) => backend.advance(ms) }), WINDOW_MS);

    it("setIfUnchanged writes only while the guard holds what the writer read, absent included", async () => {
      const guard = key("guard");
      const k = key("guarded");
      expect(await kv.setIfUnchanged(guard, null, k, "first", 60_000)).toBe(true);
      expect(await kv.get(k)).toBe("first");

      await kv.set(guard, "changed", 60_000);
      expect(await kv.setIfUnchanged(guard, null, k, "read before the change", 60_000)).toBe(false);
      expect(await kv.setIfUnchanged(guard, "another", k, "read another value", 60_000)).toBe(false);
      expect(await kv.get(k)).toBe("first");

      expect(await kv.setIfUnchanged(guard, "changed", k, "read after the change", 60_000)).toBe(true);
      expect(await kv.get(k)).toBe("read after the change");
    });

    it("setIfUnchanged gives the value its TTL, and a guard that expired reads as absent", async () => {
      const guard = key("short-guard");
      const k = key("short-guarded");
      await kv.set(guard, "g1", TTL_MS);
      expect(await kv.setIfUnchanged(guard, "g1", k, "v", TTL_MS)).toBe(true);
      await backend.advance(TTL_MS + 100);
      expect(await kv.get(k)).toBeNull();
      expect(await kv.setIfUnchanged(guard, "g1", k, "v", 60_000)).toBe(false);
      expect(await kv.setIfUnchanged(guard, null, k, "v", 60_000)).toBe(true);
    });

    it("of concurrent setIfUnchanged calls guarded by the same key, a guard change stops every later one", async () => {
      const guard = key("race-guard");
      const k = key("race");
      const writes = Array.from({ length: 10 }, (_, i) => kv.setIfUnchanged(guard, null, k, `w${i}`, 60_000));
      const change = kv.set(guard, "changed", 60_000);
      const late = Array.from({ length: 10 }, (_, i) => change.then(() => kv.setIfUnchanged(guard, null, k, `late${i}`, 60_000)));
      expect(await Promise.all(late)).toEqual(Array.from({ length: 10 }, () => false));
      await Promise.all(writes);
      expect(await kv.get(k)).toMatch(/^w\d$/);
    });

    it("does not share keys with another store (another prefix)", async () => {
      const other = await backend.other();
      try {
        const k = key("isolated");
        await kv.set(k, "mine", 60_000);
        expect(await other.get(k)).toBeNull();
        expect((await other.hit(k, WINDOW_MS)).count).toBe(1);
        expect(await kv.get(k)).toBe("mine");
      } finally {
        await other.close();
      }
    });
  });
}

keyValueContract("memory", async () => memoryBackend());

describe.skipIf(!REDIS_URL)("on Redis", () => {
  keyValueContract("redis", () => redisBackend(REDIS_URL!));
});

describe.skipIf(!process.env.TEST_REDIS_URL)("Redis key-value at start", () => {
  it("takes commands right after ready() resolves (regression: the first commands failed while connecting)", async () => {
    const kv = createRedisKeyValue(
      process.env.TEST_REDIS_URL!,
      createLogger("test", "error", () => {}),
      `ready-test:${Date.now()}:`,
    );
    try {
      expect(await kv.ready()).toBe(true);
      await kv.set("k", "v", 1_000);
      expect(await kv.get("k")).toBe("v");
    } finally {
      await kv.close();
    }
  });

  it("gives up waiting after the timeout when Redis is unreachable", async () => {
    const kv = createRedisKeyValue(
      "redis://127.0.0.1:1",
      createLogger("test", "error", () => {}),
      "down:",
    );
    try {
      const started = Date.now();
      expect(await kv.ready(300)).toBe(false);
      expect(Date.now() - started).toBeLessThan(2_000);
      await expect(kv.get("k")).rejects.toThrow();
    } finally {
      await kv.close();
    }
  });
});
