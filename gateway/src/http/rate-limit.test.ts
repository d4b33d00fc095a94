import type { Request, Response } from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthError } from "@auth-platform/proto/errors";
import { createMemoryKeyValue, type KeyValue } from "@auth-platform/runtime/key-value";
import { createRedisKeyValue } from "@auth-platform/runtime/redis-key-value";
import type { Logger } from "@auth-platform/runtime/log";
import { randomString, LOWER_ALPHANUMERIC } from "@auth-platform/runtime/random";
import { eventually } from "../../../testing/eventually.js";
import { counterKey, openRateLimitCounters, rateLimit, ruleFor, type RateLimitOptions } from "./rate-limit.js";

const REDIS_URL = process.env.TEST_REDIS_URL || undefined;

/** The rate limits (docs/http-api.md#rate-limits): 100 per 10 s by default, 3 per 10 s on the credential paths. */
const OPTIONS: RateLimitOptions = {
  enabled: true,
  default: { window: 10, max: 100 },
  rules: {
    "/sign-in": { window: 10, max: 3 },
    "/sign-up": { window: 10, max: 3 },
    "/change-password": { window: 10, max: 3 },
    "/change-email": { window: 10, max: 3 },
  },
};

function recordingLogger() {
  const warnings: string[] = [];
  const log: Logger = { debug() {}, info() {}, warn: (msg) => void warnings.push(msg), error() {} };
  return { log, warnings };
}

interface Outcome {
  allowed: boolean;
  error?: AuthError;
  retryAfter?: string;
}

/** Runs the middleware once for a request from `ip` to `path`. */
function limiter(counters: KeyValue, options: RateLimitOptions = OPTIONS, log: Logger = recordingLogger().log) {
  const middleware = rateLimit(options, counters, (req) => (req as Request & { clientKey?: string }).clientKey, log);
  return async (path: string, ip: string | null = "203.0.113.1"): Promise<Outcome> => {
    const headers = new Map<string, string>();
    const res = { setHeader: (name: string, value: string) => void headers.set(name.toLowerCase(), value) } as unknown as Response;
    const req = { path, clientKey: ip ?? undefined } as unknown as Request;
    let nextArg: unknown = "not called";
    await middleware(req, res, (arg?: unknown) => {
      nextArg = arg;
    });
    expect(nextArg).not.toBe("not called");
    if (nextArg === undefined) return { allowed: true };
    expect(nextArg).toBeInstanceOf(AuthError);
    return { allowed: false, error: nextArg as AuthError, retryAfter: headers.get("x-retry-after") };
  };
}

async function times(n: number, fn: () => Promise<Outcome>): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for (let i = 0; i < n; i++) out.push(await fn());
  return out;
}

/** The Redis store refuses commands (no offline queue) until its connection is up; wait for it. */
async function untilConnected(counters: KeyValue): Promise<void> {
  await eventually(() => counters.get("ping"));
}

function fakeClock(start = 1_700_000_000_000) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe("ruleFor", () => {
  it("picks the rule of the matching prefix", () => {
    expect(ruleFor("/sign-in/email", OPTIONS)).toEqual({ window: 10, max: 3 });
    expect(ruleFor("/sign-up/email", OPTIONS)).toEqual({ window: 10, max: 3 });
    expect(ruleFor("/change-email", OPTIONS)).toEqual({ window: 10, max: 3 });
  });

  it("picks the longest matching prefix whatever the order of the rules", () => {
    const specific = { window: 60, max: 1 };
    const general = { window: 10, max: 5 };
    for (const rules of [
      { "/sign-in": general, "/sign-in/username": specific },
      { "/sign-in/username": specific, "/sign-in": general },
    ]) {
      const options = { ...OPTIONS, rules };
      expect(ruleFor("/sign-in/username", options)).toBe(specific);
      expect(ruleFor("/sign-in/email", options)).toBe(general);
    }
  });

  it("falls back to the default rule", () => {
    expect(ruleFor("/get-session", OPTIONS)).toBe(OPTIONS.default);
    expect(ruleFor("/", OPTIONS)).toBe(OPTIONS.default);
    expect(ruleFor("/list-sessions", { ...OPTIONS, rules: {} })).toBe(OPTIONS.default);
  });
});

