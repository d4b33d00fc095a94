/**
 * GET /token (a short-lived JWT for the caller's session) and GET /jwks (the keys that verify it). The session
 * service signs and keeps the keys (docs/adr/0076-session-jwts-signed-by-the-session-service.md).
 */
import { call } from "@auth-platform/runtime/rpc";
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
