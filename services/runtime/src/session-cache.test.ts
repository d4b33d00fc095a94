/**
 * The session cache layout on a KeyValue: entries, expiry, the revocation tombstone. Runs on memory (with a
 * fake clock for the store's TTLs) and, when TEST_REDIS_URL is set, on Redis under a unique prefix.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../../../testing/eventually.js";
import { startRedisCluster, type TestRedisCluster } from "../../../testing/redis-cluster.js";
import { REDIS_SERVER_INSTALLED } from "../../../testing/redis-server.js";
import { cacheMac } from "./cache-mac.js";
import { createMemoryKeyValue, type KeyValue } from "./key-value.js";
import { createRedisKeyValue } from "./redis-key-value.js";
import { createLogger } from "./log.js";
import { enableMetrics } from "./metrics.js";
import { LOWER_ALPHANUMERIC, newId, randomString } from "./random.js";
import { type RedisConnection, redisFromEnv } from "./redis-connection.js";
import {
  CACHE_LEASE_KEY,
  entryKey,
  revokedKey,
  CACHE_RECORD_VERSION,
  type CachedSession,
  forgetCachedSession,
  holdCacheLease,
  readCachedSession,
  readCachedSessionForFill,
  revokeCachedSession,
  type SessionKey,
  writeCachedSession,
} from "./session-cache.js";
import { tokenLookup } from "./session-token.js";

const REDIS_URL = process.env.TEST_REDIS_URL || undefined;
const HOUR_MS = 3_600_000;
const WEEK_MS = 7 * 24 * HOUR_MS;
const SECRET = "cache-test-secret-0123456789-0123456789";
const { lookup } = tokenLookup(SECRET);
const mac = cacheMac(SECRET);
const keyOf = (token: string) => ({ token, lookup: lookup(token) });
/** What a read finds (the refusal, if any, is read apart where it matters). */
const read = async (kv: KeyValue, key: SessionKey, now: number) => (await readCachedSession(kv, mac, key, now)).cached;

/** A cached session that expires `lifetimeMs` after `now`. */
function aCachedSession(now: number, lifetimeMs = WEEK_MS): CachedSession {
  const userId = newId();
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    v: CACHE_RECORD_VERSION,
    session: {
      id: newId(),
      token: randomString(32),
      userId,
      expiresAt: iso(now + lifetimeMs),
      ipAddress: "203.0.113.7",
      userAgent: "vitest",
      createdAt: iso(now),
      updatedAt: iso(now),
      impersonatedBy: null,
      activeOrganizationId: null,
    },
    user: {
      id: userId,
      name: "Ada",
      email: `${userId.toLowerCase()}@example.com`,
      emailVerified: false,
      image: null,
      createdAt: iso(now),
      updatedAt: iso(now),
      username: "ada",
      displayUsername: "Ada",
      extraFields: { favouriteColour: "blue", age: 36, tags: ["a"], nested: { on: true } },
      twoFactorEnabled: false,
      role: "user",
      banned: false,
      banReason: null,
      banExpires: null,
    },
    refreshAt: now + 86_400_000,
  };
}

interface Backend {
  kv: KeyValue;
  /** The store's clock. */
  clock(): number;
  /** Moves the store's clock (memory only; Redis keeps real time). */
  advance?: (ms: number) => void;
}

async function redisBackend(url: RedisConnection | string): Promise<Backend> {
  const kv = createRedisKeyValue(url, createLogger("test", "error"), `test:${randomString(8, LOWER_ALPHANUMERIC)}:`);
  // The store fails fast rather than queueing until its connection is up.
  await eventually(() => kv.get("ping"));
  return { kv, clock: Date.now };
}

function memoryBackend(): Backend {
  let now = Date.now();
  return {
    kv: createMemoryKeyValue(() => now),
    clock: () => now,
    advance: (ms) => {
      now += ms;
    },
  };
}

