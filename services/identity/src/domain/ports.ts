/** What the identity domain needs from outside itself: its store, the session service, a clock. */
import type { Session } from "@auth-platform/proto/gen/auth/session/v1/session";
import type { IdentityConfig } from "../config.js";
import type { IdentityStore, UserRecord } from "../store/identity-store.js";

export interface ClientInfo {
  ipAddress?: string;
  userAgent?: string;
}

export interface SessionPort {
  /** Starts a session for the user (the session service caches the user with it). */
  createSession(user: UserRecord, options: { rememberMe: boolean; client: ClientInfo }): Promise<Session>;
}

export interface Registry {
  config: IdentityConfig;
  store: IdentityStore;
  sessions: SessionPort;
  now: () => Date;
}