describe("rateLimit counter keys", () => {
  it("name the path by its hash, so a token in a path (the reset landing) is never kept in the counters", async () => {
    const keys: string[] = [];
    const store = createMemoryKeyValue(fakeClock().now);
    const recording: KeyValue = {
      ...store,
      hit: (key, windowMs) => {
        keys.push(key);
        return store.hit(key, windowMs);
      },
    };
    const send = limiter(recording);
    const token = "ResetTokenThatMustNotBeKept1234";
    expect(await send(`/reset-password/${token}`)).toEqual({ allowed: true });
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^rate:203\.0\.113\.1\|/);
    expect(keys[0]!.toLowerCase()).not.toContain(token.toLowerCase());
    // The same path, spelled as routing sees it, shares the counter.
    await send(`/RESET-PASSWORD/${token}/`);
    expect(keys[1]).toBe(keys[0]);
  });
});

describe("rateLimit with the memory store and a fake clock", () => {
  it("allows max requests per window, then answers TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER with X-Retry-After (and Retry-After) in whole seconds", async () => {
    const clock = fakeClock();
    const send = limiter(createMemoryKeyValue(clock.now));
    expect((await times(3, () => send("/sign-in/email"))).every((o) => o.allowed)).toBe(true);
    clock.advance(2_500);
    const refused = await send("/sign-in/email");
    expect(refused.allowed).toBe(false);
    expect(refused.error).toMatchObject({ code: "TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER", http: 429, message: "Too many requests. Please try again later." });
    // 7.5 s left in the window, rounded up to whole seconds; the error carries it for the standard Retry-After.
    expect(refused.retryAfter).toBe("8");
    expect(refused.error?.retryAfterMs).toBe(7_500);
  });

  it("counts the default rule: 100 allowed, the 101st refused", async () => {
    const send = limiter(createMemoryKeyValue(fakeClock().now));
    const outcomes = await times(101, () => send("/get-session"));
    expect(outcomes.slice(0, 100).every((o) => o.allowed)).toBe(true);
    expect(outcomes[100]).toMatchObject({ allowed: false, retryAfter: "10" });
  });

  it("never answers an X-Retry-After below 1 s, and keeps refusing until the window ends", async () => {
    const clock = fakeClock();
    const send = limiter(createMemoryKeyValue(clock.now));
    await times(3, () => send("/sign-up/email"));
    clock.advance(9_999);
    expect(await send("/sign-up/email")).toMatchObject({ allowed: false, retryAfter: "1" });
  });

  it("starts a new window once the old one has passed", async () => {
    const clock = fakeClock();
    const send = limiter(createMemoryKeyValue(clock.now));
    await times(4, () => send("/sign-in/email"));
    clock.advance(10_000);
    expect((await times(3, () => send("/sign-in/email"))).every((o) => o.allowed)).toBe(true);
    expect((await send("/sign-in/email")).allowed).toBe(false);
  });

  it("the window is fixed from the first hit: refused hits do not extend it", async () => {
    const clock = fakeClock();
    const send = limiter(createMemoryKeyValue(clock.now));
    await times(3, () => send("/sign-in/email"));
    for (let i = 0; i < 9; i++) {
      clock.advance(1_000);
      expect((await send("/sign-in/email")).allowed).toBe(false);
    }
    clock.advance(1_000);
    expect((await send("/sign-in/email")).allowed).toBe(true);
  });

  it("counts each ip and each path separately", async () => {
    const send = limiter(createMemoryKeyValue(fakeClock().now));
    await times(3, () => send("/sign-in/email", "203.0.113.1"));
    expect((await send("/sign-in/email", "203.0.113.1")).allowed).toBe(false);
    expect((await send("/sign-in/email", "203.0.113.2")).allowed).toBe(true);
    expect((await send("/sign-in/username", "203.0.113.1")).allowed).toBe(true);
    expect((await send("/sign-up/email", "203.0.113.1")).allowed).toBe(true);
    expect((await send("/get-session", "203.0.113.1")).allowed).toBe(true);
  });

  // Regression: express routes paths case-insensitively and with an optional trailing slash, so
  // /SIGN-IN/email and /sign-in/email/ reached the sign-in handler under a fresh counter (and the
  // former under the 100-request default rule): every spelling gave three more password guesses.
  it("counts every spelling express routes to the same handler as one path", async () => {
    const send = limiter(createMemoryKeyValue(fakeClock().now));
    await times(3, () => send("/sign-in/email"));
    for (const path of ["/sign-in/email", "/SIGN-IN/email", "/Sign-In/Email", "/sign-in/email/", "/SIGN-IN/EMAIL//"]) {
      expect((await send(path)).allowed, path).toBe(false);
    }
    expect(ruleFor("/SIGN-UP/email", OPTIONS)).toEqual({ window: 10, max: 3 });
  });

  it("lets requests through when disabled or when no client key is known", async () => {
    const counters = createMemoryKeyValue(fakeClock().now);
    const off = limiter(counters, { ...OPTIONS, enabled: false });
    expect((await times(10, () => off("/sign-in/email"))).every((o) => o.allowed)).toBe(true);
    const anonymous = limiter(counters);
    expect((await times(10, () => anonymous("/sign-in/email", null))).every((o) => o.allowed)).toBe(true);
  });

  it("fails open, with a warning, when the store throws", async () => {
    const broken: KeyValue = {
      ...createMemoryKeyValue(),
      hit: async () => {
        throw new Error("connection refused");
      },
    };
    const { log, warnings } = recordingLogger();
    const send = limiter(broken, OPTIONS, log);
    expect((await times(5, () => send("/sign-in/email"))).every((o) => o.allowed)).toBe(true);
    expect(warnings).toHaveLength(5);
    expect(warnings[0]).toMatch(/rate limit store unavailable/);
  });
});

