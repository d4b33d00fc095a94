/**
 * Two gateways, each holding sessions in its own memory (GATEWAY_SESSION_CACHE_SIZE), kept by the session
 * service's pushes: whatever changes through one gateway is what the other serves on its very next
 * get-session, and nothing revoked, banned or demoted is served once the change has answered
 * (docs/adr/0056-gateway-session-cache-invalidated-by-pushes.md). On the embedded default the warm reads
 * are answered from memory (counted as hits); with Redis the session service grants no lease yet and the
 * same reads come from the shared cache.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendLabel, TEST_REDIS_URL } from "../../testing/databases.js";
import { TestClient } from "../../testing/http.js";
import { sample, scrapeMetrics } from "../../testing/metrics.js";
import { freePorts, type RunningGateway, startGateway } from "../../testing/platform.js";
import { usePlatform } from "../../testing/use-platform.js";
import { aUser, anAdmin } from "./admin-fixtures.js";
import { organizationOf } from "./organization-fixtures.js";

const COOKIE = "better-auth.session_token";
const HITS = sample("auth_gateway_session_cache_lookups_total", { result: "hit" });

describe(`two gateways' own session memories (${backendLabel()})`, () => {
  const platform = usePlatform({ env: { METRICS_PORT: "0" } });
  let other: RunningGateway;
  let otherBase: string;

  beforeAll(async () => {
    const [port] = await freePorts(1);
    other = await startGateway({ ...platform.env, PORT: String(port) });
    otherBase = `${other.origin}/api/auth`;
  });
  afterAll(() => other?.stop());

  /** The same cookie presented to the other gateway. */
  const onOther = (from: TestClient) => {
    const copy = new TestClient(otherBase);
    copy.cookies.set(COOKIE, from.cookies.get(COOKIE)!);
    return copy;
  };

  /** Reads the session twice on both gateways, so each holds it (the second read is a hit on the embedded default). */
  async function warm(...clients: TestClient[]) {
    const before = (await scrapeMetrics(platform.gateway.metricsPort)).get(HITS) ?? 0;
    for (const c of clients) {
      for (let i = 0; i < 2; i++) {
        expect((await c.get("/get-session")).body).not.toBeNull();
      }
    }
    const after = (await scrapeMetrics(platform.gateway.metricsPort)).get(HITS) ?? 0;
    if (!TEST_REDIS_URL) expect(after - before).toBeGreaterThanOrEqual(clients.length);
  }

  it("a sign-out through one gateway: the other serves no session on its next read", async () => {
    const { c } = await aUser(platform);
    const b = onOther(c);
    await warm(c, b);
    expect((await c.post("/sign-out")).body).toEqual({ success: true });
    expect((await b.get("/get-session")).body).toBeNull();
  });

  it("revoke-sessions through one gateway ends the session the other holds", async () => {
    const { c } = await aUser(platform);
    const b = onOther(c);
    await warm(c, b);
    expect((await c.post("/revoke-sessions")).status).toBe(200);
    expect((await b.get("/get-session")).body).toBeNull();
  });

  it("update-user through one gateway: the other serves the new name at once", async () => {
    const { c } = await aUser(platform, "Before");
    const b = onOther(c);
    await warm(c, b);
    expect((await c.post("/update-user", { name: "After" })).status).toBe(200);
    expect((await b.get("/get-session")).body.user.name).toBe("After");
  });

  it("set-role and ban-user by an admin through one gateway: the other serves the demoted role, then no session", async () => {
    const admin = await anAdmin(platform);
    const target = await anAdmin(platform);
    const b = onOther(target.c);
    await warm(target.c, b);
    expect((await b.get("/get-session")).body.user.role).toBe("admin");
    expect((await admin.c.post("/admin/set-role", { userId: target.id, role: "user" })).status).toBe(200);
    expect((await b.get("/get-session")).body.user.role).toBe("user");
    await warm(b);
    expect((await admin.c.post("/admin/ban-user", { userId: target.id })).status).toBe(200);
    expect((await b.get("/get-session")).body).toBeNull();
  });

  it("set-active organization through one gateway: the other serves the new active organization", async () => {
    const owner = await aUser(platform, "Owner");
    const org = await organizationOf({ c: owner.c, email: owner.email, user: { id: owner.id, name: "Owner", email: owner.email } });
    const b = onOther(owner.c);
    expect((await owner.c.post("/organization/set-active", { organizationId: null })).status).toBe(200);
    await warm(owner.c, b);
    expect((await b.get("/get-session")).body.session.activeOrganizationId).toBeNull();
    expect((await owner.c.post("/organization/set-active", { organizationId: org.id })).status).toBe(200);
    expect((await b.get("/get-session")).body.session.activeOrganizationId).toBe(org.id);
  });
});
