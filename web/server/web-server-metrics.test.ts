/**
 * The web process's Prometheus metrics: every request counted by the kind of route that answered it
 * (static file, index fallback, API pass-through), never by raw path, plus Node's runtime metrics, served
 * on the metrics port and not on the web port.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMetricsServer } from "@auth-platform/runtime/metrics";
import { scrapeMetrics } from "../../testing/metrics.js";
import { createWebServer } from "./web-server.js";

const listen = (server: Server) => new Promise<string>((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
const close = (server: Server) => new Promise((resolve) => server.close(resolve));

let dir: string;
let gateway: Server;
let web: Server;
let origin: string;
let metrics: { port: number; close(): Promise<void> };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "web-metrics-"));
  mkdirSync(join(dir, "assets"));
  writeFileSync(join(dir, "index.html"), "<!doctype html><title>app</title>");
  writeFileSync(join(dir, "assets", "app-123.js"), "console.log(1)");
  gateway = createServer((_req, res) => res.writeHead(401, { "content-type": "application/json" }).end("{}"));
  web = createWebServer({ root: dir, gatewayUrl: await listen(gateway) });
  origin = await listen(web);
  metrics = await startMetricsServer(0, "127.0.0.1");
});

afterAll(async () => {
  web.closeAllConnections();
  await close(web);
  await close(gateway);
  await metrics.close();
  rmSync(dir, { recursive: true, force: true });
});

const scrape = () => scrapeMetrics(metrics.port);

const requests = (method: string, route: string, status: number) => `http_server_requests_total{method="${method}",route="${route}",status="${status}"}`;
const durations = (method: string, route: string, status: number) => `http_server_request_duration_seconds_count{method="${method}",route="${route}",status="${status}"}`;

describe("web server metrics", () => {
  it("count each answered request by route kind and status, with its duration", async () => {
    const before = await scrape();
    for (const path of ["/account", "/reset-password/abc"]) expect((await fetch(`${origin}${path}`)).status).toBe(200);
    expect((await fetch(`${origin}/assets/app-123.js`)).status).toBe(200);
    expect((await fetch(`${origin}/assets/missing-${Math.random()}.js`)).status).toBe(404);
    expect((await fetch(`${origin}/api/auth/get-session`, { method: "POST" })).status).toBe(401);
    expect((await fetch(`${origin}/account`, { method: "DELETE" })).status).toBe(405);
    const after = await scrape();

    const delta = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
    expect(delta(requests("GET", "index", 200))).toBe(2);
    expect(delta(durations("GET", "index", 200))).toBe(2);
    expect(delta(requests("GET", "static", 200))).toBe(1);
    expect(delta(requests("GET", "unmatched", 404))).toBe(1);
    expect(delta(requests("POST", "api", 401))).toBe(1);
    expect(delta(requests("DELETE", "unmatched", 405))).toBe(1);
    // Labelled by kind, never by the raw path a client sent.
    expect([...after.keys()].some((key) => key.includes("reset-password") || key.includes("missing-"))).toBe(false);
  });

  it("include Node's runtime metrics", async () => {
    const samples = await scrape();
    expect([...samples.keys()].some((key) => key.startsWith("nodejs_heap_size_used_bytes"))).toBe(true);
    expect([...samples.keys()].some((key) => key.startsWith("process_cpu_seconds_total"))).toBe(true);
  });

  it("are not served on the web port", async () => {
    const res = await fetch(`${origin}/metrics`);
    expect(await res.text()).not.toContain("http_server_requests_total");
  });
});
