/**
 * The gateway's error mapper: a flood of 503s is logged once per interval, with the count left out; an
 * error's own fields join its body, never replacing its code or message.
 */
import type { Request, Response } from "express";
import { describe, expect, it } from "vitest";
import { AuthError } from "@auth-platform/proto/errors";
import type { Logger } from "@auth-platform/runtime/log";
import { errorHandler, retryAfterSeconds, UNAVAILABLE_LOG_INTERVAL_MS, UNAVAILABLE_RETRY_AFTER_MS } from "./errors.js";

function recorder() {
  const lines: Array<{ level: "warn" | "error"; message: string; fields?: Record<string, unknown> }> = [];
  const log: Logger = {
    debug() {},
    info() {},
    warn: (message, fields) => void lines.push({ level: "warn", message, fields }),
    error: (message, fields) => void lines.push({ level: "error", message, fields }),
  };
  return { log, lines };
}

function answer(handler: ReturnType<typeof errorHandler>, error: unknown, options: { clientGone?: boolean } = {}) {
  const sent: { status?: number; body?: unknown; headers?: Record<string, string> } = {};
  const res = {
    destroyed: options.clientGone ?? false,
    status: (code: number) => {
      sent.status = code;
      return res;
    },
    json: (body: unknown) => {
      sent.body = body;
    },
    setHeader: (name: string, value: string) => {
      sent.headers = { ...sent.headers, [name]: value };
    },
  } as unknown as Response;
  handler(error, { path: "/sign-in/email", route: { path: "/sign-in/email" } } as unknown as Request, res, () => {});
  return sent;
}

describe("errorHandler", () => {
  it("answers every 503 but logs one line per interval, counting the ones in between", () => {
    const { log, lines } = recorder();
    let now = 1_000_000;
    const handler = errorHandler(log, () => now);
    for (let i = 0; i < 500; i++) {
      expect(answer(handler, new AuthError("SERVICE_UNAVAILABLE"))).toMatchObject({ status: 503, body: { code: "SERVICE_UNAVAILABLE", message: "Service unavailable" } });
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]!.fields).not.toHaveProperty("sinceLastLine");
    now += UNAVAILABLE_LOG_INTERVAL_MS;
    answer(handler, new AuthError("SERVICE_UNAVAILABLE"));
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ message: "service unavailable", fields: { path: "/sign-in/email", sinceLastLine: 499 } });
    // Other 500s are never summarised.
    answer(handler, new AuthError("INTERNAL_SERVER_ERROR"));
    answer(handler, new AuthError("INTERNAL_SERVER_ERROR"));
    expect(lines).toHaveLength(4);
  });

  it("logs a failed domain verification (502) as a warning naming the domain, and other 5xx as errors", () => {
    const { log, lines } = recorder();
    const handler = errorHandler(log);
    const failed = new AuthError("DOMAIN_VERIFICATION_FAILED", undefined, { fields: { reason: "unavailable", domain: "acme.example" } });
    expect(answer(handler, failed)).toMatchObject({ status: 502, body: { code: "DOMAIN_VERIFICATION_FAILED", reason: "unavailable", domain: "acme.example" } });
    expect(lines).toEqual([{ level: "warn", message: "domain verification failed", fields: { path: "/sign-in/email", reason: "unavailable", domain: "acme.example" } }]);
    answer(handler, new AuthError("INTERNAL_SERVER_ERROR"));
    expect(lines[1]).toMatchObject({ level: "error", message: "internal error" });
  });

  it("neither logs nor answers a 503 for a client that hung up (its calls were cancelled with it)", () => {
    const { log, lines } = recorder();
    const handler = errorHandler(log);
    expect(answer(handler, new AuthError("SERVICE_UNAVAILABLE"), { clientGone: true })).toEqual({});
    expect(lines).toHaveLength(0);
    // An internal failure is logged whether or not anyone is left to read its answer.
    answer(handler, new AuthError("INTERNAL_SERVER_ERROR"), { clientGone: true });
    expect(lines).toHaveLength(1);
    // A client still there gets its 503, and the line.
    expect(answer(handler, new AuthError("SERVICE_UNAVAILABLE"))).toMatchObject({ status: 503 });
    expect(lines).toHaveLength(2);
  });

  it("answers Retry-After in whole seconds, at least 1: the refusal's hint, else the default for an unreachable service", () => {
    const handler = errorHandler(recorder().log);
    expect(answer(handler, new AuthError("SERVICE_UNAVAILABLE", undefined, { retryAfterMs: 1500 }))).toMatchObject({ status: 503, headers: { "Retry-After": "2" } });
    expect(answer(handler, new AuthError("SERVICE_UNAVAILABLE", undefined, { retryAfterMs: 0 })).headers).toEqual({ "Retry-After": "1" });
    expect(answer(handler, new AuthError("SERVICE_UNAVAILABLE")).headers).toEqual({ "Retry-After": String(UNAVAILABLE_RETRY_AFTER_MS / 1000) });
    expect(answer(handler, new AuthError("INTERNAL_SERVER_ERROR")).headers).toBeUndefined();
    expect([1, 999, 1000, 1001].map(retryAfterSeconds)).toEqual([1, 1, 1, 2]);
  });

  it("answers an error's fields beside its code and message, which they cannot replace", () => {
    const handler = errorHandler(recorder().log);
    const banned = new AuthError("BANNED_USER", undefined, { fields: { banExpires: "2027-03-03T10:00:00.000Z", code: "OTHER", message: "other" } });
    expect(answer(handler, banned)).toEqual({
      status: 403,
      body: { code: "BANNED_USER", message: "You have been banned from this application", banExpires: "2027-03-03T10:00:00.000Z" },
    });
    expect(answer(handler, new AuthError("INVALID_EMAIL_OR_PASSWORD")).body).toEqual({ code: "INVALID_EMAIL_OR_PASSWORD", message: "Invalid email or password" });
  });
});
