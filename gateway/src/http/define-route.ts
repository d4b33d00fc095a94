/**
 * defineRoute: a route of the HTTP API declared once. The declaration names the method and path, the zod
 * schemas of the body, the query and the JSON answer, the catalogue errors the route answers, a summary
 * and a tag; the handler gets the parsed body and query and answers through a `json` typed by the response
 * schema. mountRoutes registers the routes on an express router; the same declarations are the registry
 * the OpenAPI document is built from (http/openapi.ts), so no second list of routes exists.
 */
import { type Request, type RequestHandler, type Response, Router } from "express";
import type * as z from "zod";
import type { ErrorCode } from "@auth-platform/proto/errors";
import type { capacityWait, rpcPathOf } from "@auth-platform/proto/rpc-client";
import { parseBody, parseQuery } from "./body.js";
import type { CurrentSession, SessionResolver } from "./session.js";

export type Tag =
  | "Account"
  | "Sessions"
  | "Two-factor"
  | "Passkeys"
  | "API keys"
  | "Organizations"
  | "Admin"
  | "Social sign-in"
  | "Mail sign-in"
  | "Single sign-on"
  | "Meta"
  | "Development";

/**
 * How a route needs the caller's session (each is documented as needing one: 401 without it).
 * "required": resolved before the body and query are parsed and handed to the handler as `session`.
 * "checked-by-route": the handler checks it in its own way (a failure answered as a redirect).
 */
export type SessionUse = "required" | "checked-by-route";

type Schema = z.ZodType | undefined;

export interface RouteSpec<B extends Schema = Schema, Q extends Schema = Schema, R extends Schema = Schema, S extends SessionUse | undefined = SessionUse | undefined> {
  /** put, patch and delete serve the SCIM protocol alone (RFC 7644); every other route is get or post. */
  method: "get" | "post" | "put" | "patch" | "delete";
  /** The express path under the base path (`:name` for a path parameter). */
  path: string;
  tag: Tag;
  summary: string;
  body?: B;
  query?: Q;
  /** A query the handler reads and checks itself (a bad one is answered as a redirect, not 400): documented, not parsed here. */
  queryCheckedByRoute?: z.ZodType;
  /** The JSON answered with 200. */
  response?: R;
  /** Answers a redirect (302 with a Location): to the callback URL, errors as ?error=code. */
  redirect?: true;
  /** Answers an HTML page (200). */
  html?: true;
  /** Answers an XML document of this media type (200). */
  xml?: string;
  /** The catalogue errors the route answers beyond those every route may answer (COMMON_ERRORS in openapi.ts). */
  errors?: readonly ErrorCode[];
  session?: S;
  /**
   * Answers SCIM documents (application/scim+json) with these success statuses, and SCIM error bodies
   * (RFC 7644 §3.12) besides the gateway's own errors: the handler writes the answer (routes/scim.ts).
   */
  scim?: { statuses: number[] };
  /** Served only with AUTH_DEV_MAILBOX (development). */
  devOnly?: true;
  /** Express handlers run before the route's own (a form body parser). */
  before?: RequestHandler[];
  /**
   * The call whose peer's capacity the route waits on (identity's password hashing): a request waits for
   * an opening, or is refused, before its body is read (capacity-gate.ts).
   */
  capacity?: { client: Parameters<typeof capacityWait>[0]; method: Parameters<typeof rpcPathOf>[0] };
}

type Parsed<T extends Schema> = T extends z.ZodType ? z.output<T> : undefined;

export interface RouteContext<B extends Schema, Q extends Schema, R extends Schema, S extends SessionUse | undefined> {
  req: Request;
  res: Response;
  body: Parsed<B>;
  query: Parsed<Q>;
  /** The caller's session, when the route declares session: "required". */
  session: S extends "required" ? CurrentSession : undefined;
  /** Answers the JSON the route declares (its response schema's input type). */
  json: (body: R extends z.ZodType ? z.input<R> : never) => void;
}

/** A declared route: its declaration (the OpenAPI registry reads it) and its express handler. */
export interface Route {
  spec: RouteSpec;
  handle: (req: Request, res: Response, sessions: SessionResolver) => Promise<void>;
}

export function defineRoute<B extends Schema = undefined, Q extends Schema = undefined, R extends Schema = undefined, S extends SessionUse | undefined = undefined>(
  spec: RouteSpec<B, Q, R, S>,
  handler: (context: RouteContext<B, Q, R, S>) => void | Promise<void>,
): Route {
  return {
    spec,
    async handle(req, res, sessions) {
      // The caller first, then the input: a request without a session is 401 whatever its body.
      const session = spec.session === "required" ? await sessions.require(req) : undefined;
      const body = spec.body ? parseBody(req, spec.body) : undefined;
      const query = spec.query ? parseQuery(req, spec.query) : undefined;
      await handler({
        req,
        res,
        body: body as Parsed<B>,
        query: query as Parsed<Q>,
        session: session as RouteContext<B, Q, R, S>["session"],
        // Bound, not a closure: no function made and named per request (the build keeps names).
        json: res.json.bind(res),
      });
    },
  };
}

/** A path with no parameter, wildcard, optional part or escape: the router matches it as a literal. */
export const LITERAL_PATH = /^\/[A-Za-z0-9._~/-]*$/;

/** A path as the router compares it: in any case, with or without one trailing slash. */
export const comparedPath = (path: string): string => {
  const lower = path.toLowerCase();
  return lower.endsWith("/") ? lower.slice(0, -1) : lower;
};

/**
 * A middleware serving the routes in their order. An express router tries each route's pattern in turn; a
 * request for a literal path is looked up by method and path instead (docs/adr/0057-gateway-hot-path.md).
 * A route takes that shortcut only when no route before it matches its path, so the route served is the
 * one the router would pick, and the router sets up the request the same way: req.route (its template is
 * the metrics label), empty req.params, and a rejected handler passed on to the error handlers.
 */
export function mountRoutes(routes: readonly Route[], sessions: SessionResolver): RequestHandler {
  const router = Router();
  const literal: Record<string, Map<string, { route: Route; template: unknown }>> = {
    GET: new Map(),
    HEAD: new Map(),
    POST: new Map(),
    PUT: new Map(),
    PATCH: new Map(),
    DELETE: new Map(),
  };
  routes.forEach((route, index) => {
    const { method, path, before } = route.spec;
    router[method](path, ...(before ?? []), (req, res) => route.handle(req, res, sessions));
    if (before || !LITERAL_PATH.test(path)) return;
    const layers = router.stack as unknown as Array<{ match(path: string): unknown; route: unknown }>;
    const shadowed = routes.slice(0, index).some((earlier, i) => earlier.spec.method === method && layers[i]!.match(path));
    if (shadowed) return;
    const entry = { route, template: layers[index]!.route };
    // The router answers HEAD with the GET route.
    for (const name of method === "get" ? ["GET", "HEAD"] : [method.toUpperCase()]) literal[name]!.set(comparedPath(path), entry);
  });
  const serve: RequestHandler = (req, res, next) => {
    const found = literal[req.method]?.get(comparedPath(req.path));
    if (!found) {
      router(req, res, next);
      return;
    }
    req.route = found.template;
    req.params = {};
    found.route.handle(req, res, sessions).then(undefined, (error: unknown) => next(error ?? new Error("Rejected promise")));
  };
  // The router's layers where a mounted router shows them, so whoever walks the app's routes (the OpenAPI test) still finds them.
  return Object.assign(serve, { stack: router.stack });
}
