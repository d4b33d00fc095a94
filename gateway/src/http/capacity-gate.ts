/**
 * The capacity gate: a request for a route that waits on a peer's capacity (RouteSpec.capacity: identity's
 * password hashing) waits for an opening at that peer here, right after the rate limit and before its body
 * is read, parsed and checked, or is refused here (503 with Retry-After) when none comes within the hold
 * (proto/src/rpc-client.ts: CapacityMemory, HOLD_MAX_MS). Beyond capacity most requests are refused, and
 * each one refused here costs a fraction of one refused by the route's own call: under a storm of clients
 * retrying every 503 at once, that CPU is the hashing's (docs/adr/0025-sign-in-beyond-capacity.md).
 *
 * The gate decides before it has read anything the request says, so a known and an unknown account are
 * held and refused alike. The opening it takes goes with the request (RequestContext.admitted): the
 * route's call then goes at once rather than waiting again. A request the chain refuses after the gate
 * (a bad body, an untrusted origin) leaves its opening unused; the peer's next one comes a hint later.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { capacityWait, DEFAULT_DEADLINE_MS, rpcPathOf } from "@auth-platform/proto/rpc-client";
import { currentRequestContext } from "@auth-platform/runtime/request-context";
import { comparedPath, LITERAL_PATH, type Route } from "./define-route.js";

export function capacityGate(routes: readonly Route[]): RequestHandler {
  const gated = new Map<string, { client: NonNullable<Route["spec"]["capacity"]>["client"]; path: string }>();
  for (const { spec } of routes) {
    if (!spec.capacity) continue;
    // The router's own lookup of literal paths (define-route.ts): a gated path is one the gate can name.
    if (!LITERAL_PATH.test(spec.path)) throw new Error(`${spec.path}: only a route with a literal path can wait on capacity`);
    gated.set(`${spec.method.toUpperCase()} ${comparedPath(spec.path)}`, { client: spec.capacity.client, path: rpcPathOf(spec.capacity.method) });
  }
  return (req: Request, _res: Response, next: NextFunction) => {
    const capacity = gated.get(`${req.method} ${comparedPath(req.path)}`);
    const context = capacity && currentRequestContext();
    if (!capacity || !context) {
      next();
      return;
    }
    const { path } = capacity;
    const waiting = capacityWait(capacity.client, path, Date.now() + DEFAULT_DEADLINE_MS, context.signal);
    if (!waiting) {
      context.admitted = path;
      next();
      return;
    }
    waiting.then(() => {
      context.admitted = path;
      next();
    }, next);
  };
}
