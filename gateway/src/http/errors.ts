/**
 * The gateway's one error mapper: catalogue errors answer their HTTP status with { code, message } (and the
 * error's fields, e.g. BANNED_USER's banExpires); body
 * parser and URL decoding failures are 400s; anything else is logged with the request id and answered as a generic 500.
 * Every 503 answers the standard Retry-After header, in whole seconds, at least 1: the refusal's own hint
 * (identity's hashing queue at capacity, a service's database out of reach), else UNAVAILABLE_RETRY_AFTER_MS
 * (a service that cannot be reached, or a call that ran out of time: a database partitioned away).
 */
import type { NextFunction, Request, Response } from "express";
import { AuthError, type ErrorCode } from "@auth-platform/proto/errors";
import { describeError, type Logger } from "@auth-platform/runtime/log";
import { routeOf } from "./observe.js";

export function fromRequestParsing(error: { type?: string; status?: number; expose?: boolean }): AuthError | undefined {
  if (error.type === "entity.too.large") return new AuthError("REQUEST_BODY_TOO_LARGE");
  if (error.type === "entity.parse.failed") return new AuthError("VALIDATION_ERROR", "Malformed JSON body");
  if (error.type === "encoding.unsupported" || error.type === "charset.unsupported") {
    return new AuthError("VALIDATION_ERROR", "Unsupported body encoding");
  }
  // Other client errors of the body parser, typed or not (a corrupt gzip stream is an untyped, exposed 400).
  const clientError = typeof error.status === "number" && error.status >= 400 && error.status < 500;
  if (clientError && (error.type || error.expose)) return new AuthError("VALIDATION_ERROR", "Invalid request body");
  // The router could not decode a path parameter (a malformed percent-escape).
  if (error instanceof URIError) return new AuthError("VALIDATION_ERROR", "Malformed URL");
  return undefined;
}

/** At most one "service unavailable" line per this many ms; the ones in between are counted in the next. */
export const UNAVAILABLE_LOG_INTERVAL_MS = 10_000;

/**
 * Logs 503s at most once per interval, with how many were left out since the last line. A service at
 * capacity (identity's hashing queue) answers thousands of fast 503s a second under a flood; one log line
 * each took the CPU the hashing needed, and says nothing the count does not.
 */
function unavailableLog(log: Logger, now: () => number) {
  let lastAt = Number.NEGATIVE_INFINITY;
  let skipped = 0;
  return (path: string, cause: unknown) => {
    const at = now();
    if (at - lastAt < UNAVAILABLE_LOG_INTERVAL_MS) {
      skipped++;
      return;
    }
    log.warn("service unavailable", { path, error: cause, ...(skipped ? { sinceLastLine: skipped } : {}) });
    lastAt = at;
    skipped = 0;
  };
}

/**
 * Retry-After of a 503 that gave no hint of its own. About how long a replica takes to be replaced or a
 * dependency to answer again after a blip; the same as a service's hint for its database out of reach.
 */
export const UNAVAILABLE_RETRY_AFTER_MS = 5_000;

/** Retry-After is in whole seconds; 0 would invite an immediate retry, so at least 1. */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * 5xx answers that report the outcome of a check against something outside the platform rather than a
 * fault of the platform (docs/adr/0073-domains-screen-and-its-guards.md): logged as warnings, not errors.
 */
const OUTCOMES_NOT_FAULTS: ReadonlySet<ErrorCode> = new Set(["DOMAIN_VERIFICATION_FAILED"]);

export function errorHandler(log: Logger, now: () => number = Date.now) {
  const logUnavailable = unavailableLog(log, now);
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const known = error instanceof AuthError ? error : fromRequestParsing(error as { type?: string });
    if (known) {
      if (known.code === "SERVICE_UNAVAILABLE") {
        // The client hung up before its answer and the calls made for it were cancelled with it: nothing
        // was unavailable, and nobody would read the 503.
        if (res.destroyed) return;
        // The route's template, not req.path: /reset-password/{token} would write a live reset token to the log.
        logUnavailable(routeOf(req), known.cause);
      } else if (OUTCOMES_NOT_FAULTS.has(known.code)) {
        // A check against the outside world that did not pass (a domain's TXT record not found, its DNS
        // down): the admin's to fix, not ours, so a warning naming what was checked (fields: domain, reason).
        log.warn(known.code.toLowerCase().replaceAll("_", " "), { path: routeOf(req), ...known.fields });
      } else if (known.http >= 500) {
        // A 500 from the catalogue (often a broken gRPC call) is logged too, so no 500 goes unexplained.
        log.error("internal error", { path: routeOf(req), code: known.code, error: known.cause ?? known.message });
      }
      const retryAfterMs = known.retryAfterMs ?? (known.code === "SERVICE_UNAVAILABLE" ? UNAVAILABLE_RETRY_AFTER_MS : undefined);
      if (retryAfterMs !== undefined) res.setHeader("Retry-After", String(retryAfterSeconds(retryAfterMs)));
      // The error's own fields (BANNED_USER's banExpires) never replace its code and message.
      res.status(known.http).json({ ...known.fields, code: known.code, message: known.message });
      return;
    }
    log.error("unexpected error", { path: routeOf(req), error: describeError(error) });
    res.status(500).json({ code: "INTERNAL_SERVER_ERROR", message: "Internal server error" });
  };
}
