/**
 * The commonest request a signed-in app makes, a get-session this gateway holds in its own memory, answered
 * in front of express, whose routing and middleware chain otherwise cost more than the lookup itself
 * (docs/adr/0086-warm-get-session-before-the-chain.md). The answer is the route's (routes/sessions.ts), with
 * the headers the chain sets, counted by the same rate limit and metrics.
 *
 * Taken only when nothing else in the chain has a say: GET of exactly <base path>/get-session (no query, no
 * trailing slash, the base path as configured), no Origin header (CORS is cors.ts's), tracing off, no JWT
 * header to add, and a session held under the memory's lease (session-memory.ts: never one revoked).
 * Anything else, and a request the rate limit refuses, goes to express unchanged: its own limiter counts
 * the refused request again (the window is already spent) and its error handlers answer it.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { metricsEnabled, recordHttpRequest } from "@auth-platform/runtime/metrics";
import { tracingActive } from "@auth-platform/runtime/tracing";
import { requestIdOf } from "./context.js";
import { varyByOrigin } from "./cors.js";
import type { RateLimitCheck } from "./rate-limit.js";
import type { SessionResolver } from "./session.js";

/** The route as metrics and the rate limit name it (below the base path). */
const ROUTE = "/get-session";

export interface WarmSessionOptions {
  /** The configured base path (GatewayConfig.basePath: "/api/auth", or "/"). */
  basePath: string;
  sessions: Pick<SessionResolver, "heldAnswer">;
  /** Sets the headers of every answer (security-headers.ts). */
  apiHeaders: (res: Pick<ServerResponse, "setHeader">) => void;
  /** The rate limit's check and the request's client key, when rate limiting is on. */
  rateLimit?: { check: RateLimitCheck; clientKeyOf: (req: IncomingMessage) => string | undefined };
  /** GATEWAY_SESSION_JWT_HEADER: the answer then carries a JWT, which the route signs. */
  sessionJwtHeader: boolean;
}

/** The server's request listener: a warm get-session answered here, every other request handed to `chain` (the express app). */
export function warmGetSession(options: WarmSessionOptions, chain: RequestListener): RequestListener {
  const { sessions, rateLimit } = options;
  const path = options.basePath === "/" ? ROUTE : `${options.basePath}${ROUTE}`;

  const answer = (req: IncomingMessage, res: ServerResponse, body: string, started: number | undefined) => {
    options.apiHeaders(res);
    varyByOrigin(res);
    res.setHeader("X-Request-Id", requestIdOf(req));
    res.statusCode = 200;
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    res.setHeader("Content-Length", Buffer.byteLength(body));
    res.end(body);
    if (started !== undefined) recordHttpRequest("GET", ROUTE, 200, (performance.now() - started) / 1000);
  };

  return (req, res) => {
    if (req.method !== "GET" || req.url !== path || req.headers.origin !== undefined || options.sessionJwtHeader || tracingActive()) {
      chain(req, res);
      return;
    }
    const body = sessions.heldAnswer(req);
    if (body === undefined) {
      chain(req, res);
      return;
    }
    const started = metricsEnabled() ? performance.now() : undefined;
    const client = rateLimit?.clientKeyOf(req);
    if (!rateLimit || !client) {
      answer(req, res, body, started);
      return;
    }
    rateLimit.check(client, ROUTE, res).then(
      (refusal) => (refusal ? chain(req, res) : answer(req, res, body, started)),
      () => chain(req, res),
    );
  };
}
