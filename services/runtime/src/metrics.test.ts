/** The metrics registry and its endpoint, and the Grafana dashboard kept in step with it. */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../../testing/eventually.js";
import "./dependencies.js";
import { authEvents, enableMetrics, startMetricsServer } from "./metrics.js";

const registry = await enableMetrics();

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

describe("the metrics endpoint", () => {
  it("serves the registry in Prometheus text format at GET /metrics, and nothing else", async () => {
    const server = await startMetricsServer(0, "127.0.0.1");
    servers.push(server);
    authEvents.signIn("email", "failure");
    const res = await fetch(`http://127.0.0.1:${server.port}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(registry.contentType);
    const text = await res.text();
    expect(text).toMatch(/^# HELP auth_sign_ins_total /m);
    expect(text).toMatch(/^auth_sign_ins_total\{method="email",outcome="failure"\} [1-9]/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    for (const [method, path] of [
      ["GET", "/"],
      ["GET", "/metrics/x"],
      ["POST", "/metrics"],
    ] as const) {
      expect((await fetch(`http://127.0.0.1:${server.port}${path}`, { method })).status, `${method} ${path}`).toBe(404);
    }
  });
});

describe("the Grafana dashboard (deploy/grafana/auth-platform.json)", () => {
  const dashboard = JSON.parse(readFileSync(new URL("../../../deploy/grafana/auth-platform.json", import.meta.url), "utf8")) as {
    panels: { targets: { expr: string }[] }[];
  };

  it("queries only metrics the processes export", async () => {
    const exported = new Set((await registry.getMetricsAsJSON()).map((m) => m.name));
    const used = new Set(
      dashboard.panels.flatMap((panel) =>
        panel.targets.flatMap((target) => [...target.expr.matchAll(/\b([a-z_]+_(?:total|seconds|bytes|depth|up)(?:_bucket|_count|_sum)?)\b/g)].map((m) => m[1]!)),
      ),
    );
    expect(used.size).toBeGreaterThan(10);
    const unknown = [...used].map((name) => name.replace(/_(bucket|count|sum)$/, "")).filter((name) => !exported.has(name));
    expect(unknown).toEqual([]);
  });
});

describe("gauges read at scrape time", () => {
  it("keep the scrape working when their source fails (the outbox's database is down)", async () => {
    const { gaugeSources } = await import("./metrics.js");
    gaugeSources.outbox(async () => ({ depth: 3, oldestAgeSeconds: 42 }));
    let text = await registry.metrics();
    expect(text).toMatch(/^auth_mail_outbox_depth 3$/m);
    expect(text).toMatch(/^auth_mail_oldest_undelivered_age_seconds 42$/m);
    let failedReads = 0;
    gaugeSources.outbox(async () => {
      failedReads++;
      throw new Error("database down");
    });
    // A scrape that read the failing source (the previous scrape's reading is shared until it settles).
    await eventually(async () => {
      text = await registry.metrics();
      expect(failedReads).toBeGreaterThan(0);
    });
    expect(text).toMatch(/^auth_mail_outbox_depth 3$/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
  });
});
