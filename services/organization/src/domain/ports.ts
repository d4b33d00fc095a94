/** What the organization domain needs from outside itself. */
import type { Language } from "@auth-platform/runtime/language";
import type { Logger } from "@auth-platform/runtime/log";
import type { OrganizationConfig } from "../config.js";
import type { OrganizationStore } from "../store/organization-store.js";

/** The signed-in user a call is made for (auth.common.v1.Caller, as the gateway built it from the session). */
export interface Caller {
  userId: string;
  /** Lower-cased. */
  email: string;
  /** Whether the user proved they own `email`; an unverified address may be anyone's (docs/http-api/account.md#post-change-email). */
  emailVerified: boolean;
  /** The session the call acts in: the one whose active organization changes. */
  sessionId: string;
  activeOrganizationId: string | null;
  activeTeamId: string | null;
}

/** A member's user as identity serves it. */
export interface MemberUser {
  id: string;
  name: string;
  email: string;
  image: string | null;
}

export interface UserPort {
  /** The users with these ids or (lower-cased) emails, in one call; unknown ones left out. */
  getUsers(ids: string[], emails: string[]): Promise<MemberUser[]>;
}

export interface SessionPort {
  /** Sets (or with null clears) the active organization of one session, cache included. */
  setActiveOrganization(sessionId: string, organizationId: string | null): Promise<void>;
  /** Clears an organization as the active one of every session (of one user when given). Idempotent. */
  clearActiveOrganization(organizationId: string, userId?: string): Promise<void>;
  /** Sets the active team of one session with its organization as the active one, or with null clears the team. */
  setActiveTeam(sessionId: string, team: { teamId: string; organizationId: string } | null): Promise<void>;
  /** Clears a team as the active one of every session (of one user when given). Idempotent. */
  clearActiveTeam(teamId: string, userId?: string): Promise<void>;
}

export interface MailPort {
  /**
   * Hands the invitation mail to the notification service (SendEmail), which queues it in its own outbox;
   * the same key never queues twice. Called by the invitation mail worker only.
   */
  sendInvitation(to: string, variables: Record<string, string>, idempotencyKey: string, language?: Language): Promise<void>;
}

/** The notification service's webhooks, as the organization events reach them (docs/adr/0077-signed-webhooks.md). */
export interface WebhooksPort {
  /** Publishes one event (PublishEvents); idempotent by its id. */
  publish(event: { id: string; type: string; occurredAt: Date; payloadJson: string }): Promise<void>;
}

/** identity's API keys, as a deleted organization's reach them (docs/adr/0075-api-keys.md). */
export interface ApiKeysPort {
  /** Deletes every key the organization owns (DeleteOrganizationApiKeys); a repeat deletes nothing. */
  deleteOrganizationKeys(organizationId: string): Promise<void>;
}

export interface InvitationMailQueue {
  /** Asks the invitation mail worker for a pass now: called once an invitation and its mail are committed. */
  wake(): void;
}

export interface Registry {
  config: OrganizationConfig;
  store: OrganizationStore;
  users: UserPort;
  sessions: SessionPort;
  mail: MailPort;
  webhooks: WebhooksPort;
  apiKeys: ApiKeysPort;
  invitationMails: InvitationMailQueue;
  log: Logger;
  now: () => Date;
}
