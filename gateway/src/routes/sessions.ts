/** get-session, list-sessions, the revoke calls and sign-out. */
import * as z from "zod";
import { AuthError } from "@auth-platform/proto/errors";
import { call } from "@auth-platform/runtime/rpc";
import { queryBool } from "../http/body.js";
import { callerOf } from "../http/caller.js";
import { clearSessionCookies, hasDontRemember, setSessionCookie } from "../http/cookies.js";
import { defineRoute, type Route } from "../http/define-route.js";
import { sessionSchema, sessionWithUserSchema, statusSchema, successSchema } from "../http/public-schemas.js";
import { publicSession } from "../http/public-shapes.js";
import type { RouteDeps } from "./deps.js";
import { setAuthJwt } from "./jwt.js";
import { sessionResponse } from "./responses.js";

export const getSessionQuery = z.looseObject({ disableCookieCache: queryBool, disableRefresh: queryBool });
export const revokeSessionBody = z.object({ token: z.string().min(1).max(256) });

export function sessionRoutes(deps: RouteDeps): Route[] {
  const routes: Route[] = [];
  const sessions = deps.clients.sessions;

  // GET for the 1.1 client; the current client also POSTs it when its session atom refreshes. A GET whose
  // session the gateway holds is answered before the chain, with this answer (http/warm-session.ts).
  for (const method of ["get", "post"] as const) {
    routes.push(
      defineRoute(
        {
          method,
          path: "/get-session",
          tag: "Sessions",
          summary: "The caller's session and user (null when signed out)",
          query: getSessionQuery,
          response: sessionWithUserSchema.nullable(),
        },
        async ({ req, res, query, json }) => {
          const found = await deps.sessions.current(req, { disableRefresh: query.disableRefresh });
          if (!found) {
            if (deps.sessions.tokenOf(req) !== null || req.headers.cookie?.includes(deps.jar.sessionName)) clearSessionCookies(res, deps.jar);
            json(null);
            return;
          }
          if (found.refreshed) {
            const dontRemember = hasDontRemember(req, deps.jar, deps.secret);
            setSessionCookie(
              res,
              deps.jar,
              deps.secret,
              found.session.token,
              { expiresAt: new Date(found.session.expiresAt), updatedAt: new Date(found.session.updatedAt) },
              dontRemember,
            );
          }
          if (deps.sessionJwtHeader) await setAuthJwt(req, res, deps, found);
          json(sessionResponse(found.session, found.user));
        },
      ),
    );
  }

  // Each call names the caller's session: the session service decides what it may see and end (an
  // impersonation session sees handles, not tokens, and ends no session but itself).
  routes.push(
    defineRoute(
      { method: "get", path: "/list-sessions", tag: "Sessions", summary: "The caller's sessions", session: "required", response: z.array(sessionSchema) },
      async ({ req, session: current, json }) => {
        const list = await call(sessions, sessions.listSessions, { userId: current.user.id, includeImpersonated: false, caller: callerOf(req, current) });
        json(list.sessions.map(publicSession));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/revoke-session",
        tag: "Sessions",
        summary: "Revoke one of the caller's sessions",
        session: "required",
        body: revokeSessionBody,
        response: statusSchema,
        errors: ["SESSION_NOT_FOUND", "YOU_CANNOT_REVOKE_SESSIONS_WHILE_IMPERSONATING"],
      },
      async ({ req, body, session: current, json }) => {
        await deps.events.reported(req, current, "session.revoke-own", () =>
          call(sessions, sessions.revokeSession, { token: body.token, userId: current.user.id, caller: callerOf(req, current) }),
        );
        json({ status: true });
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/revoke-sessions",
        tag: "Sessions",
        summary: "Revoke all the caller's sessions",
        session: "required",
        response: statusSchema,
        errors: ["YOU_CANNOT_REVOKE_SESSIONS_WHILE_IMPERSONATING"],
      },
      async ({ req, res, session: current, json }) => {
        await deps.events.reported(req, current, "session.revoke-own-all", () =>
          call(sessions, sessions.revokeUserSessions, { userId: current.user.id, caller: callerOf(req, current) }),
        );
        clearSessionCookies(res, deps.jar);
        json({ status: true });
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/revoke-other-sessions",
        tag: "Sessions",
        summary: "Revoke the caller's other sessions",
        session: "required",
        response: statusSchema,
        errors: ["YOU_CANNOT_REVOKE_SESSIONS_WHILE_IMPERSONATING"],
      },
      async ({ req, session: current, json }) => {
        await deps.events.reported(req, current, "session.revoke-own-others", () => call(sessions, sessions.revokeOtherSessions, { caller: callerOf(req, current) }));
        json({ status: true });
      },
    ),
  );

  routes.push(
    defineRoute({ method: "post", path: "/sign-out", tag: "Sessions", summary: "Sign out", response: successSchema }, async ({ req, res, json }) => {
      // The cookies go whatever happens next: even a failed revoke leaves this browser signed out.
      clearSessionCookies(res, deps.jar);
      const token = deps.sessions.tokenOf(req);
      if (token) {
        try {
          await call(sessions, sessions.revokeSession, { token });
        } catch (error) {
          // Signing out of a session that is already gone is success; anything else is reported.
          if (!(error instanceof AuthError && error.code === "SESSION_NOT_FOUND")) throw error;
        }
      }
      json({ success: true });
    }),
  );
  return routes;
}
