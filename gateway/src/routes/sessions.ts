/** get-session, list-sessions, the revoke calls and sign-out. */
import { type RequestHandler, Router } from "express";
import * as z from "zod";
import { AuthError } from "@auth-platform/proto/errors";
import { call } from "@auth-platform/runtime/rpc";
import { parseBody, parseQuery, queryBool } from "../http/body.js";
import { clearSessionCookies, hasDontRemember, setSessionCookie } from "../http/cookies.js";
import { publicSession } from "../http/public-shapes.js";
import type { RouteDeps } from "./deps.js";
import { sessionResponse } from "./responses.js";

export const getSessionQuery = z.looseObject({ disableCookieCache: queryBool, disableRefresh: queryBool });
export const revokeSessionBody = z.object({ token: z.string().min(1).max(256) });

export function sessionRoutes(deps: RouteDeps): Router {
  const router = Router();
  const sessions = deps.clients.sessions;

  // GET for the 1.1 client; the current client also POSTs it when its session atom refreshes.
  const getSession: RequestHandler = async (req, res) => {
    const query = parseQuery(req, getSessionQuery);
    const found = await deps.sessions.current(req, { disableRefresh: query.disableRefresh });
    if (!found) {
      if (deps.sessions.tokenOf(req) !== null || req.headers.cookie?.includes(deps.jar.sessionName)) clearSessionCookies(res, deps.jar);
      res.json(null);
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
    res.json(sessionResponse(found.session, found.user));
  };
  router.get("/get-session", getSession);
  router.post("/get-session", getSession);

  // Each call names the caller's session: the session service decides what it may see and end (an
  // impersonation session sees handles, not tokens, and ends no session but itself).
  router.get("/list-sessions", async (req, res) => {
    const { user, session } = await deps.sessions.require(req);
    const list = await call(sessions, sessions.listSessions, { userId: user.id, includeImpersonated: false, callerToken: session.token });
    res.json(list.sessions.map(publicSession));
  });

  router.post("/revoke-session", async (req, res) => {
    const current = await deps.sessions.require(req);
    const body = parseBody(req, revokeSessionBody);
    await deps.events.reported(req, current, "session.revoke-own", () =>
      call(sessions, sessions.revokeSession, { token: body.token, userId: current.user.id, callerToken: current.session.token }),
    );
    res.json({ status: true });
  });

  router.post("/revoke-sessions", async (req, res) => {
    const current = await deps.sessions.require(req);
    await deps.events.reported(req, current, "session.revoke-own-all", () =>
      call(sessions, sessions.revokeUserSessions, { userId: current.user.id, callerToken: current.session.token }),
    );
    clearSessionCookies(res, deps.jar);
    res.json({ status: true });
  });

  router.post("/revoke-other-sessions", async (req, res) => {
    const current = await deps.sessions.require(req);
    await deps.events.reported(req, current, "session.revoke-own-others", () =>
      call(sessions, sessions.revokeOtherSessions, { userId: current.user.id, keepToken: current.session.token }),
    );
    res.json({ status: true });
  });

  router.post("/sign-out", async (req, res) => {
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
    res.json({ success: true });
  });
  return router;
}
