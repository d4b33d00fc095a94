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
  type Gate = { client: NonNullable<Route["spec"]["capacity"]>["client"]; path: string };
  // By method, then by path as the router compares it (define-route.ts): most requests skip at the method.
  const gated = new Map<string, Map<string, Gate>>();
  for (const { spec } of routes) {
    if (!spec.capacity) continue;
    if (!LITERAL_PATH.test(spec.path)) throw new Error(`${spec.path}: only a route with a literal path can wait on capacity`);
    const method = spec.method.toUpperCase();
    const paths = gated.get(method) ?? new Map<string, Gate>();
    paths.set(comparedPath(spec.path), { client: spec.capacity.client, path: rpcPathOf(spec.capacity.method) });
    gated.set(method, paths);
  }
  return (req: Request, _res: Response, next: NextFunction) => {
    const gate = gated.get(req.method)?.get(comparedPath(req.path));
    const context = gate && currentRequestContext();
    if (!gate || !context) {
      next();
      return;
    }
    const admitted = () => {
      context.admitted = gate.path;
      next();
    };
    const waiting = capacityWait(gate.client, gate.path, Date.now() + DEFAULT_DEADLINE_MS, context.signal);
    if (waiting) waiting.then(admitted, next);
    else admitted();
  };
}
