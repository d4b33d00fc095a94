/**
 * Two session replicas sharing Redis, two gateways each watching a different replica: a change made through
 * one gateway (so on one replica) is what the other gateway serves on its very next get-session, although
 * both answer warm reads from their own memory (docs/adr/0056-gateway-session-cache-invalidated-by-pushes.md,
 * "Several replicas"). Redis is the test's own server behind a relay the test can cut; replica B is a child
 * process it can kill, reached by gateway B through a relay that then leads to replica A.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StartedProcess, startProcess } from "../../deploy/processes.js";
import { eventually } from "../../testing/eventually.js";
import { TestClient } from "../../testing/http.js";
import { sample, scrapeMetrics } from "../../testing/metrics.js";
import { freePorts, type RunningGateway, startGateway, workloadEnv } from "../../testing/platform.js";
import { REDIS_SERVER_INSTALLED, startRedisServer, type TestRedisServer } from "../../testing/redis-server.js";
import { type Relay, startRelay } from "../../testing/tcp-relay.js";
import { usePlatform } from "../../testing/use-platform.js";
import { aUser, anAdmin } from "./admin-fixtures.js";
import { organizationOf } from "./organization-fixtures.js";

const COOKIE = "better-auth.session_token";
const HITS = sample("auth_gateway_session_cache_lookups_total", { result: "hit" });

describe.skipIf(!REDIS_SERVER_INSTALLED)("session changes relayed across session replicas through Redis (needs redis-server)", () => {
  let redis: TestRedisServer;
  let redisRelay: Relay;
  let replicaB: StartedProcess | undefined;
  let toReplicaB: Relay;
  let gatewayB: RunningGateway;
  let baseB: string;
  // Read by usePlatform when its own hook runs, after this one has started Redis.
  // A lease of 1.5 s: the wait with Redis cut (twice the lease, 3 s) leaves the 5 s deadline room on a loaded machine.
  const env: Record<string, string> = { REDIS_KEY_PREFIX: "relay-test:", METRICS_PORT: "0", SESSION_CACHE_LEASE_MS: "1500" };

  beforeAll(async () => {
    redis = await startRedisServer();
    redisRelay = await startRelay(redis.port);
    env.REDIS_URL = redisRelay.url;
  });
  afterAll(async () => {
    await redisRelay?.close();
    await redis?.close();
  });

  const platform = usePlatform({ env });

  beforeAll(async () => {
    const [portB, gatewayPort] = await freePorts(2);
    replicaB = await startProcess("session", {
      env: workloadEnv({ ...platform.env, LOG_LEVEL: "info", SESSION_PORT: String(portB) }, "session"),
      label: "session-b",
    });
    toReplicaB = await startRelay(portB);
    gatewayB = await startGateway({ ...platform.env, PORT: String(gatewayPort), SESSION_SERVICE_URL: `127.0.0.1:${toReplicaB.port}` });
    baseB = `${gatewayB.origin}/api/auth`;
  }, 60_000);
  afterAll(async () => {
    await gatewayB?.close();
    await replicaB?.stop("SIGKILL");
    await toReplicaB?.close();
  });

  /** The same cookie presented to gateway B. */
  const onB = (from: TestClient) => {
    const copy = new TestClient(baseB);
    copy.cookies.set(COOKIE, from.cookies.get(COOKIE)!);
    return copy;
  };
  const hits = async () => (await scrapeMetrics(platform.gateway.metricsPort)).get(HITS) ?? 0;

  /** Reads twice on each client: the second read of each is answered from that gateway's memory. */
  async function warm(...clients: TestClient[]) {
    for (const c of clients) {
      const before = await hits();
      for (let i = 0; i < 2; i++) expect((await c.get("/get-session")).body).not.toBeNull();
      expect(await hits()).toBeGreaterThan(before);
    }
  }

  it("each gateway watches its own replica and answers warm reads from memory", async () => {
    const { c } = await aUser(platform);
    // Gateway B reaches only replica B, so a lease it holds (its memory answering) comes from B.
    await eventually(() => warm(onB(c)));
    await eventually(() => warm(c));
    // Gateway A (the platform's) watches replica A, in this process.
    expect(platform.services.session.deps.events.leasesEndBy()).toBeGreaterThan(Number.NEGATIVE_INFINITY);
  });

  it("a sign-out through gateway A: gateway B serves no session on its next read", async () => {
    const { c } = await aUser(platform);
    const b = onB(c);
    await eventually(() => warm(c, b));
    expect((await c.post("/sign-out")).body).toEqual({ success: true });
    expect((await b.get("/get-session")).body).toBeNull();
  });

  it("revoke-sessions through gateway B ends the session gateway A holds", async () => {
    const { c } = await aUser(platform);
    const b = onB(c);
    await eventually(() => warm(c, b));
    expect((await b.post("/revoke-sessions")).status).toBe(200);
    expect((await c.get("/get-session")).body).toBeNull();
  });

  it("update-user through gateway A: gateway B serves the new name at once", async () => {
    const { c } = await aUser(platform, "Before");
    const b = onB(c);
    await eventually(() => warm(c, b));
    expect((await c.post("/update-user", { name: "After" })).status).toBe(200);
    expect((await b.get("/get-session")).body.user.name).toBe("After");
  });

  it("set-role, then ban-user by an admin on gateway A: gateway B serves the demoted role, then no session", async () => {
    const admin = await anAdmin(platform);
    const target = await anAdmin(platform);
    const b = onB(target.c);
    await eventually(() => warm(b));
    expect((await b.get("/get-session")).body.user.role).toBe("admin");
    expect((await admin.c.post("/admin/set-role", { userId: target.id, role: "user" })).status).toBe(200);
    expect((await b.get("/get-session")).body.user.role).toBe("user");
    await eventually(() => warm(b));
    expect((await admin.c.post("/admin/ban-user", { userId: target.id })).status).toBe(200);
    expect((await b.get("/get-session")).body).toBeNull();
  });

  it("set-active organization through gateway A: gateway B serves the new active organization", async () => {
    const owner = await aUser(platform, "Owner");
    const org = await organizationOf({ c: owner.c, email: owner.email, user: { id: owner.id, name: "Owner", email: owner.email } });
    const b = onB(owner.c);
    expect((await owner.c.post("/organization/set-active", { organizationId: null })).status).toBe(200);
    await eventually(() => warm(owner.c, b));
    expect((await b.get("/get-session")).body.session.activeOrganizationId).toBeNull();
    expect((await owner.c.post("/organization/set-active", { organizationId: org.id })).status).toBe(200);
    expect((await b.get("/get-session")).body.session.activeOrganizationId).toBe(org.id);
  });

  it("Redis cut during a sign-out: it answers after the replicas' registration is waited out, and neither gateway serves it", async () => {
    const { c } = await aUser(platform);
    const b = onB(c);
    await eventually(() => warm(c, b));
    redisRelay.cut();
    try {
      const started = performance.now();
      expect((await c.post("/sign-out")).body).toEqual({ success: true });
      // 1.5 times SESSION_CACHE_LEASE_MS: every lease of a replica that could not hear of it has ended.
      expect(performance.now() - started).toBeGreaterThanOrEqual(2_250);
      expect((await b.get("/get-session")).body).toBeNull();
      expect((await onB(c).get("/get-session")).body).toBeNull();
    } finally {
      redisRelay.restore();
    }
    // Back: both replicas register afresh and gateway B's memory answers again.
    const { c: later } = await aUser(platform);
    await eventually(() => warm(onB(later)), 15_000);
  });

  it("replica B killed: gateway B reconnects (to replica A), starts empty and serves what is true", async () => {
    const { c } = await aUser(platform);
    const b = onB(c);
    await eventually(() => warm(c, b));
    toReplicaB.setTarget(Number(platform.sessionAddress.split(":")[1]));
    await replicaB!.stop("SIGKILL");
    replicaB = undefined;
    // A change now waits for replica B's registration to lapse (it can no longer say done): still within the deadline.
    expect((await c.post("/update-user", { name: "After kill" })).status).toBe(200);
    await eventually(async () => expect((await b.get("/get-session")).body.user.name).toBe("After kill"));
    await eventually(() => warm(b));
    expect((await c.post("/sign-out")).body).toEqual({ success: true });
    expect((await b.get("/get-session")).body).toBeNull();
  });
});
