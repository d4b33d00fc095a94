/**
 * Two gateway processes and two session-service processes sharing one Redis and one database: a session
 * revoked through one is refused by the other on the very next request, the rate limit counts across
 * both gateways, and both session replicas sign JWTs with the one key they made together.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeProtectedHeader } from "jose";
import { type StartedProcess, startProcess } from "../../deploy/processes.js";
import { dropDatabases, TEST_REDIS_URL, type TestDatabase } from "../../testing/databases.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { freePorts, platformEnv, workloadEnv } from "../../testing/platform.js";

const processes: StartedProcess[] = [];
let databases: TestDatabase[] = [];
let gatewayA: string;
let gatewayB: string;

describe.skipIf(!TEST_REDIS_URL)("replicas sharing Redis (needs TEST_REDIS_URL)", () => {
  beforeAll(async () => {
    const platform = await platformEnv({ rateLimit: true });
    const env = { ...platform.env, LOG_LEVEL: "info" }; // startProcess waits for the "listening" line
    databases = platform.databases;
    const [sessionB, portA, portB] = await freePorts(3);
    const sessionBUrl = `127.0.0.1:${sessionB}`;
    processes.push(await startProcess("notification", { env: workloadEnv(env, "notification") }));
    processes.push(await startProcess("identity", { env: workloadEnv(env, "identity") }));
    processes.push(await startProcess("session", { env: workloadEnv(env, "session"), label: "session-a" }));
    processes.push(await startProcess("session", { env: workloadEnv({ ...env, SESSION_PORT: String(sessionB) }, "session"), label: "session-b" }));
    processes.push(await startProcess("gateway", { env: workloadEnv({ ...env, PORT: String(portA) }, "gateway"), label: "gateway-a" }));
    processes.push(await startProcess("gateway", { env: workloadEnv({ ...env, PORT: String(portB), SESSION_SERVICE_URL: sessionBUrl }, "gateway"), label: "gateway-b" }));
    gatewayA = `http://127.0.0.1:${portA}/api/auth`;
    gatewayB = `http://127.0.0.1:${portB}/api/auth`;
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop("SIGKILL")));
    await dropDatabases(databases);
  });

  it("a session revoked through one replica is refused by the other on the next request", async () => {
    const a = new TestClient(gatewayA, { "x-forwarded-for": "10.1.0.1" });
    const signUp = await a.post("/sign-up/email", { name: "Rep", email: uniqueEmail("replica"), password: "password-123" });
    expect(signUp.status).toBe(200);
    const b = new TestClient(gatewayB, { "x-forwarded-for": "10.1.0.1" });
    b.cookies.set("better-auth.session_token", a.cookies.get("better-auth.session_token")!);
    // Warm both paths: both gateways now serve this session from the shared cache.
    expect((await a.get("/get-session")).body.user.id).toBe(signUp.body.user.id);
    expect((await b.get("/get-session")).body.user.id).toBe(signUp.body.user.id);

    expect((await a.post("/sign-out")).body).toEqual({ success: true });
    expect((await b.get("/get-session")).body).toBeNull();
    expect((await b.get("/list-sessions")).status).toBe(401);
  });

  it("revoke-other-sessions through B ends a session that A keeps serving", async () => {
    const email = uniqueEmail("others");
    const phone = new TestClient(gatewayA, { "x-forwarded-for": "10.1.0.2" });
    await phone.post("/sign-up/email", { name: "Rep", email, password: "password-123" });
    const laptop = new TestClient(gatewayB, { "x-forwarded-for": "10.1.0.3" });
    expect((await laptop.post("/sign-in/email", { email, password: "password-123" })).status).toBe(200);
    expect((await phone.get("/get-session")).body).not.toBeNull();

    expect((await laptop.post("/revoke-other-sessions")).body).toEqual({ status: true });
    expect((await phone.get("/get-session")).body).toBeNull();
    expect((await laptop.get("/get-session")).body).not.toBeNull();
  });

  it("both session replicas, asked at once for their first JWTs, sign with one key and list the same set", async () => {
    const a = new TestClient(gatewayA, { "x-forwarded-for": "10.1.0.4" });
    const signUp = await a.post("/sign-up/email", { name: "Rep", email: uniqueEmail("jwt"), password: "password-123" });
    const bearer = { authorization: `Bearer ${signUp.body.token as string}` };
    const answers = await Promise.all([gatewayA, gatewayB, gatewayA, gatewayB].map((base) => new TestClient(base, { "x-forwarded-for": "10.1.0.4" }).get("/token", bearer)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const kids = new Set(answers.map((r) => decodeProtectedHeader(r.body.token).kid));
    expect(kids.size).toBe(1);
    for (const base of [gatewayA, gatewayB]) expect((await new TestClient(base).get("/jwks")).body.keys.map((k: { kid: string }) => k.kid)).toEqual([...kids]);
  });

  it("the rate limit counts one client across both gateways", async () => {
    const headers = { "x-forwarded-for": "10.9.9.9" };
    const attempt = (base: string) => new TestClient(base, headers).post("/sign-in/email", { email: "nobody@example.com", password: "password-123" });
    const statuses = [await attempt(gatewayA), await attempt(gatewayB), await attempt(gatewayA)].map((r) => r.status);
    expect(statuses).toEqual([401, 401, 401]);
    const fourth = await attempt(gatewayB);
    expect(fourth.status).toBe(429);
    expect(fourth.body).toEqual({ code: "TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER", message: "Too many requests. Please try again later." });
    expect(Number(fourth.headers.get("x-retry-after"))).toBeGreaterThanOrEqual(1);
  });
});
