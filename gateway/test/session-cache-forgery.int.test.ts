/**
 * Issue 33: the shared session cache was trusted as written, so whoever could write to Redis edited their
 * cached session record (plain JSON) and was served as an admin or as another user. Each entry now carries a
 * MAC under a key derived from AUTH_SECRET: an edited entry, or a valid one moved under another token's key,
 * is a miss (the session service's store answers), logged, counted, and with Redis (where the gateway reads
 * the cache itself) reported in the audit log. On memory the cache is the session service's and is edited
 * through it; with TEST_REDIS_URL the same edits go to Redis, where the gateway reads them on its warm path.
 */
import { describe, expect, it } from "vitest";
import { enableMetrics } from "@auth-platform/runtime/metrics";
import { backendLabel, TEST_REDIS_URL } from "../../testing/databases.js";
import { eventually } from "../../testing/eventually.js";
import { usePlatform } from "../../testing/use-platform.js";
import { aUser, anAdmin } from "./admin-fixtures.js";

const logs: Array<Record<string, unknown>> = [];
// The gateway's own memory would answer before the shared entry is read; this suite is about that entry
// (a fill of the memory reads it through the same MAC check).
const platform = usePlatform({ env: { LOG_LEVEL: "warn", GATEWAY_SESSION_CACHE_SIZE: "0" }, logs: (entry) => logs.push(entry) });

/** The session cache the session service writes (Redis, shared with the gateway, or its own memory). */
function cache() {
  const { cache: kv, tokens } = platform.services.session.deps;
  const keyOf = (token: string) => `session:${tokens.lookup(token)}`;
  return {
    get: (token: string) => kv.get(keyOf(token)),
    put: (token: string, entry: string) => kv.set(keyOf(token), entry, 3_600_000),
  };
}

/** A signed-in user whose session is in the cache, with the entry as the session service wrote it. */
async function warmUser(agent: string) {
  const user = await aUser(platform);
  const token = decodeURIComponent(user.c.cookies.get("better-auth.session_token")!).split(".")[0]!;
  const res = await user.c.get("/get-session", { "user-agent": agent });
  expect(res.body.user).toMatchObject({ id: user.id, role: "user" });
  const entry = await eventually(async () => {
    const found = await cache().get(token);
    expect(found).not.toBeNull();
    return found!;
  });
  return { ...user, token, entry };
}

async function refusals(): Promise<number> {
  const metric = (await enableMetrics()).getSingleMetric("auth_cache_records_refused_total");
  return metric ? (await metric.get()).values.reduce((sum, v) => sum + v.value, 0) : 0;
}

describe(`a session cache entry edited or moved by whoever can write to the cache (${backendLabel()})`, () => {
  it("an entry edited to make its user an admin is refused: get-session and the admin service see the stored role", async () => {
    const agent = `cache-forgery-role/${Date.now()}`;
    const user = await warmUser(agent);
    expect(user.entry).toContain('"role":"user"');
    const before = await refusals();

    await cache().put(user.token, user.entry.replace('"role":"user"', '"role":"admin"'));
    // The admin service asks the session service who the caller is: the forged role must not count.
    expect((await user.c.get("/admin/list-users", { "user-agent": agent })).status).toBe(403);

    await cache().put(user.token, user.entry.replace('"role":"user"', '"role":"admin"'));
    const res = await user.c.get("/get-session", { "user-agent": agent });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ id: user.id, role: "user" });
    expect(await refusals()).toBeGreaterThan(before);
    expect(logs).toContainEqual(expect.objectContaining({ level: "warn", msg: expect.stringContaining("session cache entry refused"), reason: "invalid-mac" }));
    // The miss was filled again with the genuine record.
    expect(await cache().get(user.token)).toContain('"role":"user"');
  });

  it("an entry edited to make its session another user's is refused: the request stays its own user's", async () => {
    const agent = `cache-forgery-user/${Date.now()}`;
    const [user, victim] = [await warmUser(agent), await warmUser(agent)];
    await cache().put(user.token, user.entry.replaceAll(user.id, victim.id).replace(user.email, victim.email));
    const res = await user.c.get("/get-session", { "user-agent": agent });
    expect(res.body.user).toMatchObject({ id: user.id, email: user.email });
    expect(res.body.session.userId).toBe(user.id);
  });

  it("an admin's valid entry moved under a user's token is refused: the user does not become the admin", async () => {
    const agent = `cache-forgery-moved/${Date.now()}`;
    const admin = await anAdmin(platform);
    expect((await admin.c.get("/get-session")).body.user.role).toBe("admin");
    const adminEntry = await eventually(async () => (await cache().get(admin.token)) ?? Promise.reject(new Error("not cached yet")));
    const user = await warmUser(agent);

    await cache().put(user.token, adminEntry);
    expect((await user.c.get("/admin/list-users", { "user-agent": agent })).status).toBe(403);
    await cache().put(user.token, adminEntry);
    const res = await user.c.get("/get-session", { "user-agent": agent });
    expect(res.body.user).toMatchObject({ id: user.id, role: "user" });
    // The admin's own entry is untouched and still served.
    expect((await admin.c.get("/get-session")).body.user).toMatchObject({ id: admin.id, role: "admin" });

    // With Redis the gateway read the moved entry itself: the audit log shows the refusal and the request.
    if (TEST_REDIS_URL) {
      const events = await eventually(async () => {
        const listed = await admin.c.get(`/admin/list-audit-events?action=session-cache.entry-refused`);
        expect(listed.status).toBe(200);
        const mine = (listed.body.events as Array<Record<string, unknown>>).filter((e) => e.userAgent === agent);
        expect(mine.length).toBeGreaterThan(0);
        return mine;
      });
      expect(events[0]).toMatchObject({ action: "session-cache.entry-refused", outcome: "failure", userAgent: agent, details: { reason: "invalid-mac" } });
    }
  });
});