function sessionCacheSuite(name: string, open: () => Promise<Backend>, hasClock: boolean): void {
  describe(`session cache (${name})`, () => {
    let backend: Backend;
    let kv: KeyValue;
    beforeAll(async () => {
      backend = await open();
      kv = backend.kv;
      // Longer than any clock jump below; the lease's own rules are tested at the end.
      await holdCacheLease(kv, 100 * HOUR_MS, backend.clock());
    });
    afterAll(async () => {
      await kv?.close();
    });

    it("an entry of another record version reads as a miss, not as a session", async () => {
      const now = backend.clock();
      const cached = aCachedSession(now);
      for (const v of [undefined, 0, CACHE_RECORD_VERSION + 1]) {
        await writeCachedSession(kv, mac, lookup(cached.session.token), { ...cached, v } as unknown as CachedSession, null, now);
        expect(await read(kv, keyOf(cached.session.token), now)).toBeNull();
      }
    });

    it("reads back the entry it wrote; an unknown token is a miss", async () => {
      const now = backend.clock();
      const cached = aCachedSession(now);
      await writeCachedSession(kv, mac, lookup(cached.session.token), cached, null, now);
      expect(await read(kv, keyOf(cached.session.token), now)).toEqual(cached);
      expect(await read(kv, keyOf(randomString(32)), now)).toBeNull();
    });

    // Issue 33: whoever could write to Redis edited their cached record (plain JSON) and was served as an
    // admin, or as another user.
    it("an entry edited in the cache (made an admin, made another user) is refused and reads as a miss", async () => {
      const now = backend.clock();
      const cached = aCachedSession(now);
      const victim = aCachedSession(now);
      const key = keyOf(cached.session.token);
      await writeCachedSession(kv, mac, key.lookup, cached, null, now);
      const raw = (await kv.get(entryKey(kv, key.lookup)))!;
      expect(raw).toContain('"role":"user"');
      const edits = [
        raw.replace('"role":"user"', '"role":"admin"'),
        raw.replaceAll(cached.user.id, victim.user.id).replace(cached.user.email, victim.user.email),
        raw.replace('"impersonatedBy":null', '"impersonatedBy":"someone"'),
      ];
      for (const edited of edits) {
        await kv.set(entryKey(kv, key.lookup), edited, HOUR_MS);
        expect(await readCachedSession(kv, mac, key, now)).toEqual({ cached: null, refused: "invalid-mac" });
      }
      await kv.set(entryKey(kv, key.lookup), raw, HOUR_MS);
      expect(await readCachedSession(kv, mac, key, now)).toEqual({ cached, refused: null });
    });

    it("an entry written without a MAC, or with the MAC of another secret, is refused", async () => {
      const now = backend.clock();
      const cached = aCachedSession(now);
      const key = keyOf(cached.session.token);
      const { token: _token, ...session } = cached.session;
      const record = JSON.stringify({ ...cached, session, validUntil: now + HOUR_MS });
      const unsigned = [
        record,
        `{"v":${CACHE_RECORD_VERSION},"record":${record}}`,
        `{"v":${CACHE_RECORD_VERSION},"mac":"","record":${record}}`,
        `{"v":${CACHE_RECORD_VERSION},"mac":"short","record":${record}}`,
        "not json",
      ];
      for (const entry of unsigned) {
        await kv.set(entryKey(kv, key.lookup), entry, HOUR_MS);
        expect(await readCachedSession(kv, mac, key, now), entry.slice(0, 30)).toEqual({ cached: null, refused: "unsigned" });
      }
      await writeCachedSession(kv, cacheMac("another-secret-0123456789-0123456789"), key.lookup, cached, null, now);
      expect(await readCachedSession(kv, mac, key, now)).toEqual({ cached: null, refused: "invalid-mac" });
    });

    it("a valid entry moved to another token's key is refused", async () => {
      const now = backend.clock();
      const [mine, theirs] = [aCachedSession(now), aCachedSession(now)];
      await writeCachedSession(kv, mac, lookup(mine.session.token), mine, null, now);
      await writeCachedSession(kv, mac, lookup(theirs.session.token), theirs, null, now);
      // The other user's valid entry put under my token's key: I must not become them.
      await kv.set(entryKey(kv, lookup(mine.session.token)), (await kv.get(entryKey(kv, lookup(theirs.session.token))))!, HOUR_MS);
      expect(await readCachedSession(kv, mac, keyOf(mine.session.token), now)).toEqual({ cached: null, refused: "invalid-mac" });
      expect(await read(kv, keyOf(theirs.session.token), now)).toEqual(theirs);
    });

    it("an entry of the version before the MAC reads as a plain miss, never as trusted", async () => {
      const now = backend.clock();
      const cached = aCachedSession(now);
      const key = keyOf(cached.session.token);
      const { token: _token, ...session } = cached.session;
      // What a version 2 session service writes during a rolling deploy (and what anyone could write).
      await kv.set(entryKey(kv, key.lookup), JSON.stringify({ ...cached, v: 2, session, user: { ...cached.user, role: "admin" } }), HOUR_MS);
      expect(await readCachedSession(kv, mac, key, now)).toEqual({ cached: null, refused: null });
    });

    it("a genuine entry written back after its hour (a replay) reads as a miss", async () => {
      const now = backend.clock();
      const cached = aCachedSession(now);
      const key = keyOf(cached.session.token);
      await writeCachedSession(kv, mac, key.lookup, cached, null, now);
      const raw = (await kv.get(entryKey(kv, key.lookup)))!;
      await kv.set(entryKey(kv, key.lookup), raw, 3 * HOUR_MS);
      expect(await read(kv, key, now + HOUR_MS - 1)).toEqual(cached);
      expect(await readCachedSession(kv, mac, key, now + HOUR_MS)).toEqual({ cached: null, refused: null });
    });

    it("counts refused entries by reason (auth_cache_records_refused_total)", async () => {
      const registry = await enableMetrics();
      const count = async (reason: string) =>
        (await registry.getSingleMetric("auth_cache_records_refused_total")!.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;
      const now = backend.clock();
      const cached = aCachedSession(now);
      const key = keyOf(cached.session.token);
      const [unsigned, invalid] = [await count("unsigned"), await count("invalid-mac")];
      await kv.set(entryKey(kv, key.lookup), "{}", HOUR_MS);
      await read(kv, key, now);
      await writeCachedSession(kv, mac, key.lookup, cached, null, now);
      await kv.set(entryKey(kv, key.lookup), (await kv.get(entryKey(kv, key.lookup)))!.replace('"name":"Ada"', '"name":"Eve"'), HOUR_MS);
      await read(kv, key, now);
      await read(kv, key, now);
      expect([(await count("unsigned")) - unsigned, (await count("invalid-mac")) - invalid]).toEqual([1, 2]);
    });

    it("an entry whose session has expired reads as a miss", async () => {
      const now = backend.clock();
      const cached = aCachedSession(now, 60_000);
      await writeCachedSession(kv, mac, lookup(cached.session.token), cached, null, now);
      expect(await read(kv, keyOf(cached.session.token), now + 59_999)).toEqual(cached);
      expect(await read(kv, keyOf(cached.session.token), now + 60_000)).toBeNull();
      expect(await read(kv, keyOf(cached.session.token), now + 120_000)).toBeNull();
    });

    it("writes nothing for a session that has already expired", async () => {
      const now = backend.clock();
      const cached = aCachedSession(now - WEEK_MS, WEEK_MS - 1);
      await writeCachedSession(kv, mac, lookup(cached.session.token), cached, null, now);
      expect(await kv.get(entryKey(kv, lookup(cached.session.token)))).toBeNull();
      expect(await read(kv, keyOf(cached.session.token), now - 2 * HOUR_MS)).toBeNull();
    });

    it.skipIf(!hasClock)("keeps an entry at most an hour, and no longer than its session", async () => {
      const now = backend.clock();
      const week = aCachedSession(now);
      const minute = aCachedSession(now, 60_000);
      await writeCachedSession(kv, mac, lookup(week.session.token), week, null, now);
      await writeCachedSession(kv, mac, lookup(minute.session.token), minute, null, now);
      backend.advance!(60_001);
      expect(await kv.get(entryKey(kv, lookup(minute.session.token)))).toBeNull();
      backend.advance!(HOUR_MS - 60_001 - 1);
      expect(await read(kv, keyOf(week.session.token), now)).toEqual(week);
      backend.advance!(2);
      expect(await read(kv, keyOf(week.session.token), now)).toBeNull();
    });

    it("a revoked token reads 'revoked', also when it was never cached", async () => {
      const now = backend.clock();
      const cached = aCachedSession(now);
      await writeCachedSession(kv, mac, lookup(cached.session.token), cached, null, now);
      await revokeCachedSession(kv, lookup(cached.session.token), new Date(cached.session.expiresAt), now);
      expect(await read(kv, keyOf(cached.session.token), now)).toBe("revoked");
      expect(await kv.get(entryKey(kv, lookup(cached.session.token)))).toBeNull();

      const never = aCachedSession(now);
      await revokeCachedSession(kv, lookup(never.session.token), new Date(never.session.expiresAt), now);
      expect(await read(kv, keyOf(never.session.token), now)).toBe("revoked");
    });

    it("the tombstone wins over an entry written after the revoke (a late cache fill cannot resurrect it)", async () => {
      const now = backend.clock();
      const cached = aCachedSession(now);
      await revokeCachedSession(kv, lookup(cached.session.token), new Date(cached.session.expiresAt), now);
      await writeCachedSession(kv, mac, lookup(cached.session.token), cached, null, now);
      expect(await read(kv, keyOf(cached.session.token), now)).toBe("revoked");
      expect(await read(kv, keyOf(cached.session.token), now + 10 * 60_000)).toBe("revoked");
    });

    it.skipIf(!hasClock)("the tombstone lasts until the session would have expired", async () => {
      const now = backend.clock();
      const cached = aCachedSession(now, 3 * HOUR_MS);
      await revokeCachedSession(kv, lookup(cached.session.token), new Date(cached.session.expiresAt), now);
      await writeCachedSession(kv, mac, lookup(cached.session.token), cached, null, now);
      backend.advance!(3 * HOUR_MS - 60_000);
      expect(await read(kv, keyOf(cached.session.token), now)).toBe("revoked");
      backend.advance!(2 * 60_000);
      expect(await kv.get(revokedKey(kv, lookup(cached.session.token)))).toBeNull();
    });

    // Regression: the tombstone lived only until the revoked expiresAt. A get-session that extended the
    // session just before the revoke deleted it fills the cache with the new, later expiresAt (kept up to an
    // hour), so once a short-lived tombstone lapsed the revoked session was served from the cache again.
    it.skipIf(!hasClock)("the tombstone outlives an entry filled late by a refresh that moved expiry past the revoked one", async () => {
      const now = backend.clock();
      const revoked = aCachedSession(now - HOUR_MS, HOUR_MS + 5 * 60_000);
      await revokeCachedSession(kv, lookup(revoked.session.token), new Date(revoked.session.expiresAt), now);
      const refreshed: CachedSession = {
        ...revoked,
        session: { ...revoked.session, expiresAt: new Date(now + 2 * HOUR_MS).toISOString(), updatedAt: new Date(now).toISOString() },
      };
      await writeCachedSession(kv, mac, lookup(refreshed.session.token), refreshed, null, now);
      let elapsed = 0;
      for (const minutes of [6, 30, 59]) {
        backend.advance!(minutes * 60_000 - elapsed);
        elapsed = minutes * 60_000;
        expect(await read(kv, keyOf(revoked.session.token), now + elapsed), `after ${minutes} min`).toBe("revoked");
      }
    });

    it("forgetCachedSession makes the next read a miss and touches no other token", async () => {
      const now = backend.clock();
      const [forgotten, kept] = [aCachedSession(now), aCachedSession(now)];
      await writeCachedSession(kv, mac, lookup(forgotten.session.token), forgotten, null, now);
      await writeCachedSession(kv, mac, lookup(kept.session.token), kept, null, now);
      await forgetCachedSession(kv, lookup(forgotten.session.token));
      expect(await read(kv, keyOf(forgotten.session.token), now)).toBeNull();
      expect(await read(kv, keyOf(kept.session.token), now)).toEqual(kept);
      await forgetCachedSession(kv, lookup(randomString(32)));
    });

    it("a fill that read before a forget writes nothing; a fill that read after it writes (no stale copy put back)", async () => {
      const now = backend.clock();
      const current = aCachedSession(now);
      const token = current.session.token;
      await writeCachedSession(kv, mac, lookup(token), current, null, now);

      // A reader misses (the entry was dropped) and reads the generation, then the store; meanwhile the
      // session changes and is forgotten; then the reader's fill arrives with what it read before.
      await kv.del(entryKey(kv, lookup(token)));
      const before = await readCachedSessionForFill(kv, mac, keyOf(token), now);
      expect(before.cached).toBeNull();
      await forgetCachedSession(kv, lookup(token));
      const stale = { ...current, session: { ...current.session, activeOrganizationId: "org-left-behind" } };
      expect(await writeCachedSession(kv, mac, lookup(token), stale, before.generation, now)).toBe(false);
      expect(await read(kv, keyOf(token), now)).toBeNull();

      const after = await readCachedSessionForFill(kv, mac, keyOf(token), now);
      expect(after.generation).not.toBe(before.generation);
      expect(await writeCachedSession(kv, mac, lookup(token), current, after.generation, now)).toBe(true);
      expect(await read(kv, keyOf(token), now)).toEqual(current);
      // A refresh that read the entry before another forget cannot write it back either.
      const refreshing = await readCachedSessionForFill(kv, mac, keyOf(token), now);
      expect(refreshing.cached).toEqual(current);
      await forgetCachedSession(kv, lookup(token));
      expect(await writeCachedSession(kv, mac, lookup(token), current, refreshing.generation, now)).toBe(false);
      expect(await read(kv, keyOf(token), now)).toBeNull();
    });

    it("forgetting a revoked token does not lift the revocation", async () => {
      const now = backend.clock();
      const cached = aCachedSession(now);
      await revokeCachedSession(kv, lookup(cached.session.token), new Date(cached.session.expiresAt), now);
      await forgetCachedSession(kv, lookup(cached.session.token));
      await writeCachedSession(kv, mac, lookup(cached.session.token), cached, null, now);
      expect(await read(kv, keyOf(cached.session.token), now)).toBe("revoked");
    });

    it("keys and entries hold the token's keyed hash, never the token; a read gives the token back", async () => {
      const now = backend.clock();
      const cached = aCachedSession(now);
      const token = cached.session.token;
      await writeCachedSession(kv, mac, lookup(token), cached, null, now);
      expect(await kv.get(entryKey(kv, token))).toBeNull();
      const raw = (await kv.get(entryKey(kv, lookup(token))))!;
      expect(raw).not.toContain(token);
      expect(JSON.parse(raw).record.session.token).toBeUndefined();
      expect(await read(kv, keyOf(token), now)).toEqual(cached);
      // The hash alone, presented as if it were the token, finds nothing.
      expect(await read(kv, keyOf(lookup(token)), now)).toBeNull();
      await revokeCachedSession(kv, lookup(token), new Date(cached.session.expiresAt), now);
      expect(await kv.get(revokedKey(kv, token))).toBeNull();
    });

    it("without the cache lease every entry reads as a miss, but a tombstone still reads 'revoked'", async () => {
      const now = backend.clock();
      const [live, revoked] = [aCachedSession(now), aCachedSession(now)];
      await writeCachedSession(kv, mac, lookup(live.session.token), live, null, now);
      await revokeCachedSession(kv, lookup(revoked.session.token), new Date(revoked.session.expiresAt), now);
      await kv.del(CACHE_LEASE_KEY);
      try {
        expect(await read(kv, keyOf(live.session.token), now)).toBeNull();
        expect(await read(kv, keyOf(revoked.session.token), now)).toBe("revoked");
      } finally {
        await holdCacheLease(kv, 100 * HOUR_MS, backend.clock());
      }
      expect(await read(kv, keyOf(live.session.token), now)).toEqual(live);
    });

    it.skipIf(!hasClock)("the lease lapses after its TTL, and entries read as misses from then on", async () => {
      const now = backend.clock();
      const cached = aCachedSession(now);
      await writeCachedSession(kv, mac, lookup(cached.session.token), cached, null, now);
      await holdCacheLease(kv, 3_000, now);
      try {
        backend.advance!(2_999);
        expect(await read(kv, keyOf(cached.session.token), now)).toEqual(cached);
        backend.advance!(1);
        expect(await read(kv, keyOf(cached.session.token), now)).toBeNull();
      } finally {
        await holdCacheLease(kv, 100 * HOUR_MS, backend.clock());
      }
    });

    it("a lease read after its deadline is not trusted, even while the key is still there (a SET applied late)", async () => {
      const now = backend.clock();
      const cached = aCachedSession(now);
      await writeCachedSession(kv, mac, lookup(cached.session.token), cached, null, now);
      await holdCacheLease(kv, 60_000, now);
      try {
        expect(await read(kv, keyOf(cached.session.token), now + 59_999)).toEqual(cached);
        expect(await read(kv, keyOf(cached.session.token), now + 60_000)).toBeNull();
      } finally {
        await holdCacheLease(kv, 100 * HOUR_MS, backend.clock());
      }
    });
  });
}

sessionCacheSuite("memory", async () => memoryBackend(), true);

describe.skipIf(!REDIS_URL)("on Redis", () => {
  sessionCacheSuite("redis", () => redisBackend(REDIS_URL!), false);
});

// Every read and guarded write of one session on a cluster must stay in one hash slot, or Redis refuses it (CROSSSLOT).
describe.skipIf(!REDIS_SERVER_INSTALLED)("on a Redis Cluster (three primaries of the test's own)", () => {
  let cluster: TestRedisCluster | undefined;
  afterAll(async () => cluster?.close());
  sessionCacheSuite(
    "redis cluster",
    async () => {
      cluster = await startRedisCluster({ replicas: false });
      const backend = await redisBackend(redisFromEnv({ REDIS_CLUSTER_NODES: cluster.nodes })!);
      expect(backend.kv.slotted).toBe(true);
      return backend;
    },
    false,
  );
});
