/**
 * What a listing shows in a session's `token` field when its reader must not hold the session: a handle,
 * not the session's bearer token. The admin listing shows handles (with the raw token an admin could act as
 * any user, another admin too, without impersonation, its rules (ADMIN_IMPERSONATE_ADMINS, bans) or its
 * audit record), and so does list-sessions in an impersonation session (the session service's rule: else
 * the admin keeps a plain session of the user after stop-impersonating). A handle is the token sealed under
 * a key derived from AUTH_SECRET for this purpose only: no service accepts it as a session, and the gateway
 * opens it again only to revoke (admin revoke-user-session).
 */
import { sealer } from "./session-token.js";

const PURPOSE = "admin-session-handle";
/** Tells a handle from a raw token (which has no dot). */
const FORMAT = "sh1";

export interface SessionHandles {
  /** The handle a listing shows for this token. */
  handleOf(token: string): string;
  /**
   * The token a revoke-user-session body names: a handle opened, a raw token as it is (clients that kept
   * one still revoke with it), "" for a handle that does not open (the admin service then answers
   * SESSION_NOT_FOUND).
   */
  tokenOf(value: string): string;
}

export function sessionHandles(secret: string): SessionHandles {
  const sealing = sealer(secret, PURPOSE, FORMAT);
  return {
    handleOf: (token) => sealing.seal(token, PURPOSE),
    tokenOf(value) {
      if (!value.startsWith(`${FORMAT}.`)) return value;
      try {
        return sealing.open(value, PURPOSE);
      } catch {
        return "";
      }
    },
  };
}
