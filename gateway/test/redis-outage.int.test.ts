/**
 * Redis stopped mid-flow and restarted, with two session replicas and two gateways. The
 * Redis here is the test's own redis-server (the machine's shared one is never touched), run with an
 * append-only file so that, killed and restarted, it comes back holding the cache entries of sessions revoked
 * while it was down: the case where a stale entry could bring a revoked session back. The session replicas
 * reach Redis through a relay the test can cut, so a test can hold the replicas' flush of pending tombstones
 * back and read the cache exactly as a gateway does in the window before it. A change of a user (update-user,
 * set-role) made while Redis is down must be served once it is back, not the entry from before it.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { SessionServiceClient } from "@auth-platform/proto/gen/auth/session/v1/session";
import { call } from "@auth-platform/proto/rpc-client";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import { grpcTlsFromEnv } from "@auth-platform/runtime/grpc-transport";
import type { RunningService } from "@auth-platform/runtime/service";
import { tokenLookup } from "@auth-platform/runtime/session-token";
import { dropDatabases, TEST_DATABASE_URL, type TestDatabase } from "../../testing/databases.js";
import { dumpTable } from "../../testing/dumps.js";
import { eventually } from "../../testing/eventually.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import {
  freePorts,
  platformEnv,
  workloadEnv,
  type RunningGateway,
  type RunningIdentity,
  startAdmin,
  startGateway,
  startIdentity,
  startNotification,
  startSession,
} from "../../testing/platform.js";
import { REDIS_SERVER_INSTALLED, startRedisServer, type TestRedisServer } from "../../testing/redis-server.js";
import { type Relay, startRelay } from "../../testing/tcp-relay.js";

const PREFIX = "outage:";
const PASSWORD = "password-123";
const COOKIE = "better-auth.session_token";

let redisServer: TestRedisServer;
let relay: Relay;
let raw: Redis;
let env: Record<string, string>;
let databases: TestDatabase[] = [];
let lookup: (token: string) => string;
const services: RunningService[] = [];
const gateways: RunningGateway[] = [];
let sessionA: RunningService;
let identity: RunningIdentity;
let sessionEnvA: Record<string, string>;
let baseA: string;
let baseB: string;
const rpcAddresses: string[] = [];

/** A browser signed in (a new user, or an existing one by email) on the given gateway. */
async function browser(base: string, email?: string): Promise<{ client: TestClient; token: string; email: string }> {
  const client = new TestClient(base);
  const signedUp = email === undefined;
  email ??= uniqueEmail("outage");
  const res = signedUp ? await client.post("/sign-up/email", { name: "Out", email, password: PASSWORD }) : await client.post("/sign-in/email", { email, password: PASSWORD });
  expect(res.status).toBe(200);
  return { client, token: res.body.token, email };
}

/** A user given the admin role in identity's store (as the bootstrap command does), signed in afresh on gateway A. */
async function anAdmin(): Promise<{ client: TestClient; token: string; id: string }> {
  const { client, email } = await browser(baseA);
  const id = (await client.get("/get-session")).body.user.id;
  await identity.deps.store.updateUser(id, { role: "admin" });
  const admin = await browser(baseA, email);
  expect((await admin.client.get("/get-session")).body.user.role).toBe("admin");
  return { client: admin.client, token: admin.token, id };
}

/** The same cookie presented to the other gateway. */
function onGateway(base: string, from: TestClient): TestClient {
  const copy = new TestClient(base);
  copy.cookies.set(COOKIE, from.cookies.get(COOKIE)!);
  return copy;
}

/** The session each gateway and each session replica serves for this cookie (user id or null). */
async function everywhere(from: TestClient, token: string): Promise<Array<string | null>> {
  const seen: Array<string | null> = [];
  for (const base of [baseA, baseB]) {
    const res = await onGateway(base, from).get("/get-session");
    expect(res.status).toBe(200);
    seen.push(res.body?.user?.id ?? null);
  }
  for (const address of rpcAddresses) {
    const client = createGrpcClient(SessionServiceClient, address, { tls: grpcTlsFromEnv(workloadEnv(env, "gateway")), serverName: "session" });
    try {
      // A replica restarted by the test may take a moment to accept a new connection; what it answers is the point.
      const found = await eventually(() => call(client, client.getSession, { token, disableRefresh: true }));
      seen.push(found.session?.userId ?? null);
    } finally {
      client.close();
    }
  }
  return seen;
}

const cacheEntry = (token: string) => raw.get(`${PREFIX}session:${lookup(token)}`);
const tombstone = (token: string) => raw.get(`${PREFIX}revoked:${lookup(token)}`);

