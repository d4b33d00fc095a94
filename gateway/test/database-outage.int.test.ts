/**
 * A service's PostgreSQL database out of reach mid-run. The session and identity
 * services reach their databases through relays the test cuts (every connection closed, new ones refused),
 * as a stopped server looks to them, or partitions (nothing forwarded, nothing refused); the shared PostgreSQL server is never touched. Every
 * route that needs the missing database answers 503 with Retry-After and the catalogue's message (before:
 * 500 with the driver's error logged as unexpected), a signed-in user's get-session is served from the
 * session cache for SESSION_CACHE_STALE_SERVE_SECONDS and then 503, a session revoked before the outage or
 * signed out during it is never served, and everything works again once the database is back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkDependencies } from "@auth-platform/runtime/dependencies";
import { dropDatabases, TEST_DATABASE_URL, TEST_REDIS_URL, type TestDatabase } from "../../testing/databases.js";
import { eventually } from "../../testing/eventually.js";
import { type JsonResponse, TestClient, uniqueEmail } from "../../testing/http.js";
import {
  platformEnv,
  type RunningGateway,
  type RunningIdentity,
  type RunningSession,
  startGateway,
  startIdentity,
  startNotification,
  startSession,
} from "../../testing/platform.js";
import { type Relay, startRelay } from "../../testing/tcp-relay.js";
import { testClock } from "../../testing/test-clock.js";
import type { RunningService } from "@auth-platform/runtime/service";

const PASSWORD = "password-123";
const COOKIE = "better-auth.session_token";
const LEASE_MS = 1_000;
const STALE_SERVE_SECONDS = 60;
const UNAVAILABLE = { code: "SERVICE_UNAVAILABLE", message: "Service unavailable" };

let env: Record<string, string>;
let databases: TestDatabase[] = [];
let notification: RunningService;
let session: RunningSession;
let identity: RunningIdentity;
let gateway: RunningGateway;
let sessionDb: Relay;
let identityDb: Relay;
let base: string;
const clock = testClock();
const logs: Array<Record<string, unknown>> = [];

/** The database URL with its host:port replaced by the relay's. */
function behind(url: string, relay: Relay): string {
  const through = new URL(url);
  through.host = `127.0.0.1:${relay.port}`;
  return through.toString();
}

async function signedUp(): Promise<{ client: TestClient; email: string; userId: string }> {
  const client = new TestClient(base);
  const email = uniqueEmail("db-outage");
  const res = await client.post("/sign-up/email", { name: "Outage", email, password: PASSWORD });
  expect(res.status).toBe(200);
  return { client, email, userId: res.body.user.id };
}

/** Another browser holding the same session cookie (the copy survives the original's sign-out). */
function sameCookie(from: TestClient): TestClient {
  const copy = new TestClient(base);
  copy.cookies.set(COOKIE, from.cookies.get(COOKIE)!);
  return copy;
}

function expectUnavailable(res: JsonResponse): void {
  expect({ status: res.status, body: res.body, retryAfter: res.headers.get("retry-after") }).toEqual({ status: 503, body: UNAVAILABLE, retryAfter: "5" });
}

const seenLogs = () => logs.map((line) => `${line.service} ${line.level} ${line.msg}`);

