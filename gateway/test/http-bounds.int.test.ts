/**
 * A NUL byte in a query string is a 400 (in a path token, an unknown token),
 * never a 500; a request that declares a body and never sends it, or never finishes its headers, is
 * answered 408 and closed within the configured bound (GATEWAY_REQUEST_TIMEOUT_MS / GATEWAY_HEADERS_TIMEOUT_MS, short here).
 */
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";

const REQUEST_TIMEOUT_MS = 1_500;
const HEADERS_TIMEOUT_MS = 1_000;

const platform = usePlatform({ env: { GATEWAY_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), GATEWAY_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS) } });

/** Writes `raw` on a fresh connection and never anything else; resolves with what came back and when the server closed. */
function stall(raw: string): Promise<{ response: string; closedAfterMs: number }> {
  const { hostname, port } = new URL(platform.origin);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), hostname, () => socket.write(raw));
    let response = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (response += chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve({ response, closedAfterMs: Date.now() - started }));
    // Far beyond the bound: a server that keeps the connection fails the test instead of hanging it.
    setTimeout(() => socket.destroy(), 20_000).unref();
  });
}

describe(`request bounds (${backendLabel()})`, () => {
  it("a request that declares a 100-byte body and sends none is answered 408 and closed within the bound", async () => {
    const { closedAfterMs, response } = await stall(
      `POST /api/auth/sign-in/email HTTP/1.1\r\nHost: ${new URL(platform.origin).host}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`,
    );
    expect(response).toMatch(/^HTTP\/1\.1 408 /);
    expect(closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    expect(closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 1_500);
  });

  it("a body sent too slowly is cut off at the same bound", async () => {
    const { hostname, port } = new URL(platform.origin);
    const started = Date.now();
    const socket = connect(Number(port), hostname);
    socket.write(`POST /api/auth/sign-in/email HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
    // One byte every 200 ms: never idle long, never done.
    const drip = setInterval(() => socket.writable && socket.write(" "), 200);
    let response = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (response += chunk));
    socket.on("error", () => {});
    const closedAfterMs = await new Promise<number>((resolve) => socket.on("close", () => resolve(Date.now() - started)));
    clearInterval(drip);
    expect(response).toMatch(/^HTTP\/1\.1 408 /);
    expect(closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 1_500);
  });

  it("headers that never end are answered 408 and closed within the headers bound", async () => {
    const { closedAfterMs, response } = await stall(`GET /api/auth/ok HTTP/1.1\r\nHost: ${new URL(platform.origin).host}\r\nX-Slow: 1\r\n`);
    expect(response).toMatch(/^HTTP\/1\.1 408 /);
    expect(closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS + 1_500);
  });

  it("a complete request still goes through", async () => {
    expect((await new TestClient(platform.baseURL).get("/ok")).body).toEqual({ ok: true });
  });
});

describe(`NUL bytes in a query string or path (${backendLabel()})`, () => {
  const NUL_QUERIES = [
    "/dev/outbox?to=%00",
    "/dev/outbox?to=a%00b&limit=5",
    "/dev/outbox?limit=%00",
    "/dev/outbox?%00=x",
    "/verify-email?token=%00",
    "/verify-email?token=abc&callbackURL=%2F%00",
    `/reset-password/${"A".repeat(24)}?callbackURL=%00`,
    `/reset-password/${"A".repeat(24)}?callbackURL=%2Freset&x=%00`,
    "/delete-user/callback?token=%00",
    "/delete-user/callback?token=abc&callbackURL=%00",
    "/get-session?disableCookieCache=%00",
    "/get-session?disableRefresh=%00",
    "/error?error=%00",
    "/ok?x=%00",
    "/list-sessions?x=%00",
  ];

  it("every GET route answers 400 VALIDATION_ERROR, never 500", async () => {
    const client = new TestClient(platform.baseURL);
    for (const path of NUL_QUERIES) {
      const res = await client.get(path);
      expect({ status: res.status, code: res.body?.code }, path).toEqual({ status: 400, code: "VALIDATION_ERROR" });
    }
  });

  it("a NUL in a path token is an unknown token, not a 500", async () => {
    const client = new TestClient(platform.baseURL);
    for (const token of ["%00", "A%00B"]) {
      const res = await client.get(`/reset-password/${token}?callbackURL=%2Freset`);
      expect({ status: res.status, location: res.headers.get("location") }, token).toEqual({ status: 302, location: "/reset?error=INVALID_TOKEN" });
    }
  });

  it("a POST whose query holds a NUL answers 400 too, even with a valid body", async () => {
    const client = new TestClient(platform.baseURL);
    const email = uniqueEmail("nul");
    expect((await client.post("/sign-up/email", { name: "Ada", email, password: "password-123" })).status).toBe(200);
    for (const [path, json] of [
      ["/reset-password?token=%00", { newPassword: "password-456" }],
      ["/sign-in/email?x=%00", { email, password: "password-123" }],
      ["/request-password-reset?redirectTo=%00", { email }],
    ] as const) {
      const res = await client.post(path, json);
      expect({ status: res.status, code: res.body?.code }, path).toEqual({ status: 400, code: "VALIDATION_ERROR" });
    }
  });
});