/** Redis dies; `during` runs; Redis comes back with its data while the replicas still cannot reach it. */
async function outage(during: () => Promise<void>): Promise<void> {
  await redisServer.kill();
  await during();
  relay.cut();
  await redisServer.start();
  await eventually(async () => expect(await raw.ping()).toBe("PONG"));
}

/** The replicas reach Redis again: pending tombstones are written, pending forgets done, and the lease is held again. */
async function recover(): Promise<void> {
  relay.restore();
  await eventually(async () => {
    expect(await dumpTable(env.SESSION_DATABASE_URL!, "session_pending_revocation")).toEqual([]);
    expect(await dumpTable(env.SESSION_DATABASE_URL!, "session_pending_forget")).toEqual([]);
    expect(await raw.get(`${PREFIX}cache-lease`)).not.toBeNull();
  });
}

describe.skipIf(!REDIS_SERVER_INSTALLED)(`Redis outage with 2 session replicas and 2 gateways (${TEST_DATABASE_URL ? "postgresql" : "sqlite"} + own redis-server)`, () => {
  beforeAll(async () => {
    redisServer = await startRedisServer({ persist: true });
    relay = await startRelay(redisServer.port);
    raw = new Redis(redisServer.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
    raw.on("error", () => undefined); // down on purpose; every read below waits for it to be back
    ({ env, databases } = await platformEnv({
      env: { REDIS_URL: redisServer.url, REDIS_KEY_PREFIX: PREFIX, SESSION_CACHE_LEASE_MS: "1000" },
    }));
    lookup = tokenLookup(env.AUTH_SECRET!).lookup;
    const [sessionPortB, gatewayPortB] = await freePorts(2);
    sessionEnvA = { ...env, REDIS_URL: relay.url };
    const sessionEnvB = { ...sessionEnvA, SESSION_PORT: String(sessionPortB) };
    services.push(await startNotification(env));
    sessionA = await startSession(sessionEnvA);
    services.push(await startSession(sessionEnvB));
    // After the session services: identity's start-up backfill calls its session service at once, and a
    // refused connection would leave identity's channel backing off into the first sign-up.
    identity = await startIdentity(env);
    services.push(identity);
    services.push(await startAdmin(env));
    gateways.push(await startGateway(env));
    gateways.push(await startGateway({ ...env, PORT: String(gatewayPortB), SESSION_SERVICE_URL: `127.0.0.1:${sessionPortB}` }));
    baseA = `${gateways[0]!.origin}/api/auth`;
    baseB = `${gateways[1]!.origin}/api/auth`;
    rpcAddresses.push(env.SESSION_SERVICE_URL!, `127.0.0.1:${sessionPortB}`);
  });

  afterAll(async () => {
    for (const gateway of gateways) await gateway.close();
    await sessionA?.close();
    for (const service of services.reverse()) await service.close();
    raw?.disconnect();
    await relay?.close();
    await redisServer?.close();
    await dropDatabases(databases);
  });

  afterEach(async () => {
    // A failed test must not leave the next one without Redis.
    relay.restore();
    await redisServer.start();
  });

  beforeEach(async () => {
    await eventually(async () => expect(await raw.get(`${PREFIX}cache-lease`)).not.toBeNull());
  });

  it("get-session and sign-in keep working while Redis is down (served from the store)", async () => {
    const phone = await browser(baseA);
    const userId = (await phone.client.get("/get-session")).body.user.id;
    await redisServer.kill();
    try {
      expect(await everywhere(phone.client, phone.token)).toEqual([userId, userId, userId, userId]);
      const laptop = await browser(baseB, phone.email);
      expect((await laptop.client.get("/get-session")).body.user.id).toBe(userId);
      expect(await everywhere(laptop.client, laptop.token)).toEqual([userId, userId, userId, userId]);
      expect((await phone.client.get("/list-sessions")).body).toHaveLength(2);
    } finally {
      await redisServer.start();
    }
    await recover();
    expect(await everywhere(phone.client, phone.token)).toEqual([userId, userId, userId, userId]);
  });

  it("sign-out during the outage clears the cookie, and the session stays dead when Redis returns with its old entries", async () => {
    const phone = await browser(baseA);
    const cookie = phone.client.cookies.get(COOKIE)!;
    const userId = (await phone.client.get("/get-session")).body.user.id;
    expect(await everywhere(phone.client, phone.token)).toEqual([userId, userId, userId, userId]);
    expect(await cacheEntry(phone.token)).not.toBeNull();

    await outage(async () => {
      const out = await phone.client.post("/sign-out");
      expect(out.status).toBe(200);
      expect(out.body).toEqual({ success: true });
      expect(phone.client.cookies.has(COOKIE)).toBe(false);
      phone.client.cookies.set(COOKIE, cookie);
      expect(await everywhere(phone.client, phone.token)).toEqual([null, null, null, null]);
    });
    // Redis is back with the entry written before the sign-out, and no tombstone yet: only the lapsed
    // lease keeps the gateways from serving it.
    expect(await cacheEntry(phone.token)).not.toBeNull();
    expect(await tombstone(phone.token)).toBeNull();
    expect(await everywhere(phone.client, phone.token)).toEqual([null, null, null, null]);

    await recover();
    expect(await tombstone(phone.token)).not.toBeNull();
    expect(await everywhere(phone.client, phone.token)).toEqual([null, null, null, null]);
  });

  it("change-password with revokeOtherSessions during the outage leaves no other session valid after Redis returns", async () => {
    const phone = await browser(baseA);
    const laptop = await browser(baseB, phone.email);
    const userId = (await laptop.client.get("/get-session")).body.user.id;
    expect(await everywhere(laptop.client, laptop.token)).toEqual([userId, userId, userId, userId]);
    const oldPhoneCookie = phone.client.cookies.get(COOKIE)!;
    let newToken = "";

    await outage(async () => {
      const changed = await phone.client.post("/change-password", { currentPassword: PASSWORD, newPassword: "password-456", revokeOtherSessions: true });
      expect(changed.status).toBe(200);
      newToken = changed.body.token;
      expect(newToken).toBeTruthy();
      expect(await everywhere(laptop.client, laptop.token)).toEqual([null, null, null, null]);
    });
    expect(await cacheEntry(laptop.token)).not.toBeNull();
    expect(await everywhere(laptop.client, laptop.token)).toEqual([null, null, null, null]);
    const oldPhone = new TestClient(baseA);
    oldPhone.cookies.set(COOKIE, oldPhoneCookie);
    expect(await everywhere(oldPhone, phone.token)).toEqual([null, null, null, null]);
    expect((await phone.client.get("/get-session")).body.user.id).toBe(userId);

    await recover();
    expect(await everywhere(laptop.client, laptop.token)).toEqual([null, null, null, null]);
    expect(await everywhere(oldPhone, phone.token)).toEqual([null, null, null, null]);
    expect(await everywhere(phone.client, newToken)).toEqual([userId, userId, userId, userId]);
    expect((await new TestClient(baseB).post("/sign-in/email", { email: phone.email, password: PASSWORD })).status).toBe(401);
    expect((await new TestClient(baseB).post("/sign-in/email", { email: phone.email, password: "password-456" })).status).toBe(200);
  });

  it("revoke-session and revoke-other-sessions during the outage: the revoked sessions stay dead after Redis returns", async () => {
    const first = await browser(baseA);
    const second = await browser(baseB, first.email);
    const third = await browser(baseA, first.email);
    const userId = (await first.client.get("/get-session")).body.user.id;
    for (const b of [second, third]) expect(await everywhere(b.client, b.token)).toEqual([userId, userId, userId, userId]);

    await outage(async () => {
      const listed = await first.client.get("/list-sessions");
      expect(listed.body.map((s: { token: string }) => s.token).sort()).toEqual([first.token, second.token, third.token].sort());
      expect((await first.client.post("/revoke-session", { token: second.token })).body).toEqual({ status: true });
      expect(await everywhere(second.client, second.token)).toEqual([null, null, null, null]);
      expect((await onGateway(baseB, first.client).post("/revoke-other-sessions")).body).toEqual({ status: true });
      expect(await everywhere(third.client, third.token)).toEqual([null, null, null, null]);
    });
    expect(await cacheEntry(second.token)).not.toBeNull();
    expect(await cacheEntry(third.token)).not.toBeNull();
    expect(await everywhere(second.client, second.token)).toEqual([null, null, null, null]);
    expect(await everywhere(third.client, third.token)).toEqual([null, null, null, null]);
    expect(await everywhere(first.client, first.token)).toEqual([userId, userId, userId, userId]);

    await recover();
    expect(await everywhere(second.client, second.token)).toEqual([null, null, null, null]);
    expect(await everywhere(third.client, third.token)).toEqual([null, null, null, null]);
    expect(await everywhere(first.client, first.token)).toEqual([userId, userId, userId, userId]);
  });

  it("a partial outage (the replicas lose Redis, the gateways keep it): a revoked session's cached entry is not served", async () => {
    const phone = await browser(baseA);
    const userId = (await phone.client.get("/get-session")).body.user.id;
    expect(await everywhere(phone.client, phone.token)).toEqual([userId, userId, userId, userId]);
    const stolen = onGateway(baseB, phone.client);

    relay.cut();
    expect((await phone.client.post("/sign-out")).body).toEqual({ success: true });
    // The gateways read the entry straight from Redis, which never went away: without the lease they would
    // serve the revoked session from it.
    expect(await cacheEntry(phone.token)).not.toBeNull();
    expect(await tombstone(phone.token)).toBeNull();
    expect((await stolen.get("/get-session")).body).toBeNull();
    expect((await onGateway(baseA, stolen).get("/get-session")).body).toBeNull();

    await recover();
    expect(await tombstone(phone.token)).not.toBeNull();
    expect((await stolen.get("/get-session")).body).toBeNull();
  });

  it("update-user and set-role during the outage answer 200, and once Redis is back with its old entries every gateway serves the change", async () => {
    const user = await browser(baseA);
    const boss = await anAdmin();
    const deputy = await anAdmin();
    const userId = (await user.client.get("/get-session")).body.user.id;
    // Every gateway and replica has read each session: Redis holds an entry of each, with the old values.
    expect(await everywhere(user.client, user.token)).toEqual([userId, userId, userId, userId]);
    expect(await everywhere(deputy.client, deputy.token)).toEqual([deputy.id, deputy.id, deputy.id, deputy.id]);
    for (const base of [baseA, baseB]) expect((await onGateway(base, deputy.client).get("/admin/list-users")).status).toBe(200);

    await outage(async () => {
      const renamed = await user.client.post("/update-user", { name: "Renamed" });
      expect(renamed.status).toBe(200);
      const demoted = await boss.client.post("/admin/set-role", { userId: deputy.id, role: "user" });
      expect(demoted.status).toBe(200);
      expect(demoted.body.user.role).toBe("user");
    });
    // Redis is back with the entries from before the changes: the lapsed lease keeps them from being served.
    expect(await cacheEntry(user.token)).toContain('"name":"Out"');
    expect(await cacheEntry(deputy.token)).toContain('"role":"admin"');
    for (const base of [baseA, baseB]) expect((await onGateway(base, user.client).get("/get-session")).body.user.name).toBe("Renamed");

    await recover();
    for (const base of [baseA, baseB]) {
      expect((await onGateway(base, user.client).get("/get-session")).body.user.name).toBe("Renamed");
      expect((await onGateway(base, deputy.client).get("/get-session")).body.user.role).toBe("user");
      const refused = await onGateway(base, deputy.client).get("/admin/list-users");
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe("ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT");
    }
    // Served from the cache again (filled afresh), still the new values.
    for (const base of [baseA, baseB]) expect((await onGateway(base, user.client).get("/get-session")).body.user.name).toBe("Renamed");
    expect(await cacheEntry(user.token)).toContain('"name":"Renamed"');
  });

  it("change-password whose revocation fails changes nothing: the old password still works, the new one does not; sign-out still clears the cookie", async () => {
    const phone = await browser(baseB);
    const laptop = await browser(baseB, phone.email);
    const userId = (await laptop.client.get("/get-session")).body.user.id;
    // Identity reaches the session service through replica A only; the gateway B uses replica B.
    await sessionA.close();
    try {
      const changed = await phone.client.post("/change-password", { currentPassword: PASSWORD, newPassword: "password-789", revokeOtherSessions: true });
      expect(changed.status).toBe(503);
      expect(changed.body.code).toBe("SERVICE_UNAVAILABLE");
      expect((await laptop.client.get("/get-session")).body.user.id).toBe(userId);
      // Sign-out through a gateway whose session service is down: the error is reported, the cookie goes anyway.
      const elsewhere = onGateway(baseA, laptop.client);
      const out = await elsewhere.post("/sign-out");
      expect(out.status).toBe(503);
      expect(elsewhere.cookies.has(COOKIE)).toBe(false);
    } finally {
      sessionA = await startSession(sessionEnvA);
    }
    const old = await eventually(async () => {
      const res = await new TestClient(baseA).post("/sign-in/email", { email: phone.email, password: PASSWORD });
      if (res.status !== 200) throw new Error(`not yet: ${res.status}`);
      return res;
    });
    expect(old.body.user.id).toBe(userId);
    expect((await new TestClient(baseA).post("/sign-in/email", { email: phone.email, password: "password-789" })).status).toBe(401);
    expect(await everywhere(laptop.client, laptop.token)).toEqual([userId, userId, userId, userId]);
  });
});

if (!REDIS_SERVER_INSTALLED) {
  describe("Redis outage", () => {
    it.skip("needs redis-server on PATH (apt-get install redis-server): the outage tests start and kill their own", () => undefined);
  });
}
