/**
 * The platform on Redis as operators run it at scale (docs/adr/0080-redis-cluster-and-sentinel.md): a Redis
 * Cluster of three primaries with a replica each, and a primary with a replica watched by Sentinel, each the
 * test's own servers on loopback (testing/redis-cluster.ts, testing/redis-sentinel.ts). Sign-up, sign-in, get-session and sign-out work,
 * the session cache really lives there (the entry is read back under its key), a revoked or signed-out session
 * is never served, and a primary failed over while browsers keep asking for their sessions loses no session:
 * requests recover within a bound, and the count of failed ones is printed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisClient, type RedisClient } from "@auth-platform/runtime/redis-client";
import { redisFromEnv } from "@auth-platform/runtime/redis-connection";
import { tokenLookup } from "@auth-platform/runtime/session-token";
import { eventually } from "../../testing/eventually.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { sample, scrapeMetrics } from "../../testing/metrics.js";
import { freePorts, type Platform, startGateway, startPlatform, startSession } from "../../testing/platform.js";
import { startRedisCluster } from "../../testing/redis-cluster.js";
import { startRedisSentinel } from "../../testing/redis-sentinel.js";
import { REDIS_SERVER_INSTALLED } from "../../testing/redis-server.js";

const PREFIX = "topology:";
const PASSWORD = "password-123";
/** How long requests may fail after a failover starts: the failover itself (about a second or two) and a reconnection. */
const RECOVERY_BOUND_MS = 15_000;
const HITS = sample("auth_gateway_session_cache_lookups_total", { result: "hit" });

interface Topology {
  /** The REDIS_* variables that point the platform at it. */
  env: Record<string, string>;
  /** The key a session's entry has in this topology. */
  entryKey(lookup: string): string;
  /** Fails the primary holding `key` over; resolves once the new primary took over. */
  failover(key: string): Promise<void>;
  close(): Promise<void>;
}

const COOKIE = "better-auth.session_token";
/** The session cookie a client holds now, to present again after a sign-out dropped it from the jar. */
const cookieOf = (client: TestClient) => ({ cookie: `${COOKIE}=${client.cookies.get(COOKIE)}` });

async function signedUp(base: string): Promise<{ client: TestClient; token: string; email: string; userId: string }> {
  const client = new TestClient(base);
  const email = uniqueEmail("topology");
  const res = await client.post("/sign-up/email", { name: "Topo", email, password: PASSWORD });
  expect(res.status).toBe(200);
  return { client, token: res.body.token, email, userId: res.body.user.id };
}

