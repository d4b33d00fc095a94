/**
 * SIGTERM under load loses no request (docs/upgrades.md): two gateway processes serve one user's traffic,
 * the first gets SIGTERM while sign-ins and get-sessions are in flight through it. Every request it took
 * is answered; once it stops taking connections, the client goes to the other gateway, as a load
 * balancer does. A request is lost when it was sent and got no answer, or an answer other than 200.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StartedProcess, startProcess } from "../../deploy/processes.js";
import { dropDatabases, type TestDatabase } from "../../testing/databases.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { freePorts, platformEnv, workloadEnv } from "../../testing/platform.js";

const processes: StartedProcess[] = [];
let databases: TestDatabase[] = [];
let gatewayA: StartedProcess;
let urlA: string;
let urlB: string;

beforeAll(async () => {
  const platform = await platformEnv();
  const env = { ...platform.env, LOG_LEVEL: "info" }; // startProcess waits for the "listening" line
  databases = platform.databases;
  const [portA, portB] = await freePorts(2);
  processes.push(await startProcess("notification", { env: workloadEnv(env, "notification") }));
  processes.push(await startProcess("session", { env: workloadEnv(env, "session") }));
  processes.push(await startProcess("identity", { env: workloadEnv(env, "identity") }));
  gatewayA = await startProcess("gateway", { env: workloadEnv({ ...env, PORT: String(portA) }, "gateway"), label: "gateway-a" });
  processes.push(gatewayA);
  processes.push(await startProcess("gateway", { env: workloadEnv({ ...env, PORT: String(portB) }, "gateway"), label: "gateway-b" }));
  urlA = `http://127.0.0.1:${portA}/api/auth`;
  urlB = `http://127.0.0.1:${portB}/api/auth`;
}, 120_000);

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop("SIGKILL")));
  await dropDatabases(databases);
});

/** Whether fetch failed before the request reached a server: nothing listens there any more. */
const refused = (error: unknown) => (error as { cause?: { code?: string } }).cause?.code === "ECONNREFUSED";

describe("a gateway's SIGTERM under load", () => {
  it("answers every request it took, and the other gateway takes the rest", async () => {
    const email = uniqueEmail("drain");
    const first = new TestClient(urlA);
    expect((await first.post("/sign-up/email", { name: "Drain", email, password: "password-123" })).status).toBe(200);
    const cookie = first.cookieHeader();

    const served = { a: 0, b: 0 };
    const lost: string[] = [];
    let stopping = false;
    let afterStop = 0;
    /** One request, to A while it takes connections, then to B; counted by who answered. */
    const send = async (path: string, init: RequestInit) => {
      for (const [name, url] of [
        ["a", urlA],
        ["b", urlB],
      ] as const) {
        try {
          const res = await fetch(url + path, init);
          await res.arrayBuffer();
          if (res.status === 200) served[name]++;
          else lost.push(`${name} ${path}: ${res.status}`);
          return;
        } catch (error) {
          if (name === "a" && refused(error)) continue;
          lost.push(`${name} ${path}: ${String((error as { cause?: unknown }).cause ?? error)}`);
          return;
        }
      }
    };
    const worker = async (index: number) => {
      while (!stopping || afterStop < 40) {
        if (stopping) afterStop++;
        if (index % 4 === 0) {
          await send("/sign-in/email", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password: "password-123" }) });
        } else {
          await send("/get-session", { headers: { cookie } });
        }
      }
    };
    const workers = Array.from({ length: 8 }, (_, i) => worker(i));
    // SIGTERM once A has answered some of the load, so requests of both kinds are in flight through it.
    while (served.a < 40 && lost.length === 0) await send("/get-session", { headers: { cookie } });
    gatewayA.child.kill("SIGTERM");
    stopping = true;
    const code = await gatewayA.exited;
    await Promise.all(workers);

    expect(lost).toEqual([]);
    expect(code).toBe(0);
    expect(served.a).toBeGreaterThanOrEqual(40);
    expect(served.b).toBeGreaterThan(0);
    const closeTrouble = ["in-flight requests did not finish in time", "shutdown did not finish in time", "shutdown failed"];
    expect(gatewayA.output.filter((line) => closeTrouble.some((trouble) => line.includes(trouble)))).toEqual([]);
  });
});
