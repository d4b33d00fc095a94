/** What the session domain needs from outside itself. */
import type { PublicUser } from "@auth-platform/proto/public-shapes";
import type { KeyValue } from "@auth-platform/runtime/key-value";
import type { Logger } from "@auth-platform/runtime/log";
import type { SessionConfig } from "../config.js";
import type { SessionStore } from "../store/session-store.js";

export interface UserPort {
  /** The public user, or null when the user no longer exists. */
  getUser(userId: string): Promise<PublicUser | null>;
}

export interface Registry {
  config: SessionConfig;
  store: SessionStore;
  cache: KeyValue;
  users: UserPort;
  now: () => Date;
  log: Logger;
}
