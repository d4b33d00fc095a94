/** What the route modules share. */
import type { Request, Response } from "express";
import type { Session } from "@auth-platform/proto/gen/auth/session/v1/session";
import type { Logger } from "@auth-platform/runtime/log";
import type { Clients } from "../clients.js";
import { type CookieJar, clearDontRemember, setSessionCookie } from "../http/cookies.js";
import type { SecurityEventReporter } from "../http/security-events.js";
import type { SessionResolver } from "../http/session.js";
import { sign } from "../http/cookies.js";

export interface RouteDeps {
  clients: Clients;
  sessions: SessionResolver;
  jar: CookieJar;
  secret: string;
  appUrl?: string;
  log: Logger;
  /** Security events for the audit log (fire-and-forget). */
  events: SecurityEventReporter;
  /** get-session adds a session JWT in `set-auth-jwt` (GATEWAY_SESSION_JWT_HEADER). */
  sessionJwtHeader?: boolean;
}

export function clientOf(req: Request) {
  return { ipAddress: req.facts.ipAddress, userAgent: req.facts.userAgent };
}

/** A session as the service answers it (Dates) or as the gateway resolved it (its public JSON). */
type IssuedSession = Pick<Session, "token"> & Partial<Record<"expiresAt" | "updatedAt" | "createdAt", Date | string>>;

/** Sets the session cookie and the set-auth-token header (for bearer clients) for a new session. */
export function issueSession(res: Response, deps: RouteDeps, session: IssuedSession, rememberMe: boolean): void {
  const expiresAt = new Date(session.expiresAt ?? Date.now());
  const updatedAt = new Date(session.updatedAt ?? session.createdAt ?? expiresAt);
  setSessionCookie(res, deps.jar, deps.secret, session.token, { expiresAt, updatedAt }, !rememberMe);
  // A remembered sign-in drops a dont-remember marker left by an earlier session on this browser.
  if (rememberMe) clearDontRemember(res, deps.jar);
  res.setHeader("set-auth-token", sign(session.token, deps.secret));
}
