/** What the identity domain needs from outside itself: its store, the session service, a clock. */
import type { Session } from "@auth-platform/proto/gen/auth/session/v1/session";
import type { Caller } from "@auth-platform/runtime/caller";
import type { Language } from "@auth-platform/runtime/language";
import type { Logger } from "@auth-platform/runtime/log";
import type { IdentityConfig } from "../config.js";
import type { PasswordHasher } from "../password.js";
import type { IdentityStore, UserRecord } from "../store/identity-store.js";
import type { ApiKeyUsage } from "./api-keys.js";
import type { ProviderTokenVault } from "./provider-token-vault.js";

export interface ClientInfo {
  ipAddress?: string;
  userAgent?: string;
}

/**
 * How a user proved who they are, as a session records it (docs/adr/0064-sessions-record-how-the-user-signed-in.md):
 * the first factor, and the second one passed, if any.
 */
export type SignInMethod = "password" | "passkey" | "magic-link" | "email-otp" | "email-verification" | `social:${string}` | "sso";
export type PassedSecondFactor = "totp" | "otp" | "backup-code" | "passkey" | "trusted-device";

export interface Authentication {
  /** null: not known (a two-factor challenge opened by the previous release). */
  method: SignInMethod | null;
  secondFactor?: PassedSecondFactor | undefined;
}

/** The session service's RPCs that identity calls (domain/open-session.ts and session-outbox.ts call them). */
export interface SessionPort {
  /**
   * Starts a session for the user (the session service keeps the copy of the user it carries), recording how
   * the user signed in, or for a rotation, keeping what the rotated session recorded.
   */
  createSession(user: UserRecord, options: { rememberMe: boolean; client: ClientInfo; authentication: Authentication | { rotates: string } }): Promise<Session>;
  /**
   * Ends every session of the user. Idempotent. With `user` (a ban), the session service keeps that copy first,
   * so a session being created meanwhile sees the ban and is refused, or is made before the revocation lists.
   * `reason` is what the session.revoked webhook event says (docs/http-api/webhooks.md).
   */
  revokeUserSessions(userId: string, user?: UserRecord, reason?: "password-changed" | "user-deleted"): Promise<void>;
  /** Ends one session of the user, named by id (SESSION_NOT_FOUND when it is not a live session of the user). */
  revokeSession(userId: string, sessionId: string): Promise<void>;
  /** Tells the session service the user changed: it serves this copy from now on (cached copies dropped). */
  putUserCopy(user: UserRecord): Promise<void>;
  /** Tells the session service the user was deleted: its copy of the user goes. */
  dropUserCopy(userId: string): Promise<void>;
  /** Users with sessions but no copy in the session service, ids ascending after `afterUserId` (session-users.ts). */
  usersMissingSnapshot(afterUserId: string, limit: number): Promise<string[]>;
}

export type MailTemplate = "email-verification" | "password-reset" | "change-email" | "change-email-new-address" | "delete-account" | "sign-in-code" | "magic-link" | "email-otp";

export interface MailPort {
  /**
   * Queues a message in the notification outbox, written in `language` (the request's, passed down by the
   * gateway; none: English); the same idempotency key never queues twice.
   */
  send(to: string, template: MailTemplate, variables: Record<string, string>, idempotencyKey: string, language?: Language): Promise<void>;
}

export interface OrganizationPort {
  /**
   * Whether the caller's role in the organization grants `apiKey:<action>` (organization's HasPermission,
   * custom roles included); "not-member" for a non-member or an organization that does not exist.
   */
  apiKeyPermission(caller: Caller, organizationId: string, action: "create" | "read" | "update" | "delete"): Promise<"granted" | "denied" | "not-member">;
  /** Removes every membership of a deleted user (organization service). Idempotent. */
  removeUserMemberships(userId: string): Promise<void>;
  /** Makes the user a member with the role; an existing member keeps theirs (organization's AddMember). */
  addMember(organizationId: string, userId: string, role: string): Promise<void>;
}

/** The sso service's verified domains, as identity's user events reach them (docs/adr/0074-user-event-outbox.md). */
export interface DomainsPort {
  /** Applies domain auto-join for the user's address, verified at `verifiedAt` (sso's ApplyDomainAutoJoin). Idempotent. */
  applyAutoJoin(userId: string, email: string, verifiedAt: Date): Promise<void>;
}

/** The notification service's webhooks, as identity's user events reach them (docs/adr/0077-signed-webhooks.md). */
export interface WebhooksPort {
  /** Publishes one event (PublishEvents); idempotent by its id. */
  publish(event: { id: string; type: string; occurredAt: Date; payloadJson: string }): Promise<void>;
}

/**
 * What the rules read of the signed-in caller (auth.common.v1.Caller, runtime/caller.ts): when its
 * session was created (freshness.ts) and, on an impersonation session, the admin acting as the user.
 */
export type CallerFacts = Pick<Caller, "sessionCreatedAt" | "impersonatedBy">;

/** The mail request worker of this process. */
export interface MailRequestsPort {
  /** A request was just queued, due in `afterMs`: run a pass then. */
  wake(afterMs: number): void;
}

export interface Registry {
  config: IdentityConfig;
  store: IdentityStore;
  sessions: SessionPort;
  organizations: OrganizationPort;
  domains: DomainsPort;
  webhooks: WebhooksPort;
  mail: MailPort;
  mailRequests: MailRequestsPort;
  /** Password hashing and verification, through the process's bounded hashing queue. */
  passwords: PasswordHasher;
  log: Logger;
  now: () => Date;
  /** API keys' hashing (AUTH_SECRET-derived key) and their last-used batches (domain/api-keys.ts). */
  apiKeys: { hash: (key: string) => string; usage: ApiKeyUsage };
  /** Seals provider tokens stored on accounts (AUTH_SECRET-derived key). */
  providerTokens: ProviderTokenVault;
}
