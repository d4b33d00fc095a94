/**
 * The production build: `npm run build` output started as plain node processes (no tsx loader), signing a
 * user up and in through the built gateway and services.
 */
import { once } from "node:events";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { dirname, join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendLabel, type TestDatabase } from "../testing/databases.js";
import { TestClient, uniqueEmail } from "../testing/http.js";
import { freePorts, platformEnv, workloadEnv } from "../testing/platform.js";
import { randomString, LOWER_ALPHANUMERIC } from "@auth-platform/runtime/random";
import { buildPlatform } from "./build.js";
import { BUILT_ENTRY, ROOT, type ProcessName, type StartedProcess, startProcess } from "./processes.js";

// Inside the repository, so the build's package imports resolve from its node_modules as they do from dist/.
const outdir = join(ROOT, ".tmp", `build-test-${randomString(8, LOWER_ALPHANUMERIC)}`);
const processes: StartedProcess[] = [];
let databases: TestDatabase[] = [];
let baseURL: string;
let webOrigin: string;

beforeAll(async () => {
  await buildPlatform(outdir);
  const prepared = await platformEnv();
  databases = prepared.databases;
  const env: Record<string, string> = { ...prepared.env, LOG_LEVEL: "info" };
  baseURL = env.AUTH_BASE_URL!;
  const built = (name: ProcessName) => relative(ROOT, join(outdir, BUILT_ENTRY[name].replace(/^dist\//, "")));
  for (const name of ["notification", "identity", "session", "oauth", "organization", "gateway"] as const) {
    processes.push(await startProcess(name, { env: workloadEnv(env, name), entry: built(name) }));
  }
  // The web app's server, serving the built app beside it and passing /api/auth on to the gateway.
  const [webPort] = await freePorts(1);
  webOrigin = `http://127.0.0.1:${webPort}`;
  processes.push(await startProcess("web", { env: { WEB_PORT: String(webPort), WEB_HOST: "127.0.0.1", AUTH_GATEWAY_URL: new URL(baseURL).origin }, entry: built("web") }));
}, 120_000);

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop("SIGTERM")));
  for (const db of databases) await db.drop();
  rmSync(outdir, { recursive: true, force: true });
});

