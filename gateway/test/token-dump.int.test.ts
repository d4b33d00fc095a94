/**
 * A dump of the session table and of Redis is not a set of working sessions. The test reads
 * the table with the database's own client and every key and value with a plain Redis client (its own
 * redis-server), then presents every string found there, whole and in parts, to get-session as a bearer
 * token and as a session cookie (raw, and signed with the real secret as if the attacker had it too): none
 * works, while the real tokens, which appear nowhere in the dump, do.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_DATABASE_URL } from "../../testing/databases.js";
import { dumpRedis, dumpTable, stringsIn } from "../../testing/dumps.js";
import { eventually } from "../../testing/eventually.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { type Platform, startPlatform } from "../../testing/platform.js";
import { REDIS_SERVER_INSTALLED, startRedisServer, type TestRedisServer } from "../../testing/redis-server.js";
import { sign } from "../src/http/cookies.js";

const PREFIX = "dump:";
const COOKIE = "better-auth.session_token";

describe.skipIf(!REDIS_SERVER_INSTALLED)(`a dump of the session table and Redis (${TEST_DATABASE_URL ? "postgresql" : "sqlite"} + own redis-server)`, () => {
  let redisServer: TestRedisServer;
  let platform: Platform;

  beforeAll(async () => {
    redisServer = await startRedisServer();
    platform = await startPlatform({ env: { REDIS_URL: redisServer.url, REDIS_KEY_PREFIX: PREFIX, SESSION_CACHE_LEASE_MS: "1000" } });
  });

  afterAll(async () => {
    await platform?.stop();
    await redisServer?.close();
  });

  async function getSession(headers: Record<string, string>): Promise<unknown> {
    const res = await new TestClient(platform.baseURL).get("/get-session", headers);
    expect(res.status).toBe(200);
    return res.body;
  }

  it("holds no token, and no value in it works as a bearer token or a cookie", async () => {
    const live: string[] = [];
    const email = uniqueEmail("dump");
    const owner = new TestClient(platform.baseURL);
    live.push((await owner.post("/sign-up/email", { name: "Dump", email, password: "password-123" })).body.token);
    for (let i = 0; i < 2; i++) {
      const other = new TestClient(platform.baseURL);
      live.push((await other.post("/sign-in/email", { email, password: "password-123" })).body.token);
      expect((await other.get("/get-session")).body.user.email).toBe(email);
    }
    // A revoked session leaves a tombstone; one revoked while Redis is down, a pending revocation.
    const revoked = new TestClient(platform.baseURL);
    const revokedToken = (await revoked.post("/sign-in/email", { email, password: "password-123" })).body.token;
    await owner.post("/revoke-session", { token: revokedToken });
    const pendingClient = new TestClient(platform.baseURL);
    const pendingToken = (await pendingClient.post("/sign-in/email", { email, password: "password-123" })).body.token;
    await redisServer.kill();
    expect((await pendingClient.post("/sign-out")).body).toEqual({ success: true });
    const tables = {
      session: await dumpTable(platform.env.SESSION_DATABASE_URL!, "session"),
      pending: await dumpTable(platform.env.SESSION_DATABASE_URL!, "session_pending_revocation"),
    };
    await redisServer.start();
    // Redis restarted empty. Once the session service is back on it (the pending tombstone written, the lease
    // held), the next reads fill it again; then it is dumped.
    const leaseKey = `${PREFIX}cache-lease`;
    await eventually(async () => {
      if (!(await dumpRedis(redisServer.url, PREFIX)).some(({ key }) => key === leaseKey)) throw new Error("the session service did not take the cache lease again");
    });
    for (const token of live) expect(await getSession({ authorization: `Bearer ${token}` })).not.toBeNull();
    const redis = await dumpRedis(redisServer.url, PREFIX);

    expect(tables.session).toHaveLength(live.length);
    expect(tables.pending).toHaveLength(1);
    for (const kind of ["session:", "revoked:"]) expect(redis.filter(({ key }) => key.startsWith(PREFIX + kind)).length).toBeGreaterThan(0);
    const dumped = stringsIn([tables, redis.map(({ key, value }) => [key, key.slice(PREFIX.length), value])]);
    const every = [...dumped].join("\n");
    for (const token of [...live, revokedToken, pendingToken]) expect(every.includes(token)).toBe(false);

    const secret = platform.env.AUTH_SECRET!;
    const candidates = [...dumped].filter((value) => value.length >= 8 && !/[\s;,]/.test(value));
    expect(candidates.length).toBeGreaterThan(20);
    for (const value of candidates) {
      const bearer = await getSession({ authorization: `Bearer ${value}` });
      const cookie = await getSession({ cookie: `${COOKIE}=${value}` });
      const signed = await getSession({ cookie: `${COOKIE}=${sign(value, secret)}` });
      expect({ value, bearer, cookie, signed }).toEqual({ value, bearer: null, cookie: null, signed: null });
    }
    // The control: the real tokens do work, both ways.
    for (const token of live) {
      expect(await getSession({ authorization: `Bearer ${token}` })).not.toBeNull();
      expect(await getSession({ cookie: `${COOKIE}=${sign(token, secret)}` })).not.toBeNull();
    }
  });
});

if (!REDIS_SERVER_INSTALLED) {
  describe("a dump of the session table and Redis", () => {
    it.skip("needs redis-server on PATH (apt-get install redis-server): the test reads its own Redis", () => undefined);
  });
}
