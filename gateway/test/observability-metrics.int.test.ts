/**
 * Prometheus metrics of every process, scraped from their own METRICS_PORT after real traffic through the
 * gateway: sign-ins by method and outcome, RPC outcomes by gRPC and catalogue code on both sides of each
 * hop, route templates (never raw paths), rate-limited requests, sessions, password hashing, the outbox.
 */
import { describe, expect, it } from "vitest";
import { AuthError } from "@auth-platform/proto/errors";
import { grpcCodeName } from "@auth-platform/runtime/metrics";
import { backendLabel } from "../../testing/databases.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { type Samples, sample, scrapeMetrics as scrape } from "../../testing/metrics.js";
import { usePlatform } from "../../testing/use-platform.js";

const platform = usePlatform({ rateLimit: true, env: { METRICS_PORT: "0" } });

const delta = (before: Samples, after: Samples, key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);

let ips = 0;
const client = () => new TestClient(platform.baseURL, { "x-forwarded-for": `203.0.113.${++ips}` });

const scrapeAll = async () => ({
  gateway: await scrape(platform.gateway.metricsPort),
  identity: await scrape(platform.services.identity.metricsPort),
  session: await scrape(platform.services.session.metricsPort),
  notification: await scrape(platform.services.notification.metricsPort),
});

describe(`metrics (${backendLabel()})`, () => {
  it("count sign-ins by method and outcome, and the RPCs behind them by gRPC and catalogue code", async () => {
    const email = uniqueEmail("metrics");
    expect((await client().post("/sign-up/email", { name: "Ada", email, password: "password-123" })).status).toBe(200);
    const before = await scrapeAll();

    expect((await client().post("/sign-in/email", { email, password: "password-123" })).status).toBe(200);
    expect((await client().post("/sign-in/email", { email, password: "wrong-password" })).status).toBe(401);
    expect((await client().post("/sign-in/username", { username: "nobody-here", password: "wrong-password" })).status).toBe(401);
    const after = await scrapeAll();

    const g = (key: string) => delta(before.gateway, after.gateway, key);
    expect(g(sample("auth_sign_ins_total", { method: "email", outcome: "success" }))).toBe(1);
    expect(g(sample("auth_sign_ins_total", { method: "email", outcome: "failure" }))).toBe(1);
    expect(g(sample("auth_sign_ins_total", { method: "username", outcome: "failure" }))).toBe(1);
    // Route templates, with the status each request got.
    expect(g(sample("http_server_requests_total", { method: "POST", route: "/sign-in/email", status: "200" }))).toBe(1);
    expect(g(sample("http_server_requests_total", { method: "POST", route: "/sign-in/email", status: "401" }))).toBe(1);
    expect(g(sample("http_server_request_duration_seconds_count", { method: "POST", route: "/sign-in/email", status: "200" }))).toBe(1);

    const refused = new AuthError("INVALID_EMAIL_OR_PASSWORD");
    const identityRpc = { grpc_service: "auth.identity.v1.IdentityService", grpc_method: "SignInEmail" };
    const i = (key: string) => delta(before.identity, after.identity, key);
    expect(i(sample("grpc_server_handled_total", { ...identityRpc, grpc_code: "OK", error_code: "" }))).toBe(1);
    expect(i(sample("grpc_server_handled_total", { ...identityRpc, grpc_code: grpcCodeName(refused.grpcStatus), error_code: refused.code }))).toBe(1);
    expect(i(sample("grpc_server_handling_seconds_count", { ...identityRpc, grpc_code: "OK" }))).toBe(1);
    // The caller's side of the same hop, in the gateway.
    expect(g(sample("grpc_client_handled_total", { ...identityRpc, grpc_code: grpcCodeName(refused.grpcStatus) }))).toBe(1);
    // Every sign-in hashes once, the unknown username included (no enumeration through timing).
    expect(i(sample("auth_password_hash_seconds_count"))).toBe(3);
    expect(after.identity.get(sample("auth_password_hash_queue_depth", { state: "waiting" }))).toBe(0);

    const s = (key: string) => delta(before.session, after.session, key);
    expect(s(sample("grpc_server_handled_total", { grpc_service: "auth.session.v1.SessionService", grpc_method: "CreateSession", grpc_code: "OK", error_code: "" }))).toBe(1);
    expect(s(sample("auth_sessions_created_total"))).toBe(1);

    // Node's runtime metrics, and the outbox gauges of the notification service.
    expect(after.gateway.get(sample("nodejs_heap_size_used_bytes"))).toBeGreaterThan(0);
    expect(after.notification.has(sample("auth_mail_outbox_depth"))).toBe(true);
    expect(after.notification.has(sample("auth_mail_oldest_undelivered_age_seconds"))).toBe(true);
  });

  it("count sign-outs as revoked sessions", async () => {
    const email = uniqueEmail("metrics-out");
    const user = client();
    expect((await user.post("/sign-up/email", { name: "Ada", email, password: "password-123" })).status).toBe(200);
    const before = await scrape(platform.services.session.metricsPort);
    expect((await user.post("/sign-out", {})).status).toBe(200);
    const after = await scrape(platform.services.session.metricsPort);
    expect(delta(before, after, sample("auth_sessions_revoked_total"))).toBe(1);
  });

  it("count rate-limited requests by the rule that refused them, never by raw path", async () => {
    const before = await scrape(platform.gateway.metricsPort);
    const attacker = client();
    const statuses: number[] = [];
    for (let n = 0; n < 5; n++) statuses.push((await attacker.post("/sign-in/email", { email: "x@example.com", password: "p" })).status);
    expect(statuses.filter((status) => status === 429)).toHaveLength(2);
    const after = await scrape(platform.gateway.metricsPort);
    expect(delta(before, after, sample("auth_rate_limited_total", { rule: "/sign-in" }))).toBe(2);
    // Refused before routing: no route template, and the raw path is no label.
    expect(delta(before, after, sample("http_server_requests_total", { method: "POST", route: "unmatched", status: "429" }))).toBe(2);
  });

  it("count every get-session under its route, those answered from the gateway's memory too", async () => {
    const user = client();
    expect((await user.post("/sign-up/email", { name: "Ada", email: uniqueEmail("metrics-warm"), password: "password-123" })).status).toBe(200);
    const before = await scrape(platform.gateway.metricsPort);
    for (let n = 0; n < 3; n++) expect((await user.get("/get-session")).status).toBe(200);
    const after = await scrape(platform.gateway.metricsPort);
    expect(delta(before, after, sample("http_server_requests_total", { method: "GET", route: "/get-session", status: "200" }))).toBe(3);
  });

  it("label unknown paths as unmatched, so a scan cannot grow the label set", async () => {
    const scanner = client();
    for (const path of ["/no-such-route-1", "/no-such-route-2"]) expect((await scanner.get(path)).status).toBe(404);
    const samples = await scrape(platform.gateway.metricsPort);
    expect([...samples.keys()].some((key) => key.includes("no-such-route"))).toBe(false);
    expect(samples.get(sample("http_server_requests_total", { method: "GET", route: "unmatched", status: "404" }))).toBeGreaterThanOrEqual(2);
  });

  it("serves metrics on their own port only, never through the gateway's base path", async () => {
    expect((await client().get("/metrics")).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${platform.gateway.metricsPort}/`)).status).toBe(404);
  });
});