describe(`the compiled build (${backendLabel()})`, () => {
  it("runs every process on plain node, without the TypeScript loader", () => {
    for (const started of processes) {
      const args = started.child.spawnargs;
      expect(args).not.toContain("tsx");
      expect(args.at(-1)).toMatch(/\.js$/);
    }
  });

  it("loads the SAML and passkey libraries on their first use, not at start-up", () => {
    // Each is tens of MiB resident that a deployment without SAML or passkeys never needs (docs/capacity.md).
    expect(packagesLoaded("sso", "at start-up")).not.toContain("samlify");
    expect(packagesLoaded("sso", "on use")).toContain("samlify");
    expect(packagesLoaded("identity", "at start-up")).not.toContain("@simplewebauthn/server");
    expect(packagesLoaded("identity", "on use")).toContain("@simplewebauthn/server");
  });

  it("loads the Redis client only where Redis is configured, not at start-up", () => {
    // The embedded default keeps its cache in memory; ioredis is about 1.8 MiB of heap it would never use.
    for (const name of ["gateway", "session"] as const) {
      expect(packagesLoaded(name, "at start-up"), name).not.toContain("ioredis");
      expect(packagesLoaded(name, "on use"), name).toContain("ioredis");
    }
  });

  it("creates an organization through the built gateway and organization service", async () => {
    const client = new TestClient(baseURL);
    expect((await client.post("/sign-up/email", { name: "Built", email: uniqueEmail("built-org"), password: "password-123" })).status).toBe(200);
    const created = await client.post("/organization/create", { name: "Built", slug: `built-${Date.now().toString(36)}` });
    expect(created.status).toBe(200);
    expect((await client.get("/get-session")).body.session.activeOrganizationId).toBe(created.body.id);
  });

  it("signs a user up and in through the built gateway and services", async () => {
    const email = uniqueEmail("built");
    const client = new TestClient(baseURL);
    const signUp = await client.post("/sign-up/email", { name: "Built", email, password: "password-123" });
    expect(signUp.status).toBe(200);
    expect(signUp.body.user.email).toBe(email);

    const fresh = new TestClient(baseURL);
    const signIn = await fresh.post("/sign-in/email", { email, password: "password-123" });
    expect(signIn.status).toBe(200);
    const session = await fresh.get("/get-session");
    expect(session.status).toBe(200);
    expect(session.body.user.id).toBe(signUp.body.user.id);

    const wrong = await new TestClient(baseURL).post("/sign-in/email", { email, password: "password-124" });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe("INVALID_EMAIL_OR_PASSWORD");
  });

  it("serves the built web app, its routes and assets, and the API through it on one origin", async () => {
    const index = await fetch(`${webOrigin}/account`);
    expect(index.status).toBe(200);
    const html = await index.text();
    const script = html.match(/src="(\/assets\/[^"]+\.js)"/)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${webOrigin}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    // React's production build, though this test runs with NODE_ENV=test: the development build's greeting
    // (and its doubled effects) never reach users.
    const code = await asset.text();
    expect(code).toContain("react.dev/errors/");
    expect(code).not.toContain("react-devtools");
    const ok = await fetch(`${webOrigin}/api/auth/ok`);
    expect(await ok.json()).toEqual({ ok: true });
  });

  it("precompresses the web app's files, serves them compressed, and keeps its source maps outside the public folder", async () => {
    const web = join(outdir, "web");
    const maps = join(outdir, "sourcemaps");
    const html = await (await fetch(`${webOrigin}/`)).text();
    expect(html).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml" />');
    const script = html.match(/src="(\/assets\/[^"]+\.js)"/)![1]!;
    const style = html.match(/href="(\/assets\/[^"]+\.css)"/)![1]!;
    for (const file of [script, style, "/favicon.svg"]) {
      expect(existsSync(join(web, `${file}.br`)), `${file}.br`).toBe(true);
      expect(existsSync(join(web, `${file}.gz`)), `${file}.gz`).toBe(true);
    }
    const asset = await fetch(`${webOrigin}${script}`, { headers: { "accept-encoding": "br" } });
    expect(asset.headers.get("content-encoding")).toBe("br");
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const body = await asset.text();
    expect(body).toBe(readFileSync(join(web, script), "utf8"));
    // Hidden maps: no sourceMappingURL comment, and every map is under sourcemaps/, none under web/.
    expect(body).not.toContain("sourceMappingURL");
    const files = (dir: string) => readdirSync(dir, { recursive: true }).map(String);
    expect(files(web).filter((name) => name.endsWith(".map"))).toEqual([]);
    expect(files(maps)).toContain(join("assets", `${script.split("/").pop()}.map`));
    expect((await fetch(`${webOrigin}${script}.map`)).status).toBe(404);
    const icon = await fetch(`${webOrigin}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toBe("image/svg+xml");
  });

  it("closes every process on SIGTERM: each finishes its close in time and exits 0, the gateway after closing a request that does not end", async () => {
    // A slow upload in flight at the gateway (its body never completes): its connection is closed after the
    // requests' grace, and the gateway still exits 0. Its Expect: 100-continue makes the gateway say when the
    // request has reached it (Node answers 100 Continue as it hands the request over).
    const gatewayUrl = new URL(baseURL);
    const slow = connect(Number(gatewayUrl.port), gatewayUrl.hostname);
    await once(slow, "connect");
    slow.on("error", () => {});
    const slowClosed = once(slow, "close");
    const received = once(slow, "data");
    slow.write(
      `POST ${gatewayUrl.pathname}/sign-in/email HTTP/1.1\r\nHost: ${gatewayUrl.host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n{"email":`,
    );
    expect(String((await received)[0])).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
    const gateway = processes.find((started) => started.name === "gateway")!;
    const stopping = performance.now();
    gateway.child.kill("SIGTERM");
    const others = processes.filter((started) => started !== gateway);
    const codes = await Promise.all(others.map((started) => started.stop("SIGTERM")));
    expect(Object.fromEntries(others.map((started, i) => [started.name, codes[i]]))).toEqual(Object.fromEntries(others.map((started) => [started.name, 0])));
    expect(await gateway.exited).toBe(0);
    expect(performance.now() - stopping).toBeLessThan(12_000);
    await slowClosed;
    expect(gateway.output.some((line) => line.includes("in-flight requests did not finish in time; closing their connections"))).toBe(true);
    for (const started of others.filter((p) => p.name !== "web")) {
      expect(started.output.some((line) => line.includes('"msg":"stopped"'))).toBe(true);
    }
    const closeTrouble = ["shutdown did not finish in time", "shutdown failed", "in-flight calls did not finish in time"];
    expect(processes.flatMap((started) => started.output).filter((line) => closeTrouble.some((trouble) => line.includes(trouble)))).toEqual([]);
  }, 30_000);
});

/**
 * The packages whose code a built process runs: those its entry's static imports reach ("at start-up"),
 * or those any import reaches, import() included ("on use"). Read from the build's source maps.
 */
function packagesLoaded(name: ProcessName, when: "at start-up" | "on use"): string[] {
  const imports = when === "at start-up" ? /(?:from|import)\s*"(\.{1,2}\/[^"]+\.js)"/g : /(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+\.js)"/g;
  const seen = new Set<string>();
  const pending = [join(outdir, BUILT_ENTRY[name].replace(/^dist\//, ""))];
  const packages = new Set<string>();
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const [, target] of readFileSync(file, "utf8").matchAll(imports)) pending.push(join(dirname(file), target!));
    for (const source of (JSON.parse(readFileSync(`${file}.map`, "utf8")) as { sources: string[] }).sources) {
      const found = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source);
      if (found) packages.add(found[1]!);
    }
  }
  return [...packages];
}
