/**
 * Traces: with an OTLP/HTTP endpoint configured, one sign-in is one trace, gateway -> identity -> session,
 * each hop's server span the child of its caller's client span (W3C traceparent in gRPC metadata), and the
 * request id the gateway answers is the trace id. Without an endpoint nothing is exported.
 *
 * The receiver is a tiny HTTP server decoding the exporter's OTLP/JSON export requests.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTracing, stopTracing, tracingActive } from "@auth-platform/runtime/tracing";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP SpanKind: 2 server, 3 client. */
  kind: number;
}
const SERVER = 2;
const CLIENT = 3;

const received: { path: string; contentType?: string; spans: ExportedSpan[] }[] = [];
let receiver: Server;
let endpoint: string;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        resourceSpans: { scopeSpans: { spans: ExportedSpan[] }[] }[];
      };
      const spans = body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
      received.push({ path: req.url ?? "", contentType: req.headers["content-type"], spans });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await stopTracing();
  await new Promise((resolve) => receiver.close(resolve));
});

const platform = usePlatform();

describe(`traces (${backendLabel()})`, () => {
  it("export nothing and load no SDK while no endpoint is configured", async () => {
    await startTracing({ serviceName: "auth-platform-test" }, {});
    expect(tracingActive()).toBe(false);
    const email = uniqueEmail("untraced");
    const res = await platform.client().post("/sign-up/email", { name: "Ada", email, password: "password-123" });
    expect(res.status).toBe(200);
    // The request id is still a fresh id per request, just not a trace's.
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(received).toEqual([]);
  });

  it("make one sign-in one trace spanning gateway, identity and session, with parent links", async () => {
    const email = uniqueEmail("traced");
    expect((await platform.client().post("/sign-up/email", { name: "Ada", email, password: "password-123" })).status).toBe(200);

    await startTracing({ serviceName: "auth-platform-test", endpoint });
    expect(tracingActive()).toBe(true);
    const res = await platform.client().post("/sign-in/email", { email, password: "password-123" });
    expect(res.status).toBe(200);
    await stopTracing(); // flushes the batch
    expect(tracingActive()).toBe(false);

    expect(received.length).toBeGreaterThan(0);
    expect(received.every((r) => r.path === "/v1/traces" && r.contentType?.startsWith("application/json"))).toBe(true);
    const spans = received.flatMap((r) => r.spans);
    const root = spans.find((s) => s.name === "POST /sign-in/email");
    expect(root).toMatchObject({ kind: SERVER });
    expect(root!.parentSpanId || undefined).toBeUndefined();
    // The id the gateway answered with (and logs with) is the trace id.
    expect(res.headers.get("x-request-id")).toBe(root!.traceId);

    const trace = spans.filter((s) => s.traceId === root!.traceId);
    const one = (name: string, kind: number) => {
      const found = trace.filter((s) => s.name === name && s.kind === kind);
      expect(found, `${name} (kind ${kind})`).toHaveLength(1);
      return found[0]!;
    };
    const toIdentity = one("auth.identity.v1.IdentityService/SignInEmail", CLIENT);
    const inIdentity = one("auth.identity.v1.IdentityService/SignInEmail", SERVER);
    const toSession = one("auth.session.v1.SessionService/CreateSession", CLIENT);
    const inSession = one("auth.session.v1.SessionService/CreateSession", SERVER);
    expect(toIdentity.parentSpanId).toBe(root!.spanId);
    expect(inIdentity.parentSpanId).toBe(toIdentity.spanId);
    expect(toSession.parentSpanId).toBe(inIdentity.spanId);
    expect(inSession.parentSpanId).toBe(toSession.spanId);
    // Nothing of the sign-in landed in another trace.
    expect(spans.filter((s) => s.name.endsWith("/SignInEmail") && s.traceId !== root!.traceId)).toEqual([]);
  });
});
