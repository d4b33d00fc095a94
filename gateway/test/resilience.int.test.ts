/**
 * A service killed mid-run (SIGKILL, real processes): the gateway answers a JSON 503 for the routes that
 * need it, and recovers once the service is back, with no data lost.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StartedProcess, startProcess } from "../../deploy/processes.js";
import { backendLabel, dropDatabases, type TestDatabase } from "../../testing/databases.js";
import { eventually } from "../../testing/eventually.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { platformEnv, workloadEnv } from "../../testing/platform.js";

let env: Record<string, string>;
let databases: TestDatabase[];
const processes: Record<string, StartedProcess> = {};
let baseURL: string;

beforeAll(async () => {
  ({ env, databases } = await platformEnv());
  env.LOG_LEVEL = "info"; // startProcess waits for the "listening" line
  baseURL = env.AUTH_BASE_URL!;
  // In the launcher's order (deploy/launcher.ts): session before identity, whose start-up calls it. Started
  // the other way, identity's channel to session can still be in grpc-js's reconnect backoff when the first
  // sign-up arrives, which then fails fast with 503 before this test has killed anything.
  processes.session = await startProcess("session", { env: workloadEnv(env, "session") });
  processes.notification = await startProcess("notification", { env: workloadEnv(env, "notification") });
  processes.identity = await startProcess("identity", { env: workloadEnv(env, "identity") });
  processes.gateway = await startProcess("gateway", { env: workloadEnv(env, "gateway") });
});

afterAll(async () => {
  await Promise.all(Object.values(processes).map((p) => p.stop("SIGKILL")));
  await dropDatabases(databases ?? []);
});

describe(`a service killed mid-run (${backendLabel()})`, () => {
  it("answers JSON 503 while the session service is down and recovers with the data intact", async () => {
    const email = uniqueEmail("resilient");
    const client = new TestClient(baseURL);
    const signUp = await client.post("/sign-up/email", { name: "Res", email, password: "password-123" });
    expect(signUp.status).toBe(200);
    const userId = signUp.body.user.id;

    await processes.session!.stop("SIGKILL");

    const signIn = await new TestClient(baseURL).post("/sign-in/email", { email, password: "password-123" });
    expect(signIn.status).toBe(503);
    expect(signIn.body).toEqual({ code: "SERVICE_UNAVAILABLE", message: "Service unavailable" });
    // No service said when to come back: the gateway's default.
    expect(signIn.headers.get("retry-after")).toBe("5");
    const list = await client.get("/list-sessions");
    expect(list.status).toBe(503);
    expect(list.body.code).toBe("SERVICE_UNAVAILABLE");
    expect(list.headers.get("retry-after")).toBe("5");
    expect((await client.get("/ok")).status).toBe(200);

    processes.session = await startProcess("session", { env: workloadEnv(env, "session") });

    const session = await eventually(async () => {
      const res = await client.get("/get-session");
      if (res.status !== 200 || !res.body) throw new Error(`not yet: ${res.status}`);
      return res.body;
    });
    expect(session.user.id).toBe(userId);
    const again = await eventually(async () => {
      const res = await new TestClient(baseURL).post("/sign-in/email", { email, password: "password-123" });
      if (res.status !== 200) throw new Error(`not yet: ${res.status}`);
      return res;
    });
    expect(again.body.user.id).toBe(userId);
  });

  it("answers JSON 503 while the identity service is down and recovers", async () => {
    const email = uniqueEmail("identity-down");
    expect((await new TestClient(baseURL).post("/sign-up/email", { name: "Id", email, password: "password-123" })).status).toBe(200);

    await processes.identity!.stop("SIGKILL");
    const down = await new TestClient(baseURL).post("/sign-in/email", { email, password: "password-123" });
    expect(down).toMatchObject({ status: 503, body: { code: "SERVICE_UNAVAILABLE" } });
    const signUp = await new TestClient(baseURL).post("/sign-up/email", { name: "X", email: uniqueEmail(), password: "password-123" });
    expect(signUp.status).toBe(503);

    processes.identity = await startProcess("identity", { env: workloadEnv(env, "identity") });
    const back = await eventually(async () => {
      const res = await new TestClient(baseURL).post("/sign-in/email", { email, password: "password-123" });
      if (res.status !== 200) throw new Error(`not yet: ${res.status}`);
      return res;
    });
    expect(back.body.user.email).toBe(email);
  });
});
