/**
 * Every request under the base path: one trace span (tracing.ts; a no-op unless tracing is configured)
 * and the RED metrics of its route, labelled with the matched route's template (/sign-in/email, never
 * the raw path, so a scan of random paths cannot grow the label set). A request answered before routing
 * (a rate-limited or malformed one) or by no route is labelled "unmatched".
 */
import type { NextFunction, Request, Response } from "express";
import { metricsEnabled, recordHttpRequest } from "@auth-platform/runtime/metrics";
import { startHttpSpan, tracingActive } from "@auth-platform/runtime/tracing";

declare module "express-serve-static-core" {
  interface Locals {
    /** The request's trace id when tracing is on (it becomes the request id). */
    traceId?: string;
  }
}

export const UNMATCHED_ROUTE = "unmatched";

/** The matched route's template (/reset-password/:token), never the raw path, which may hold a mailed token. */
export const routeOf = (req: Request): string => {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === "string" ? path : UNMATCHED_ROUTE;
};

export function observeRequests(req: Request, res: Response, next: NextFunction): void {
  // A process that neither serves metrics nor traces has no reader for either: nothing to time or listen for.
  if (!metricsEnabled() && !tracingActive()) {
    next();
    return;
  }
  const started = performance.now();
  const span = startHttpSpan(req.method, req.headers);
  res.locals.traceId = span.traceId;
  // Node emits "close" once per response, after "finish" or when the connection goes first.
  res.on("close", () => {
    const route = routeOf(req);
    span.end(route, res.statusCode);
    recordHttpRequest(req.method, route, res.statusCode, (performance.now() - started) / 1000);
  });
  span.run(next);
}
