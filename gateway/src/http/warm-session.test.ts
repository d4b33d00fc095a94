/**
 * Which get-session requests are answered before the middleware chain (a session held in memory, nothing
 * else in the chain with a say), what that answer carries, and that rate limiting counts and refuses it.
 * Behind the warm listener sits a stand-in for the express chain that answers 299, so each request shows which
 * side took it.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type Request } from "express";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryKeyValue, type KeyValue } from "@auth-platform/runtime/key-value";
import type { Logger } from "@auth-platform/runtime/log";
import { errorHandler } from "./errors.js";
import type { PublicSession, PublicUser } from "./public-shapes.js";
import type { RateLimitRule } from "../config.js";
import { rateLimit, rateLimitCheck } from "./rate-limit.js";
import { apiHeaders, securityHeaders } from "./security-headers.js";
import type { SessionResolver } from "./session.js";
import { warmGetSession, type WarmSessionOptions } from "./warm-session.js";

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const HELD_TOKEN = "held-token";
const user = { id: "u1", email: "ada@example.com", name: "Ada", emailVerified: true } as PublicUser;
const session = { id: "s1", token: HELD_TOKEN, userId: "u1", expiresAt: "2027-01-01T00:00:00.000Z" } as PublicSession;

/** Holds one session, for the bearer token HELD_TOKEN. */
const resolver = {
  heldAnswer: (req: Request): string | undefined => (req.headers.authorization === `Bearer ${HELD_TOKEN}` ? JSON.stringify({ session, user }) : undefined),
} as SessionResolver;

let close: (() => void) | undefined;
afterEach(() => close?.());

/**
 * The warm listener in front of a stand-in chain under /api/auth: the security headers, then (with `limit`)
 * the real rate limiter on the same counters, then its 299, as the gateway's chain orders them.
 */
async function serve(
  options: Partial<WarmSessionOptions> = {},
  limit?: { counters: KeyValue; rule: RateLimitRule; clientKeyOf: (req: IncomingMessage) => string },
): Promise<string> {
  const api = express.Router();
  api.use(securityHeaders("https://auth.example.test/api/auth"));
  if (limit) api.use(rateLimit({ enabled: true, default: limit.rule, rules: {} }, limit.counters, limit.clientKeyOf, silent));
  api.use((_req, res) => void res.status(299).json({ chain: true }));
  api.use(errorHandler(silent));
  const basePath = options.basePath ?? "/api/auth";
  const app = express();
  app.disable("x-powered-by");
  app.use(basePath, api);
  const listener = warmGetSession({ basePath, sessions: resolver, apiHeaders: apiHeaders("https://auth.example.test/api/auth"), sessionJwtHeader: false, ...options }, app);
  const server = createServer(listener).listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  close = () => server.close();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}${basePath === "/" ? "" : basePath}`;
}

const held = { authorization: `Bearer ${HELD_TOKEN}` };

describe("warmGetSession", () => {
  it("answers a held session itself, as the route would, with every header the chain sets", async () => {
    const base = await serve();
    const res = await fetch(`${base}/get-session`, { headers: { ...held, "x-request-id": "req-42" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ session, user });
    expect(Object.fromEntries([...res.headers].filter(([name]) => name !== "date" && name !== "connection" && name !== "keep-alive"))).toEqual({
      "cache-control": "no-store",
      "content-length": String(JSON.stringify({ session, user }).length),
      "content-security-policy": "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
      "content-type": "application/json; charset=utf-8",
      "referrer-policy": "no-referrer",
      "strict-transport-security": "max-age=31536000",
      vary: "Origin",
      "x-content-type-options": "nosniff",
      "x-frame-options": "DENY",
      "x-request-id": "req-42",
    });
  });

  it.each([
    ["no session held", "/get-session", {}],
    ["a query", "/get-session?disableRefresh=true", held],
    ["a trailing slash", "/get-session/", held],
    ["an Origin header (CORS answers are the chain's)", "/get-session", { ...held, origin: "https://app.example.test" }],
    ["another route", "/list-sessions", held],
  ])("leaves the request to the chain: %s", async (_what, path, headers) => {
    const base = await serve();
    expect((await fetch(`${base}${path}`, { headers })).status).toBe(299);
  });

  it("leaves a POST and a HEAD to the chain", async () => {
    const base = await serve();
    expect((await fetch(`${base}/get-session`, { method: "POST", headers: held })).status).toBe(299);
    expect((await fetch(`${base}/get-session`, { method: "HEAD", headers: held })).status).toBe(299);
  });

  it("takes the path under the configured base path only, as configured", async () => {
    const atRoot = await serve({ basePath: "/" });
    expect((await fetch(`${atRoot}/get-session`, { headers: held })).status).toBe(200);
    close?.();
    const base = await serve();
    // express routes another spelling of the mount path too; that request is the chain's.
    expect((await fetch(`${base.replace("/api/auth", "/API/Auth")}/get-session`, { headers: held })).status).toBe(299);
    expect((await fetch(`${base.replace("/api/auth", "")}/get-session`, { headers: held })).status).toBe(404);
  });

  it("leaves every request to the chain when the answer must carry a session JWT", async () => {
    const base = await serve({ sessionJwtHeader: true });
    expect((await fetch(`${base}/get-session`, { headers: held })).status).toBe(299);
  });

  it("counts the request against the client's limit and hands a refused one to the chain, which answers the catalogue's 429", async () => {
    const counters = createMemoryKeyValue();
    const rule = { window: 10, max: 2 };
    const clientKeyOf = (req: IncomingMessage) => String(req.headers["x-client"]);
    const check = rateLimitCheck({ enabled: true, default: rule, rules: {} }, counters, silent);
    const base = await serve({ rateLimit: { check, clientKeyOf } }, { counters, rule, clientKeyOf });
    const from = (client: string) => fetch(`${base}/get-session`, { headers: { ...held, "x-client": client } });
    expect((await from("a")).status).toBe(200);
    expect((await from("a")).status).toBe(200);
    const refused = await from("a");
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ code: "TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER", message: "Too many requests. Please try again later." });
    expect(refused.headers.get("x-retry-after")).toMatch(/^([1-9]|10)$/);
    expect(refused.headers.get("cache-control")).toBe("no-store");
    expect((await from("b")).status).toBe(200);
  });
});
