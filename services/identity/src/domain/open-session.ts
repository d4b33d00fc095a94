/**
 * Opening a session for a user who proved who they are. The user's pending session outbox row goes first (a
 * revocation queued by a reset or a ban during an outage must not end the session opened after it), then the
 * session, then the checks for the writes that may have raced with it, then the note of the sign-in the admin
 * area lists (docs/adr/0054-last-sign-in-and-audit-names.md).
 */
import type { Session } from "@auth-platform/proto/gen/auth/session/v1/session";
import { AuthError, type ErrorCode, PeerError } from "@auth-platform/proto/errors";
import type { UserRecord } from "../store/identity-store.js";
import { bannedUser, banHolds } from "./bans.js";
import type { Authentication, ClientInfo, Registry } from "./ports.js";
import { flushSessionOutbox } from "./session-outbox.js";

type Deps = Pick<Registry, "store" | "sessions" | "organizations" | "now" | "log">;

export interface OpenSessionOptions {
  rememberMe: boolean;
  client: ClientInfo;
  /** How the user proved who they are (recorded on the session), or the session a rotation replaces. */
  authentication: Authentication | { rotates: string };
  /**
   * Set by a sign-in that proved who the user is: its own refusal for a user gone meanwhile, and a user banned
   * meanwhile is told the ban (BANNED_USER). Unset, both are FAILED_TO_CREATE_SESSION.
   */
  refusal?: ErrorCode;
}

export async function openSession(deps: Deps, user: UserRecord, options: OpenSessionOptions): Promise<Session> {
  await flushSessionOutbox(deps, user.id);
  let session: Session;
  try {
    session = await deps.sessions.createSession(user, { rememberMe: options.rememberMe, client: options.client, authentication: options.authentication });
  } catch (error) {
    // The session service refuses a user it holds a banned copy of: a ban stored since the caller read the
    // user (the ban's delivery hands the copy over before it ends the sessions). With the ban stored here
    // too, that is this sign-in's refusal, not a failure; any other failure stays unexpected.
    if (error instanceof PeerError && error.code === "FAILED_TO_CREATE_SESSION") {
      const current = await deps.store.findUserById(user.id);
      if (current && banHolds(current, deps.now()) && options.refusal) throw bannedUser(current);
      if (!current || banHolds(current, deps.now())) throw new AuthError(options.refusal ?? "FAILED_TO_CREATE_SESSION");
    }
    throw error;
  }
  // A deletion may have run since the caller read the user (a sign-in waits on the password hash): its
  // delivery may have come before this session and its copy, so deliver it again, which ends this session.
  if (!(await deps.store.findUserById(user.id))) {
    await deps.store.queueSessionRevocation(user.id);
    throw new AuthError("FAILED_TO_CREATE_SESSION");
  }
  // The session is open: a note that cannot be written is logged, never this sign-in's failure.
  await deps.store.recordSignIn(user.id, deps.now()).catch((error: unknown) => deps.log.warn("last sign-in not recorded", { userId: user.id, error }));
  return session;
}

/** The caller's session to rotate, as the gateway names it (SessionRotation). */
export interface Rotation {
  /** The caller's session, which ends once the new one is open. */
  sessionId: string;
  /** Set on an impersonation session: refused (refuseRotationWhileImpersonating). */
  impersonatedBy?: string | undefined;
  /** The caller's session is remembered; false gives the new one the short lifetime again. */
  rememberMe: boolean;
  client: ClientInfo;
}

/**
 * A change of factors (two-factor turned on or off) from an impersonation session is refused before anything
 * is checked or changed: rotating would end the admin's flagged session and hand the admin a plain session of
 * the user (unflagged, audited as the user's), as revoke-other-sessions on a password change would.
 */
export function refuseRotationWhileImpersonating(rotation: Pick<Rotation, "impersonatedBy"> | undefined): void {
  if (rotation?.impersonatedBy) throw new AuthError("YOU_CANNOT_REVOKE_SESSIONS_WHILE_IMPERSONATING");
}

/**
 * Rotates the caller's session after a change of the user's authentication factors (OWASP ASVS 5.0 7.2.4):
 * a new session through openSession, the one way a session is opened, then the caller's ends; the user's
 * other sessions stay, as better-auth's two-factor plugin leaves them. The old session ends only once the
 * new one exists, so a failure to open it leaves the caller signed in as before; if the old one cannot be
 * ended, the new one is ended again and the caller gets the error (still signed in on the old one). An old
 * session already gone (signed out meanwhile) is ended all the same.
 */
export async function rotateSession(deps: Deps, user: UserRecord, rotation: Rotation): Promise<Session> {
  refuseRotationWhileImpersonating(rotation);
  const session = await openSession(deps, user, { rememberMe: rotation.rememberMe, client: rotation.client, authentication: { rotates: rotation.sessionId } });
  try {
    await deps.sessions.revokeSession(user.id, rotation.sessionId);
  } catch (error) {
    if (error instanceof PeerError && error.code === "SESSION_NOT_FOUND") return session;
    await deps.sessions.revokeSession(user.id, session.id).catch((undo: unknown) => {
      deps.log.warn("a rotation could not end the caller's session nor the new one: both stay until they expire", { error: undo });
    });
    throw error;
  }
  return session;
}
