/** Rate limits (docs/http-api.md#rate-limits) through the gateway with limiting on: per client IP (an IPv6 /64) plus path. */
import { beforeAll, describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { type JsonResponse, TestClient, uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";

const PASSWORD = "password-123";
const TOO_MANY = { code: "TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER", message: "Too many requests. Please try again later." };

const platform = usePlatform({ rateLimit: true });
beforeAll(untilCounting);

/**
 * The limiter fails open while its store is unreachable, and a Redis store is unreachable until its first
 * connection is up: hit /ok from a warm-up address until a 429 shows the counters are live.
 */
async function untilCounting(): Promise<void> {
  const warmUp = client("192.0.2.254");
  for (let i = 0; i < 1_000; i++) {
    if ((await warmUp.get("/ok")).status === 429) return;
  }
  throw new Error("the rate limiter never refused a request");
}

let addresses = 0;
/** A fresh documentation-range IPv4 address per call, so tests never share a counter. */
function freshIp(): string {
  addresses += 1;
  return `198.51.100.${addresses}`;
}

/** A client whose requests say they come from `ip` (the test connects from loopback, a trusted proxy by default, so it counts). */
function client(ip?: string): TestClient {
  return new TestClient(platform.baseURL, ip ? { "x-forwarded-for": ip } : {});
}

async function aUser(): Promise<string> {
  const email = uniqueEmail("rate");
  const res = await client(freshIp()).post("/sign-up/email", { name: "Ada", email, password: PASSWORD });
  expect(res.status).toBe(200);
  return email;
}

function expectLimited(res: JsonResponse): void {
  expect(res.status).toBe(429);
  expect(res.body).toEqual(TOO_MANY);
  const retryAfter = res.headers.get("x-retry-after");
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(10);
  // The standard header says the same, so a client that reads only Retry-After waits as long.
  expect(res.headers.get("retry-after")).toBe(retryAfter);
  expect(res.headers.getSetCookie()).toEqual([]);
}

describe(`rate limits (${backendLabel()})`, () => {
  it("the 4th sign-in attempt within 10 s from one IP is a 429 with X-Retry-After and Retry-After in seconds", async () => {
    const email = await aUser();
    // No forwarded header: the socket peer is the client.
    const direct = client();
    const wrong = await direct.post("/sign-in/email", { email, password: "wrong-password" });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("x-retry-after")).toBeNull();
    for (let i = 0; i < 2; i++) expect((await direct.post("/sign-in/email", { email, password: PASSWORD })).status).toBe(200);
    // Even the right password is refused now, and no session is issued.
    expectLimited(await direct.post("/sign-in/email", { email, password: PASSWORD }));
    expectLimited(await direct.post("/sign-in/email", { email, password: PASSWORD }));
  });

  it("counts each client IP separately", async () => {
    const email = await aUser();
    const first = client(freshIp());
    for (let i = 0; i < 3; i++) expect((await first.post("/sign-in/email", { email, password: "wrong-password" })).status).toBe(401);
    expectLimited(await first.post("/sign-in/email", { email, password: PASSWORD }));
    const other = await client(freshIp()).post("/sign-in/email", { email, password: PASSWORD });
    expect(other.status).toBe(200);
  });

  it("from the loopback peer (a trusted proxy by default) X-Forwarded-For is read from the right; X-Client-IP is not read", async () => {
    const email = await aUser();
    const ip = freshIp();
    // What a client writes left of the proxy's entry, and an unconfigured single-value header, change nothing.
    for (let i = 0; i < 3; i++) {
      const headers = { "x-client-ip": freshIp(), "cf-connecting-ip": freshIp(), "x-forwarded-for": `${freshIp()}, ${ip}` };
      expect((await client().post("/sign-in/email", { email, password: "wrong-password" }, headers)).status).toBe(401);
    }
    expectLimited(await client().post("/sign-in/email", { email, password: PASSWORD }, { "x-forwarded-for": `${ip}, 10.0.0.1` }));
    // The rightmost untrusted address is the key: another one has its own count.
    expect((await client().post("/sign-in/email", { email, password: PASSWORD }, { "x-forwarded-for": `${ip}, ${freshIp()}` })).status).toBe(200);
  });

  it("counts each path separately", async () => {
    const email = await aUser();
    const ip = freshIp();
    for (let i = 0; i < 3; i++) await client(ip).post("/sign-in/email", { email, password: "wrong-password" });
    expectLimited(await client(ip).post("/sign-in/email", { email, password: PASSWORD }));
    expect((await client(ip).post("/sign-in/username", { username: "nobody_here", password: PASSWORD })).status).toBe(401);
    expect((await client(ip).get("/get-session")).status).toBe(200);
  });

  it("the default rule allows 100 requests per 10 s: the 101st /get-session is a 429", async () => {
    const visitor = client(freshIp());
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) statuses.push((await visitor.get("/get-session")).status);
    expect(statuses.every((status) => status === 200)).toBe(true);
    expectLimited(await visitor.get("/get-session"));
    expect((await visitor.get("/list-sessions")).status).toBe(401);
  });

  it("a signed-in visitor's get-session, answered from the gateway's memory, counts too: the 101st is a 429", async () => {
    const visitor = client(freshIp());
    expect((await visitor.post("/sign-up/email", { name: "Ada", email: uniqueEmail("rate"), password: PASSWORD })).status).toBe(200);
    const answers: unknown[] = [];
    for (let i = 0; i < 100; i++) answers.push((await visitor.get("/get-session")).body?.user?.email);
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).toMatch(/@/);
    expectLimited(await visitor.get("/get-session"));
  });

  it("/sign-up/email is limited at 3 too, and the refused sign-up creates no user", async () => {
    const visitor = client(freshIp());
    for (let i = 0; i < 3; i++) {
      expect((await visitor.post("/sign-up/email", { name: "Ada", email: uniqueEmail("rate"), password: PASSWORD })).status).toBe(200);
    }
    const email = uniqueEmail("rate-refused");
    expectLimited(await visitor.post("/sign-up/email", { name: "Ada", email, password: PASSWORD }));
    const signIn = await client(freshIp()).post("/sign-in/email", { email, password: PASSWORD });
    expect(signIn).toMatchObject({ status: 401, body: { code: "INVALID_EMAIL_OR_PASSWORD" } });
  });

  it("IPv6 clients in one /64 share one count; another /64 has its own", async () => {
    const email = await aUser();
    for (const ip of ["2001:db8:a:b::1", "2001:db8:a:b::2", "2001:db8:a:b:1234:5678:9abc:def0"]) {
      expect((await client(ip).post("/sign-in/email", { email, password: "wrong-password" })).status).toBe(401);
    }
    expectLimited(await client("2001:db8:a:b:ffff::9").post("/sign-in/email", { email, password: PASSWORD }));
    expectLimited(await client("[2001:0db8:000a:000b::42]:443").post("/sign-in/email", { email, password: PASSWORD }));
    expect((await client("2001:db8:a:c::1").post("/sign-in/email", { email, password: PASSWORD })).status).toBe(200);
  });

  it("an IPv4-mapped IPv6 address counts as its IPv4 address", async () => {
    const email = await aUser();
    const ip = freshIp();
    for (const address of [ip, `::ffff:${ip}`, ip]) {
      expect((await client(address).post("/sign-in/email", { email, password: "wrong-password" })).status).toBe(401);
    }
    expectLimited(await client(`::ffff:${ip}`).post("/sign-in/email", { email, password: PASSWORD }));
  });

  // Regression: express routes /SIGN-IN/email and /sign-in/email/ to the sign-in handler, but the limiter
  // keyed (and picked its rule by) the raw path, so each spelling got a fresh budget of attempts.
  it("other spellings of the same route share its count", async () => {
    const email = await aUser();
    const ip = freshIp();
    for (const path of ["/sign-in/email", "/Sign-In/Email", "/sign-in/email/"]) {
      expect((await client(ip).post(path, { email, password: "wrong-password" })).status).toBe(401);
    }
    for (const path of ["/sign-in/email", "/SIGN-IN/EMAIL", "/sign-in/email/"]) {
      expectLimited(await client(ip).post(path, { email, password: PASSWORD }));
    }
  });

  // Each verification is a DNS lookup from the sso service: without a rule of their own the default 100 per
  // 10 s let one client make the platform send 600 lookups a minute.
  it("verify-domain, by claim and by provider, allows 10 per minute per client", async () => {
    const ip = freshIp();
    const owner = client(ip);
    expect((await owner.post("/sign-up/email", { name: "Ada", email: uniqueEmail("rate-domain"), password: PASSWORD })).status).toBe(200);
    const org = await owner.post("/organization/create", { name: "Rate Org", slug: `rate-org-${Date.now().toString(36)}` });
    expect(org.status, JSON.stringify(org.body)).toBe(200);
    for (const [path, body] of [
      ["/organization/verify-domain", { organizationId: org.body.id, domainId: "no-such-claim" }],
      ["/sso/verify-domain", { providerId: "no-such-provider" }],
    ] as const) {
      for (let i = 0; i < 10; i++) expect((await owner.post(path, body)).status, path).toBe(404);
      const limited = await owner.post(path, body);
      expect(limited.status, path).toBe(429);
      expect(limited.body).toEqual(TOO_MANY);
      // The window is a minute, not the credential paths' 10 s.
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(10);
      expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    }
    // Another client is not held back by this one.
    expect((await client(freshIp()).post("/organization/verify-domain", { domainId: "x" })).status).toBe(401);
  });
});