function suite(name: string, start: () => Promise<Topology>) {
  describe.skipIf(!REDIS_SERVER_INSTALLED)(`the platform on ${name}`, () => {
    let topology: Topology;
    let platform: Platform;
    let redis: RedisClient;
    let lookup: (token: string) => string;

    beforeAll(async () => {
      topology = await start();
      platform = await startPlatform({ redis: false, env: { ...topology.env, REDIS_KEY_PREFIX: PREFIX, METRICS_PORT: "0" } });
      redis = createRedisClient(redisFromEnv(topology.env)!, { keyPrefix: PREFIX });
      lookup = tokenLookup(platform.env.AUTH_SECRET!).lookup;
    }, 60_000);

    afterAll(async () => {
      await redis?.quit().catch(() => redis.disconnect());
      await platform?.stop();
      await topology?.close();
    }, 60_000);

    it("signs up, signs in, serves the session from Redis, and never serves it once signed out", async () => {
      const { client, token, email, userId } = await signedUp(platform.baseURL);
      expect((await client.get("/get-session")).body.user.id).toBe(userId);
      await eventually(async () => expect(await redis.get(topology.entryKey(lookup(token)))).toContain('"v":'));
      expect((await client.get("/get-session")).body.user.email).toBe(email);

      const again = new TestClient(platform.baseURL);
      const signIn = await again.post("/sign-in/email", { email, password: PASSWORD });
      expect(signIn.status).toBe(200);
      expect((await again.get("/get-session")).body.session.userId).toBe(userId);
      const signedIn = cookieOf(again);
      expect((await new TestClient(platform.baseURL).get("/get-session", signedIn)).body.session.userId).toBe(userId);

      expect((await again.post("/sign-out")).status).toBe(200);
      for (let i = 0; i < 3; i++) expect((await again.get("/get-session", signedIn)).body).toBeNull();
      expect((await client.get("/get-session")).body.user.id).toBe(userId);
    });

    it("never serves a session revoked from another device, warm in the cache as it was", async () => {
      const { client, token, email } = await signedUp(platform.baseURL);
      expect((await client.get("/get-session")).status).toBe(200);
      await eventually(async () => expect(await redis.get(topology.entryKey(lookup(token)))).not.toBeNull());
      const other = new TestClient(platform.baseURL);
      expect((await other.post("/sign-in/email", { email, password: PASSWORD })).status).toBe(200);
      expect((await other.post("/revoke-session", { token })).status).toBe(200);
      for (let i = 0; i < 3; i++) expect((await client.get("/get-session")).body).toBeNull();
      expect((await other.get("/get-session")).body.user.email).toBe(email);
    });

    it("relays a sign-out through one session replica to the gateway of another, whose memory then serves nothing", async () => {
      const [portB, gatewayPortB] = await freePorts(2);
      const replicaB = await startSession({ ...platform.env, SESSION_PORT: String(portB) });
      const gatewayB = await startGateway({ ...platform.env, PORT: String(gatewayPortB), SESSION_SERVICE_URL: `127.0.0.1:${portB}` });
      try {
        const { client } = await signedUp(platform.baseURL);
        const onB = new TestClient(`${gatewayB.origin}/api/auth`);
        onB.cookies.set(COOKIE, client.cookies.get(COOKIE)!);
        // Warm in gateway B's memory: a second read there is a hit, answered without a hop.
        await eventually(async () => {
          const before = (await scrapeMetrics(gatewayB.metricsPort!)).get(HITS) ?? 0;
          for (let i = 0; i < 2; i++) expect((await onB.get("/get-session")).body).not.toBeNull();
          expect((await scrapeMetrics(gatewayB.metricsPort!)).get(HITS) ?? 0).toBeGreaterThan(before);
        });
        expect((await client.post("/sign-out")).status).toBe(200);
        expect((await onB.get("/get-session")).body).toBeNull();
      } finally {
        await gatewayB.close();
        await replicaB.close();
      }
    });

    it("loses no session when the primary fails over during traffic, and recovers within the bound", async () => {
      const browsers = await Promise.all(Array.from({ length: 4 }, () => signedUp(platform.baseURL)));
      for (const browser of browsers) expect((await browser.client.get("/get-session")).body.user.id).toBe(browser.userId);
      const revoked = await signedUp(platform.baseURL);
      expect((await revoked.client.get("/get-session")).status).toBe(200);
      const revokedCookie = cookieOf(revoked.client);
      expect((await revoked.client.post("/sign-out")).status).toBe(200);

      let requests = 0;
      let failed = 0;
      let revokedServed = 0;
      let lastFailureAt = 0;
      let stop = false;
      const traffic = (async () => {
        for (let i = 0; !stop; i++) {
          const browser = browsers[i % browsers.length]!;
          requests++;
          const res = await browser.client.get("/get-session").catch(() => undefined);
          if (res?.status !== 200 || res.body?.user?.id !== browser.userId) {
            failed++;
            lastFailureAt = performance.now();
          }
          if (i % 4 === 0 && (await revoked.client.get("/get-session", revokedCookie)).body !== null) revokedServed++;
        }
      })();
      await eventually(async () => expect(requests).toBeGreaterThan(20));
      const startedAt = performance.now();
      await topology.failover(`{${lookup(browsers[0]!.token)}}`);
      // Traffic goes on until it has run a while past the failover, so late failures are counted too.
      const settled = requests;
      await eventually(async () => expect(requests - settled).toBeGreaterThan(40), RECOVERY_BOUND_MS);
      stop = true;
      await traffic;

      console.info(`${name}: ${failed} of ${requests} get-session requests failed during the failover`);
      expect(revokedServed).toBe(0);
      if (failed) expect(lastFailureAt - startedAt).toBeLessThan(RECOVERY_BOUND_MS);
      for (const browser of browsers) expect((await browser.client.get("/get-session")).body.user.id).toBe(browser.userId);
      // The cache works on the new primary: a sign-out is still never served, a new sign-up is cached there.
      const first = cookieOf(browsers[0]!.client);
      expect((await browsers[0]!.client.post("/sign-out")).status).toBe(200);
      expect((await browsers[0]!.client.get("/get-session", first)).body).toBeNull();
      const late = await signedUp(platform.baseURL);
      expect((await late.client.get("/get-session")).body.user.id).toBe(late.userId);
      await eventually(async () => expect(await redis.get(topology.entryKey(lookup(late.token)))).not.toBeNull(), RECOVERY_BOUND_MS);
    }, 60_000);
  });
}

suite("a Redis Cluster (3 primaries, 3 replicas)", async () => {
  const cluster = await startRedisCluster();
  return {
    env: { REDIS_CLUSTER_NODES: cluster.nodes },
    entryKey: (lookup) => `session:{${lookup}}`,
    failover: async (key) => void (await cluster.killPrimaryOf(`${PREFIX}${key}`)),
    close: () => cluster.close(),
  };
});

suite("Redis with Sentinel (a primary, a replica, one sentinel)", async () => {
  const sentinel = await startRedisSentinel();
  return {
    env: { REDIS_SENTINELS: sentinel.sentinels, REDIS_SENTINEL_NAME: sentinel.name },
    entryKey: (lookup) => `session:${lookup}`,
    failover: async () => void (await sentinel.failover()),
    close: () => sentinel.close(),
  };
});
