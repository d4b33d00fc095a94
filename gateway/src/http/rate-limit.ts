/**
 * Rate limits (docs/http-api.md#rate-limits): a fixed window per client IP plus path, the longest configured path prefix
 * choosing the rule. Counters live where RATE_LIMIT_STORAGE says: in Redis or in PostgreSQL (one atomic
 * round trip per hit either way, so all gateway replicas share one exact count), or in process memory. If
 * the counter store is down the limiter fails open and logs: an outage of the counter store must not take
 * sign-in down; the services' own checks still apply.
 */
import type { ServerResponse } from "node:http";
import { createHash } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import { AuthError } from "@auth-platform/proto/errors";
import { createMemoryKeyValue, type KeyValue } from "@auth-platform/runtime/key-value";
import type { Logger } from "@auth-platform/runtime/log";
import { authEvents } from "@auth-platform/runtime/metrics";
import type { RateLimitRule, RateLimitStorage } from "../config.js";

/** Where the counters live: a key-value store (Redis, memory) or the database (rate-limit-database.ts). */
export type RateLimitCounters = Pick<KeyValue, "hit" | "ready" | "close">;
import { retryAfterSeconds } from "./errors.js";

export interface RateLimitOptions {
  enabled: boolean;
  default: RateLimitRule;
  rules: Record<string, RateLimitRule>;
}

/**
 * The path as routing sees it: express matches routes case-insensitively and with an optional trailing
 * slash, so /SIGN-IN/email/ reaches the sign-in handler and must share its rule and its counter.
 */
function routedPath(path: string): string {
  return path.toLowerCase().replace(/\/+$/, "") || "/";
}

/**
 * The counter's key. The path is named by its hash: a path can hold a secret (the reset landing
 * /reset-password/<token>), and the counters (Redis, the database) are no place to keep one, even for a window.
 */
export function counterKey(client: string, path: string): string {
  return `rate:${client}|${createHash("sha256").update(path).digest("base64url")}`;
}

export function ruleFor(path: string, options: RateLimitOptions): RateLimitRule {
  const prefix = rulePrefix(path, options);
  return prefix ? options.rules[prefix]! : options.default;
}

/** The configured path prefix whose rule applies, or undefined for the default rule. */
function rulePrefix(path: string, options: RateLimitOptions): string | undefined {
  const routed = routedPath(path);
  let best: string | undefined;
  for (const prefix of Object.keys(options.rules)) {
    if (routed.startsWith(prefix.toLowerCase()) && (!best || prefix.length > best.length)) best = prefix;
  }
  return best;
}

/**
 * The counters RATE_LIMIT_STORAGE names. Redis, and memory without Redis, are the process's key-value store
 * (`keyValue`, which the caller closes); memory beside Redis and the database are stores of their own.
 */
export async function openRateLimitCounters(storage: RateLimitStorage, databaseUrl: string | undefined, keyValue: KeyValue, log: Logger): Promise<RateLimitCounters> {
  if (storage === "database") {
    // Loaded only here: pg stays out of a gateway that keeps its counters elsewhere.
    const { openDatabaseCounters } = await import("./rate-limit-database.js");
    return openDatabaseCounters({ url: databaseUrl!, log });
  }
  return storage === keyValue.kind ? keyValue : createMemoryKeyValue();
}

/** Counts one request of a client on a path; resolves to the refusal to answer (X-Retry-After set on res), or undefined to go on. */
export type RateLimitCheck = (client: string, path: string, res: Pick<ServerResponse, "setHeader">) => Promise<AuthError | undefined>;

export function rateLimitCheck(options: RateLimitOptions, counters: RateLimitCounters, log: Logger): RateLimitCheck {
  return async (client, rawPath, res) => {
    const path = routedPath(rawPath);
    const rule = ruleFor(path, options);
    let hit: { count: number; resetMs: number };
    try {
      hit = await counters.hit(counterKey(client, path), rule.window * 1000);
    } catch (error) {
      log.warn("rate limit store unavailable; request allowed", { error });
      return undefined;
    }
    if (hit.count <= rule.max) return undefined;
    // Labelled by rule, never by path: a scan of random paths must not grow the label set.
    authEvents.rateLimited(rulePrefix(path, options) ?? "default");
    // better-auth's X-Retry-After, and the standard Retry-After the error handler writes from retryAfterMs
    // (the same whole seconds, at least 1): a client reads either.
    res.setHeader("X-Retry-After", String(retryAfterSeconds(hit.resetMs)));
    return new AuthError("TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER", undefined, { retryAfterMs: hit.resetMs });
  };
}

export function rateLimit(options: RateLimitOptions, counters: RateLimitCounters, keyOf: (req: Request) => string | undefined, log: Logger) {
  const check = rateLimitCheck(options, counters, log);
  return async (req: Request, res: Response, next: NextFunction) => {
    if (!options.enabled) return next();
    const client = keyOf(req);
    if (!client) return next();
    next(await check(client, req.path, res));
  };
}
