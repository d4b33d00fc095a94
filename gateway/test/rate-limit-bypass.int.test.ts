/**
 * Attempts to get past the strict rate limits (3 per 10 s) of the credential paths: other spellings of a
 * path, sent raw (fetch would normalise dot segments), and the password-reset paths, which had only the
 * default rule (100 per 10 s).
 */
import { request as httpRequest } from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";

const PASSWORD = "password-123";

const platform = usePlatform({ rateLimit: true });
beforeAll(untilCounting);

/** The limiter fails open until a Redis counter store is connected: wait for a 429 on /ok. */
async function untilCounting(): Promise<void> {
  const warmUp = client("192.0.2.253");
  for (let i = 0; i < 1_000; i++) if ((await warmUp.get("/ok")).status === 429) return;
  throw new Error("the rate limiter never refused a request");
}

let addresses = 0;
/** A fresh benchmarking-range address per call, so no two tests share a counter. */
function freshIp(): string {
  addresses += 1;
  return `198.18.${addresses >> 8}.${addresses & 255}`;
}

/** The test connects from loopback, a trusted proxy by default, so X-Forwarded-For is its client IP. */
function client(ip: string): TestClient {
  return new TestClient(platform.baseURL, { "x-forwarded-for": ip });
}

/** A request whose target is sent exactly as written (no URL normalisation). */
function raw(method: string, path: string, json: unknown, ip: string): Promise<{ status: number; body: string }> {
  const url = new URL(platform.baseURL);
  const body = json === undefined ? undefined : JSON.stringify(json);
  const headers: Record<string, string> = { "x-forwarded-for": ip };
  if (body) Object.assign(headers, { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) });
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function aUser(): Promise<string> {
  const email = uniqueEmail("rate-bypass");
  expect((await client(freshIp()).post("/sign-up/email", { name: "Ada", email, password: PASSWORD })).status).toBe(200);
  return email;
}

describe(`rate-limit bypass attempts (${backendLabel()})`, () => {
  it("a spelling of /sign-in/email either shares its count or never reaches the handler", async () => {
    const email = await aUser();
    const ip = freshIp();
    const base = new URL(platform.baseURL).pathname.replace(/\/$/, "");
    const wrong = { email, password: "wrong-password" };
    // Routed: the query string and upper case with a trailing slash are the same route and the same count.
    expect((await raw("POST", `${base}/sign-in/email?x=1`, wrong, ip)).status).toBe(401);
    expect((await raw("POST", `${base}/SIGN-IN/EMAIL/?a=b`, wrong, ip)).status).toBe(401);
    expect((await raw("POST", `${base}/sign-in/email`, wrong, ip)).status).toBe(401);
    expect((await raw("POST", `${base}/sign-in/email?y=2`, { email, password: PASSWORD }, ip)).status).toBe(429);
    // Not routed (no password is checked, so no fresh budget of guesses): doubled slashes, dot segments,
    // percent-encoded letters, HEAD, and a path that climbs out of the base path and back.
    const other = freshIp();
    for (const path of [
      `${base}//sign-in/email`,
      `${base}/./sign-in/email`,
      `${base}/sign-in/./email`,
      `${base}/sign-in//email`,
      `${base}/%73ign-in/email`,
      `${base}/sign-in/%65mail`,
      `${base}/sign%2Din/email`,
      `${base}/../${base.slice(1)}/sign-in/email`,
    ]) {
      expect((await raw("POST", path, { email, password: PASSWORD }, other)).status, path).toBe(404);
    }
    expect((await raw("HEAD", `${base}/sign-in/email`, undefined, other)).status).toBe(404);
  });

  // Regression: the password-reset paths had only the default rule (100 per 10 s per IP), so one client
  // could send a reset mail to a hundred addresses every 10 s, or try reset tokens at that rate.
  it.each(["/request-password-reset", "/forget-password", "/reset-password"])("%s is limited to 3 per 10 s like the other credential paths", async (path) => {
    const visitor = client(freshIp());
    const body = path === "/reset-password" ? { newPassword: "password-456", token: "not-a-token" } : { email: uniqueEmail("rate-reset"), redirectTo: "/reset" };
    for (let i = 0; i < 3; i++) expect((await visitor.post(path, body)).status).not.toBe(429);
    const refused = await visitor.post(path, body);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ code: "TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER", message: "Too many requests. Please try again later." });
    // Its other spellings share the count.
    expect((await visitor.post(`${path.toUpperCase()}/`, body)).status).toBe(429);
  });
});