describe.skipIf(!TEST_DATABASE_URL || !TEST_REDIS_URL)("a service's PostgreSQL database out of reach (postgresql + redis)", () => {
  beforeAll(async () => {
    ({ env, databases } = await platformEnv({
      env: { SESSION_CACHE_LEASE_MS: String(LEASE_MS), SESSION_CACHE_STALE_SERVE_SECONDS: String(STALE_SERVE_SECONDS), LOG_LEVEL: "info" },
    }));
    sessionDb = await startRelay(Number(new URL(env.SESSION_DATABASE_URL!).port || 5432));
    identityDb = await startRelay(Number(new URL(env.IDENTITY_DATABASE_URL!).port || 5432));
    env.SESSION_DATABASE_URL = behind(env.SESSION_DATABASE_URL!, sessionDb);
    env.IDENTITY_DATABASE_URL = behind(env.IDENTITY_DATABASE_URL!, identityDb);
    const sink = (line: Record<string, unknown>) => void logs.push(line);
    notification = await startNotification(env, sink);
    session = await startSession(env, sink);
    identity = await startIdentity(env, sink);
    gateway = await startGateway(env, sink);
    base = `${gateway.origin}/api/auth`;
  });

  afterAll(async () => {
    sessionDb?.restore();
    identityDb?.restore();
    await gateway?.close();
    await identity?.close();
    await session?.close();
    await notification?.close();
    await sessionDb?.close();
    await identityDb?.close();
    await dropDatabases(databases);
    clock.restore();
  });

  it("session database away: get-session from the cache for the configured time, never a revoked session, every write 503 with Retry-After; all back after", async () => {
    const signedIn = await signedUp();
    const revokedBefore = await signedUp();
    const revokedCookie = sameCookie(revokedBefore.client);
    expect((await revokedBefore.client.post("/sign-out")).status).toBe(200);
    const signsOutDuring = await signedUp();
    const signedOutCookie = sameCookie(signsOutDuring.client);

    sessionDb.cut();
    // The session service notices at its next lease check (a third of the lease), and says so.
    await eventually(async () => expect(session.deps.lease.staleServingUntil()).toBeGreaterThan(0));
    expect(seenLogs()).toContain("session warn session store unreachable: serving cached sessions read-only");
    // Past the last lease granted: the gateway no longer trusts the cache itself and asks the session
    // service, which answers from the entries it holds.
    clock.advance(2 * LEASE_MS);

    const served = await signedIn.client.get("/get-session");
    expect(served.status).toBe(200);
    expect(served.body.user.id).toBe(signedIn.userId);
    expect((await revokedCookie.get("/get-session")).body).toBeNull();

    // Sign-in, sign-up, list-sessions and sign-out all need the session store.
    expectUnavailable(await new TestClient(base).post("/sign-in/email", { email: signedIn.email, password: PASSWORD }));
    expectUnavailable(await new TestClient(base).post("/sign-up/email", { name: "Late", email: uniqueEmail("db-outage"), password: PASSWORD }));
    expectUnavailable(await signedIn.client.get("/list-sessions"));
    expectUnavailable(await signsOutDuring.client.post("/sign-out"));
    // The sign-out failed, but the token it ended on this browser is not served from the cache either.
    expect((await signedOutCookie.get("/get-session")).body).toBeNull();

    // Readiness stays SERVING (every replica shares the database); the outage is reported.
    const dependencies = await checkDependencies();
    expect(dependencies.ready).toBe(true);
    expect(dependencies.failures.some((failure) => failure.startsWith("database:"))).toBe(true);

    // Past the configured window: the outage is the answer, not "no session". The gateway's own memory
    // got no lease since the store went away; the last one it held has ended by now.
    await eventually(async () => expect(gateway.sessionMemory?.holdsLease() ?? false).toBe(false));
    clock.advance(STALE_SERVE_SECONDS * 1000);
    expectUnavailable(await signedIn.client.get("/get-session"));

    sessionDb.restore();
    const back = await eventually(async () => {
      const res = await signedIn.client.get("/get-session");
      expect(res.status).toBe(200);
      return res;
    });
    expect(back.body.user.id).toBe(signedIn.userId);
    const again = await eventually(async () => {
      const res = await new TestClient(base).post("/sign-in/email", { email: signedIn.email, password: PASSWORD });
      expect(res.status).toBe(200);
      return res;
    });
    expect(again.body.user.id).toBe(signedIn.userId);
    expect((await revokedCookie.get("/get-session")).body).toBeNull();
    expect((await signedOutCookie.get("/get-session")).body).toBeNull();
    // Its sign-out, retried, now ends the session in the store too.
    expect((await signedOutCookie.post("/sign-out")).status).toBe(200);
    expect(seenLogs().filter((line) => / error /.test(line))).toEqual([]);
  });

  it("identity database away: its routes answer 503 with Retry-After, sessions keep working; all back after", async () => {
    const user = await signedUp();
    identityDb.cut();

    expectUnavailable(await new TestClient(base).post("/sign-in/email", { email: user.email, password: PASSWORD }));
    expectUnavailable(await new TestClient(base).post("/sign-up/email", { name: "Late", email: uniqueEmail("db-outage"), password: PASSWORD }));
    expectUnavailable(await user.client.post("/update-user", { name: "Renamed" }));
    const current = await user.client.get("/get-session");
    expect(current.status).toBe(200);
    expect(current.body.user.id).toBe(user.userId);

    // Partitioned instead (nothing answers, nothing is refused): the call runs out of time, still a 503
    // with Retry-After.
    identityDb.restore();
    identityDb.partition();
    expectUnavailable(await new TestClient(base).post("/sign-in/email", { email: user.email, password: PASSWORD }));

    identityDb.restore();
    const renamed = await eventually(async () => {
      const res = await user.client.post("/update-user", { name: "Renamed" });
      expect(res.status).toBe(200);
      return res;
    });
    expect(renamed.body).toEqual({ status: true });
    expect((await new TestClient(base).post("/sign-in/email", { email: user.email, password: PASSWORD })).status).toBe(200);
    expect(seenLogs()).toContain("identity warn database unreachable: answering SERVICE_UNAVAILABLE");
    expect(seenLogs().filter((line) => / error /.test(line))).toEqual([]);
  });
});
