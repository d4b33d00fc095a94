/**
 * GET /token (a short-lived JWT for the caller's session) and GET /jwks (the keys that verify it). The session
 * service signs and keeps the keys (docs/adr/0076-session-jwts-signed-by-the-session-service.md).
 */
import type { Request, Response } from "express";
import { call } from "@auth-platform/runtime/rpc";
import type { CurrentSession } from "../http/session.js";
import { callerOf } from "../http/caller.js";
import { defineRoute, type Route } from "../http/define-route.js";
import { jwksSchema, type publicJwkSchema, sessionJwtSchema } from "../http/public-schemas.js";
import type { RouteDeps } from "./deps.js";
import type * as z from "zod";

export function jwtRoutes(deps: RouteDeps): Route[] {
  const sessions = deps.clients.sessions;
  return [
    defineRoute(
      {
        method: "get",
        path: "/token",
        tag: "Sessions",
        summary: "A short-lived JWT for the caller's session",
        session: "required",
        response: sessionJwtSchema,
      },
      async ({ req, session, json }) => {
        // The session service reads the session from its store: one revoked meanwhile gets 401.
        const { token } = await call(sessions, sessions.issueSessionToken, { caller: callerOf(req, session) });
        json({ token });
      },
    ),
    defineRoute({ method: "get", path: "/jwks", tag: "Sessions", summary: "The public keys that verify session JWTs", response: jwksSchema }, async ({ res, json }) => {
      const { keys, maxAgeSeconds } = await call(sessions, sessions.getJwks, {});
      // Public data, the same for everyone: verifiers and shared caches may keep it (the next key is
      // published at least this long before it signs).
      res.setHeader("Cache-Control", `public, max-age=${maxAgeSeconds}`);
      // The session service makes only the key types and algorithms the schema lists.
      json({ keys: keys.map((key) => key as z.input<typeof publicJwkSchema>) });
    }),
  ];
}

/**
 * get-session's `set-auth-jwt` header, as better-auth's jwt plugin sends it, when GATEWAY_SESSION_JWT_HEADER
 * is on: a signing call per get-session, which otherwise answers from memory. The session stands without
 * it: a failure to sign (the session revoked meanwhile, the session store out of reach) leaves it out.
 */
export async function setAuthJwt(req: Request, res: Response, deps: RouteDeps, found: CurrentSession): Promise<void> {
  const sessions = deps.clients.sessions;
  try {
    const { token } = await call(sessions, sessions.issueSessionToken, { caller: callerOf(req, found) });
    res.setHeader("set-auth-jwt", token);
  } catch (error) {
    deps.log.warn("get-session: no session JWT for set-auth-jwt", { code: (error as { code?: string }).code });
  }
}
