/** What the admin domain needs from outside itself: its audit store, identity and session, a clock. */
import type { User } from "@auth-platform/proto/gen/auth/common/v1/user";
import type { ListUsersRequest } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import type { Session } from "@auth-platform/proto/gen/auth/session/v1/session";
import type { WebhookDelivery, WebhookEndpoint } from "@auth-platform/proto/gen/auth/notification/v1/webhook";
import type { Caller } from "@auth-platform/runtime/caller";
import type { Logger } from "@auth-platform/runtime/log";
import type { AdminConfig } from "../config.js";
import type { AuditStore } from "../store/audit-store.js";

export type { Caller, Session, User };

/** The identity service's admin RPCs. */
export interface IdentityPort {
  /** The user, or null when there is none. */
  getUser(userId: string): Promise<User | null>;
  /** The users with these ids who exist, in no particular order (identity's GetUsers, in batches it takes). */
  getUsers(userIds: string[]): Promise<User[]>;
  /** A page of users, and when each of them last signed in (by id; absent for one who never did). */
  listUsers(query: ListUsersRequest): Promise<{ users: User[]; total: number; totalIsLowerBound: boolean; lastSignInAt: Record<string, Date> }>;
  /** No password: no credential account; no role: identity's default role. */
  createUser(input: { email: string; password?: string; name: string; role?: string; extraFields: Record<string, unknown> }): Promise<User>;
  setRole(userId: string, role: string): Promise<User>;
  /** Profile fields (name, image, configured extra fields); identity's SetUserProfile. */
  updateUser(input: { userId: string; name?: string; image?: string; clearImage: boolean; extraFields: Record<string, unknown> }): Promise<User>;
  setUserPassword(userId: string, newPassword: string): Promise<void>;
  /** Bans and ends every session of the user before answering. */
  banUser(userId: string, reason: string | undefined, expiresInSeconds: number): Promise<User>;
  unbanUser(userId: string): Promise<User>;
  removeUser(userId: string): Promise<void>;
}

/** The session service. */
export interface SessionPort {
  listSessions(userId: string): Promise<Session[]>;
  createImpersonationSession(input: { user: User; impersonatedBy: string; expiresInSeconds: number; ipAddress?: string; userAgent?: string }): Promise<Session>;
  /** Ends the session with this id and answers its user; SESSION_NOT_FOUND when there is none. */
  revokeSession(sessionId: string): Promise<string>;
  revokeUserSessions(userId: string): Promise<void>;
}

/** The notification service's webhooks (docs/adr/0077-signed-webhooks.md); its refusals are relayed as they are. */
export interface WebhooksPort {
  list(): Promise<WebhookEndpoint[]>;
  create(input: { url: string; eventTypes: string[]; description: string; enabled?: boolean }): Promise<{ endpoint: WebhookEndpoint; secret: string }>;
  update(input: { id: string; url?: string; eventTypes?: string[]; description?: string; enabled?: boolean }): Promise<WebhookEndpoint>;
  remove(id: string): Promise<void>;
  rotateSecret(id: string): Promise<{ endpoint: WebhookEndpoint; secret: string }>;
  deliveries(endpointId: string, limit: number): Promise<WebhookDelivery[]>;
  resend(id: string): Promise<WebhookDelivery>;
  sendTest(id: string): Promise<WebhookDelivery>;
}

export interface Registry {
  config: AdminConfig;
  store: AuditStore;
  identity: IdentityPort;
  sessions: SessionPort;
  webhooks: WebhooksPort;
  log: Logger;
  now: () => Date;
}
