/**
 * Forwarded client-IP headers cannot buy a client more password guesses. From a peer that
 * is not a trusted proxy, rotating X-Forwarded-For, Forwarded, X-Client-IP or CF-Connecting-IP leaves every
 * attempt on the peer's own count (3 sign-ins per 10 s); from a trusted proxy the configured single-value
 * headers count, in their fixed order (docs/adr/0007-client-ip-from-trusted-proxies.md). The test connects from 127.0.0.1, trusted by default, so each
 * platform here sets AUTH_TRUSTED_PROXIES explicitly.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { type JsonResponse, TestClient, uniqueEmail } from "../../testing/http.js";
import { type Platform, startPlatform } from "../../testing/platform.js";

const PASSWORD = "password-123";

let addresses = 0;
/** A fresh documentation-range address per call. */
function freshIp(): string {
  addresses += 1;
  return `203.0.113.${addresses}`;
}

function usePlatform(env: Record<string, string>) {
  const state = {} as { platform: Platform };
  beforeAll(async () => {
    state.platform = await startPlatform({ rateLimit: true, env });
    await untilCounting(state.platform);
  });
  afterAll(async () => {
    await state.platform?.stop();
  });
  return state;
}

/** A Redis counter store fails open until its connection is up: wait for a 429 on /ok. */
async function untilCounting(platform: Platform): Promise<void> {
  const warmUp = new TestClient(platform.baseURL, { "x-forwarded-for": "192.0.2.254" });
  for (let i = 0; i < 1_000; i++) if ((await warmUp.get("/ok")).status === 429) return;
  throw new Error("the rate limiter never refused a request");
}

async function aUser(platform: Platform, headers: Record<string, string>): Promise<string> {
  const email = uniqueEmail("client-ip");
  const res = await new TestClient(platform.baseURL, headers).post("/sign-up/email", { name: "Ada", email, password: PASSWORD });
  expect(res.status).toBe(200);
  return email;
}

const signIn = (platform: Platform, email: string, password: string, headers: Record<string, string>): Promise<JsonResponse> =>
  new TestClient(platform.baseURL, headers).post("/sign-in/email", { email, password });

/** Every spelling a client could use to claim another address, all at once and all fresh. */
function rotatingHeaders(): Record<string, string> {
  return {
    "x-forwarded-for": `${freshIp()}, ${freshIp()}`,
    forwarded: `for=${freshIp()}`,
    "x-client-ip": freshIp(),
    "cf-connecting-ip": freshIp(),
    "fastly-client-ip": freshIp(),
    "x-real-ip": freshIp(),
    "x-cluster-client-ip": freshIp(),
  };
}

describe(`client IP from a peer that is not a trusted proxy (${backendLabel()})`, () => {
  // 127.0.0.1 is outside the list: the test is a client on the internet. Even configured headers do not count.
  const running = usePlatform({ AUTH_TRUSTED_PROXIES: "10.0.0.0/8", AUTH_CLIENT_IP_HEADERS: "x-client-ip,cf-connecting-ip" });

  it("rotating forwarded headers does not get past the 3-per-10 s sign-in limit", async () => {
    const { platform } = running;
    const email = await aUser(platform, {});
    for (let i = 0; i < 3; i++) expect((await signIn(platform, email, "wrong-password", rotatingHeaders())).status).toBe(401);
    for (let i = 0; i < 5; i++) {
      const res = await signIn(platform, email, PASSWORD, rotatingHeaders());
      expect(res.status).toBe(429);
      expect(res.body).toEqual({ code: "TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER", message: "Too many requests. Please try again later." });
    }
  });
});

describe(`client IP from a trusted proxy (${backendLabel()})`, () => {
  const running = usePlatform({ AUTH_TRUSTED_PROXIES: "127.0.0.1", AUTH_CLIENT_IP_HEADERS: "x-real-ip" });

  it("reads X-Forwarded-For from the right: what the client wrote on the left does not change its count", async () => {
    const { platform } = running;
    const ip = freshIp();
    const email = await aUser(platform, { "x-forwarded-for": freshIp() });
    for (let i = 0; i < 3; i++) {
      expect((await signIn(platform, email, "wrong-password", { "x-forwarded-for": `${freshIp()}, ${freshIp()}, ${ip}` })).status).toBe(401);
    }
    expect((await signIn(platform, email, PASSWORD, { "x-forwarded-for": `${freshIp()}, ${ip}` })).status).toBe(429);
    // Another client behind the same proxy has its own count.
    expect((await signIn(platform, email, PASSWORD, { "x-forwarded-for": `${ip}, ${freshIp()}` })).status).toBe(200);
  });

  it("believes a configured single-value header and ignores the others, X-Client-IP included", async () => {
    const { platform } = running;
    const ip = freshIp();
    const email = await aUser(platform, { "x-forwarded-for": freshIp() });
    // X-Real-IP is configured; X-Client-IP (first in the order) and CF-Connecting-IP are not: rotating them changes nothing.
    for (let i = 0; i < 3; i++) {
      const headers = { "x-client-ip": freshIp(), "cf-connecting-ip": freshIp(), "x-real-ip": ip };
      expect((await signIn(platform, email, "wrong-password", headers)).status).toBe(401);
    }
    expect((await signIn(platform, email, PASSWORD, { "x-real-ip": ip })).status).toBe(429);
    // X-Forwarded-For comes before X-Real-IP in the order: with it, it is the key.
    expect((await signIn(platform, email, PASSWORD, { "x-real-ip": ip, "x-forwarded-for": freshIp() })).status).toBe(200);
    expect((await signIn(platform, email, PASSWORD, { "x-client-ip": freshIp(), "x-forwarded-for": ip })).status).toBe(429);
  });
});
