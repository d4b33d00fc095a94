/**
 * What a listing shows in a session's `token` field when its reader must not hold the session: a handle,
 * not the session's bearer token. The admin listing shows handles (with the raw token an admin could act as
 * any user, another admin too, without impersonation, its rules (ADMIN_IMPERSONATE_ADMINS, bans) or its
 * audit record), and so does list-sessions in an impersonation session (the session service's rule: else
 * the admin keeps a plain session of the user after stop-impersonating). A handle is the session's id
 * sealed under a key derived from AUTH_SECRET for this purpose only: it holds no secret, no service accepts
 * it as a session, and the gateway opens it only to name the session to revoke (admin revoke-user-session).
 */
import { sealer } from "./session-token.js";

const PURPOSE = "admin-session-handle";
/** Tells a handle from a raw token (which has no dot). */
const FORMAT = "sh2";

export interface SessionHandles {
  /** The handle a listing shows for the session with this id. */
  handleOf(sessionId: string): string;
  /** Whether a revoke-user-session body names a handle (else a raw token, as clients that kept one send). */
  isHandle(value: string): boolean;
  /** The session id a handle seals; "" for one that does not open (the admin service then answers SESSION_NOT_FOUND). */
  sessionIdOf(handle: string): string;
}

export function sessionHandles(secret: string): SessionHandles {
  const sealing = sealer(secret, PURPOSE, FORMAT);
  return {
    handleOf: (sessionId) => sealing.seal(sessionId, PURPOSE),
    isHandle: (value) => /^sh\d\./.test(value),
    sessionIdOf(handle) {
      try {
        return sealing.open(handle, PURPOSE);
      } catch {
        return "";
      }
    },
  };
}
