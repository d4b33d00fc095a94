/**
 * The commonest request a signed-in app makes, a get-session this gateway holds in its own memory, answered
 * before the middleware chain and routing, which otherwise cost more than the lookup itself
 * (docs/adr/0086-warm-get-session-before-the-chain.md). The answer is the route's (routes/sessions.ts), with
 * the headers the chain sets, counted by the same rate limit and metrics.
 *
 * Taken only when nothing else in the chain has a say: GET of exactly /get-session (no query, no trailing
 * slash), no Origin header (CORS is cors.ts's), tracing off, no JWT header to add, and a session held under
 * the memory's lease (session-memory.ts: never one revoked). Anything else goes down the chain unchanged.
 */
import type { NextFunction, Request, Response } from "express";
import { metricsEnabled, recordHttpRequest } from "@auth-platform/runtime/metrics";
import { tracingActive } from "@auth-platform/runtime/tracing";
import { routeOf } from "./observe.js";
import { requestIdOf } from "./context.js";
import { varyByOrigin } from "./cors.js";
import type { RateLimitCheck } from "./rate-limit.js";
import type { SessionResolver } from "./session.js";
import { sessionResponse } from "../routes/responses.js";

const PATH = "/get-session";

export interface WarmSessionOptions {
  sessions: SessionResolver;
  /** Sets the headers of every answer (security-headers.ts). */
  apiHeaders: (res: Response) => void;
  /** The rate limit's check and the request's client key, when rate limiting is on. */
  rateLimit?: { check: RateLimitCheck; clientKeyOf: (req: Request) => string | undefined };
  /** GATEWAY_SESSION_JWT_HEADER: the answer then carries a JWT, which the route signs. */
  sessionJwtHeader: boolean;
}

export function warmGetSession(options: WarmSessionOptions) {
  const { sessions, rateLimit } = options;

  const answer = (res: Response, body: string, started: number | undefined) => {
    res.statusCode = 200;
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    res.setHeader("Content-Length", Buffer.byteLength(body));
    res.end(body);
    if (started !== undefined) recordHttpRequest("GET", PATH, 200, (performance.now() - started) / 1000);
  };

  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method !== "GET" || req.url !== PATH || req.headers.origin !== undefined || options.sessionJwtHeader || tracingActive()) {
      next();
      return;
    }
    const held = sessions.held(req);
    if (!held) {
      next();
      return;
    }
    const started = metricsEnabled() ? performance.now() : undefined;
    options.apiHeaders(res);
    varyByOrigin(res);
    res.setHeader("X-Request-Id", requestIdOf(req));
    const body = JSON.stringify(sessionResponse(held.session, held.user));
    const client = rateLimit?.clientKeyOf(req);
    if (!rateLimit || !client) {
      answer(res, body, started);
      return;
    }
    rateLimit.check(client, PATH, res).then((refusal) => {
      if (!refusal) return answer(res, body, started);
      // Refused: the error handlers answer it, as they do the chain's refusals (labelled as unmatched there too).
      if (started !== undefined) res.on("close", () => recordHttpRequest("GET", routeOf(req), res.statusCode, (performance.now() - started) / 1000));
      next(refusal);
    }, next);
  };
}
