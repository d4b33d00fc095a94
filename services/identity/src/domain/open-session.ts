/**
 * Opening a session for a user who proved who they are. The user's pending session outbox row goes first (a
 * revocation queued by a reset or a ban during an outage must not end the session opened after it), then the
 * session, then the checks for the writes that may have raced with it.
 */
import type { Session } from "@auth-platform/proto/gen/auth/session/v1/session";
import { AuthError, type ErrorCode, PeerError } from "@auth-platform/proto/errors";
import type { UserRecord } from "../store/identity-store.js";
import { banHolds } from "./bans.js";
import type { ClientInfo, Registry } from "./ports.js";
import { flushSessionOutbox } from "./session-outbox.js";

type Deps = Pick<Registry, "store" | "sessions" | "organizations" | "now" | "log">;

export interface OpenSessionOptions {
  rememberMe: boolean;
  client: ClientInfo;
  /** The error a user banned meanwhile gets (the sign-in method's own refusal); FAILED_TO_CREATE_SESSION by default. */
  refusal?: ErrorCode;
}

export async function openSession(deps: Deps, user: UserRecord, options: OpenSessionOptions): Promise<Session> {
  await flushSessionOutbox(deps, user.id);
  let session: Session;
  try {
    session = await deps.sessions.createSession(user, { rememberMe: options.rememberMe, client: options.client });
  } catch (error) {
    // The session service refuses a user it holds a banned copy of: a ban stored since the caller read the
    // user (the ban's delivery hands the copy over before it ends the sessions). With the ban stored here
    // too, that is this sign-in's refusal, not a failure; any other failure stays unexpected.
    if (error instanceof PeerError && error.code === "FAILED_TO_CREATE_SESSION") {
      const current = await deps.store.findUserById(user.id);
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
  return session;
}