describe("rateLimit with Redis", () => {
  let counters: KeyValue;
  beforeAll(async () => {
    if (!REDIS_URL) return;
    counters = createRedisKeyValue(REDIS_URL, recordingLogger().log, `test:rate:${randomString(8, LOWER_ALPHANUMERIC)}:`);
    await untilConnected(counters);
  });
  afterAll(async () => {
    await counters?.close();
  });

  it.skipIf(!REDIS_URL)("allows max requests per window, then answers TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER with X-Retry-After of 1..10 s", async () => {
    const send = limiter(counters);
    const ip = "198.51.100.1";
    expect((await times(3, () => send("/sign-in/email", ip))).every((o) => o.allowed)).toBe(true);
    const refused = await send("/sign-in/email", ip);
    expect(refused.error).toMatchObject({ code: "TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER", http: 429 });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(10);
    expect(refused.retryAfter).toMatch(/^\d+$/);
  });

  it.skipIf(!REDIS_URL)("counts each ip and each path separately", async () => {
    const send = limiter(counters);
    await times(3, () => send("/sign-up/email", "198.51.100.2"));
    expect((await send("/sign-up/email", "198.51.100.2")).allowed).toBe(false);
    expect((await send("/sign-up/email", "198.51.100.3")).allowed).toBe(true);
    expect((await send("/sign-in/email", "198.51.100.2")).allowed).toBe(true);
  });

  it.skipIf(!REDIS_URL)("starts a new window once the old one has passed", async () => {
    const send = limiter(counters, { ...OPTIONS, rules: { "/sign-in": { window: 1, max: 2 } } });
    const ip = "198.51.100.4";
    await times(2, () => send("/sign-in/email", ip));
    expect(await send("/sign-in/email", ip)).toMatchObject({ allowed: false, retryAfter: "1" });
    // Redis ends the window: its counter expires.
    await eventually(async () => expect(await counters.get(counterKey(ip, "/sign-in/email"))).toBeNull());
    expect((await times(2, () => send("/sign-in/email", ip))).every((o) => o.allowed)).toBe(true);
    expect((await send("/sign-in/email", ip)).allowed).toBe(false);
  });

  it.skipIf(!REDIS_URL)("counts 200 concurrent hits exactly: each count 1..200 once, one window", async () => {
    const key = `rate:concurrent-${randomString(6, LOWER_ALPHANUMERIC)}`;
    const hits = await Promise.all(Array.from({ length: 200 }, () => counters.hit(key, 10_000)));
    expect(hits.map((h) => h.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    for (const hit of hits) {
      expect(hit.resetMs).toBeGreaterThan(0);
      expect(hit.resetMs).toBeLessThanOrEqual(10_000);
    }
  });

  it.skipIf(!REDIS_URL)("lets exactly max of 200 concurrent requests through", async () => {
    const send = limiter(counters);
    const outcomes = await Promise.all(Array.from({ length: 200 }, () => send("/get-session", "198.51.100.5")));
    expect(outcomes.filter((o) => o.allowed)).toHaveLength(100);
    expect(outcomes.filter((o) => !o.allowed).every((o) => o.error?.code === "TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER")).toBe(true);
  });

  it("fails open when Redis cannot be reached", async () => {
    const { log, warnings } = recordingLogger();
    const unreachable = createRedisKeyValue("redis://127.0.0.1:1", log, "test:unreachable:");
    try {
      const send = limiter(unreachable, OPTIONS, log);
      expect((await times(4, () => send("/sign-in/email"))).every((o) => o.allowed)).toBe(true);
      expect(warnings).toContain("rate limit store unavailable; request allowed");
    } finally {
      await unreachable.close();
    }
  });
});

describe("openRateLimitCounters", () => {
  it("counts in the process's key-value store for redis, and for memory without Redis; memory beside Redis is a store of its own", async () => {
    const { log } = recordingLogger();
    const memory = createMemoryKeyValue();
    expect(await openRateLimitCounters("memory", undefined, memory, log)).toBe(memory);
    const redis: KeyValue = { ...createMemoryKeyValue(), kind: "redis" };
    expect(await openRateLimitCounters("redis", undefined, redis, log)).toBe(redis);
    const own = await openRateLimitCounters("memory", undefined, redis, log);
    try {
      await own.hit("rate:k", 10_000);
      expect(await redis.get("rate:k")).toBeNull();
    } finally {
      await own.close();
    }
  });
});

describe("the default rules", () => {
  it("limit every /two-factor path to 3 per 10 s (codes are guessable), like the credential paths", async () => {
    const { gatewayConfig } = await import("../config.js");
    const options = gatewayConfig({ AUTH_SECRET: "unit-test-secret-0123456789-0123456789" }).rateLimit;
    for (const path of [
      "/two-factor/verify-totp",
      "/two-factor/verify-otp",
      "/two-factor/verify-backup-code",
      "/two-factor/send-otp",
      "/two-factor/enable",
      "/two-factor/verify-passkey",
      "/Two-Factor/Verify-Totp/",
    ]) {
      expect(ruleFor(path, options), path).toEqual({ window: 10, max: 3 });
    }
  });

  it("limit a passkey sign-in to 3 per 10 s; its options (asked on every visit of the sign-in screen) and the signed-in passkey routes keep the default", async () => {
    const { gatewayConfig } = await import("../config.js");
    const options = gatewayConfig({ AUTH_SECRET: "unit-test-secret-0123456789-0123456789" }).rateLimit;
    expect(ruleFor("/passkey/verify-authentication", options)).toEqual({ window: 10, max: 3 });
    expect(ruleFor("/passkey/generate-authenticate-options", options)).toEqual(options.default);
    expect(ruleFor("/passkey/list-user-passkeys", options)).toEqual(options.default);
  });
});
