/** The organization store port: organizations, members, invitations, teams and custom roles. */
import type { Permissions } from "@auth-platform/contract/permissions";
import { ORGANIZATION_WEBHOOK_EVENTS } from "@auth-platform/contract/webhook-events";
import type { Language } from "@auth-platform/runtime/language";

export interface OrganizationRecord {
  id: string;
  name: string;
  slug: string;
  logo: string | null;
  metadata: Record<string, string>;
  createdAt: Date;
}

export interface MemberRecord {
  id: string;
  organizationId: string;
  userId: string;
  role: string;
  createdAt: Date;
}

/** A team: a named group of an organization's members (docs/organizations.md#teams). */
export interface TeamRecord {
  id: string;
  organizationId: string;
  /** Unique within the organization, as given (trimmed). */
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

/** One member's place in one team. */
export interface TeamMemberRecord {
  id: string;
  teamId: string;
  /** The team's organization, kept on the row so a member's removal from it removes their teams in one statement. */
  organizationId: string;
  userId: string;
  createdAt: Date;
}

export type InvitationStatus = "pending" | "accepted" | "rejected" | "canceled";

export interface InvitationRecord {
  id: string;
  organizationId: string;
  /** Lower-cased. */
  email: string;
  role: string;
  status: InvitationStatus;
  inviterId: string;
  expiresAt: Date;
  createdAt: Date;
}

/**
 * An invitation mail waiting to be handed to the notification service. Written in the transaction that
 * stores (or renews) its invitation, so an invitation answered with success always has its mail on the way;
 * the invitation mail worker delivers it with retries and deletes it (docs/organizations.md).
 */
export interface InvitationMailRecord {
  id: string;
  invitationId: string;
  /** Lower-cased. */
  recipient: string;
  /** The organization-invitation template's variables (url, organization_name, role, inviter_name). */
  variables: Record<string, string>;
  /** SendEmail's idempotency key: one per invitation and expiry (invitationMailKey). */
  idempotencyKey: string;
  /** The mail's language: the inviter's (their request's); null: English. */
  language: Language | null;
  /** Delivery attempts started so far. */
  attempts: number;
  nextAttemptAt: Date;
  /** While in the future, one worker holds the mail. */
  leaseUntil: Date | null;
  createdAt: Date;
}

/** An invitation mail as the use case writes it: not attempted yet, free. */
export type NewInvitationMail = Omit<InvitationMailRecord, "attempts" | "leaseUntil">;

/**
 * The webhook event types of the organization service (docs/adr/0077-signed-webhooks.md), published to the
 * notification service's PublishEvents from the organization_event outbox.
 */
export const ORGANIZATION_EVENT_TYPES = ORGANIZATION_WEBHOOK_EVENTS;
export type OrganizationEventType = (typeof ORGANIZATION_EVENT_TYPES)[number];

/**
 * One event of the organization_event outbox: written by the store in the transaction of the change it
 * records, published by the organization event worker, removed once published. Its id is the webhook's event
 * id. The payload holds ids and public fields only: never an invitation's id, which its mailed link carries.
 */
export interface OrganizationEventRecord {
  id: string;
  type: OrganizationEventType;
  organizationId: string;
  /** The event's `data`, as JSON text. */
  payload: string;
  occurredAt: Date;
  /** Delivery attempts started so far. */
  attempts: number;
  nextAttemptAt: Date;
  /** While in the future, one deliverer holds the event. */
  leaseUntil: Date | null;
}

/** The event as a change writes it, before its id, time and bookkeeping. */
export interface OrganizationEventDraft {
  type: OrganizationEventType;
  organizationId: string;
  data: Record<string, unknown>;
}

const publicOrganization = (o: Pick<OrganizationRecord, "id" | "name" | "slug">) => ({ id: o.id, name: o.name, slug: o.slug });
const publicMember = (m: MemberRecord) => ({ id: m.id, organizationId: m.organizationId, userId: m.userId, role: m.role });
/** An invitation without its id: the id is what the invitation link carries. */
const publicInvitation = (i: InvitationRecord) => ({
  organizationId: i.organizationId,
  email: i.email,
  role: i.role,
  status: i.status,
  inviterId: i.inviterId,
  expiresAt: i.expiresAt.toISOString(),
});

/** The events' payloads, one shape per kind, shared by every backend. */
export const organizationEvent = (
  type: "organization.created" | "organization.updated" | "organization.deleted",
  organization: Pick<OrganizationRecord, "id" | "name" | "slug">,
): OrganizationEventDraft => ({
  type,
  organizationId: organization.id,
  data: { organization: publicOrganization(organization) },
});
export const memberEvent = (type: "member.added" | "member.updated" | "member.removed", member: MemberRecord, previousRole?: string): OrganizationEventDraft => ({
  type,
  organizationId: member.organizationId,
  data: { member: publicMember(member), ...(previousRole !== undefined ? { previousRole } : {}) },
});
export const invitationEvent = (
  type: "invitation.created" | "invitation.accepted" | "invitation.rejected" | "invitation.canceled" | "invitation.resent",
  invitation: InvitationRecord,
  member?: MemberRecord,
): OrganizationEventDraft => ({
  type,
  organizationId: invitation.organizationId,
  data: { invitation: publicInvitation(invitation), ...(member ? { member: publicMember(member) } : {}) },
});
const publicTeam = (t: TeamRecord) => ({ id: t.id, organizationId: t.organizationId, name: t.name });
const publicPlace = (p: TeamMemberRecord) => ({ teamId: p.teamId, organizationId: p.organizationId, userId: p.userId });
export const teamEvent = (type: "team.created" | "team.updated" | "team.deleted", team: TeamRecord): OrganizationEventDraft => ({
  type,
  organizationId: team.organizationId,
  data: { team: publicTeam(team) },
});
export const teamMemberEvent = (type: "team_member.added" | "team_member.removed", place: TeamMemberRecord): OrganizationEventDraft => ({
  type,
  organizationId: place.organizationId,
  data: { teamMember: publicPlace(place) },
});
/** An answer's event type; a resend keeps the invitation pending, with a new expiry (and inviter). */
export const answerEventType = (status: InvitationStatus) =>
  status === "accepted" ? "invitation.accepted" : status === "rejected" ? "invitation.rejected" : status === "canceled" ? "invitation.canceled" : "invitation.resent";

/** A role an organization defined at run time (docs/organizations.md#custom-roles). */
export interface CustomRoleRecord {
  id: string;
  organizationId: string;
  /** Lower case, unique within the organization, never a built-in role's name. */
  name: string;
  permissions: Permissions;
  createdAt: Date;
  updatedAt: Date | null;
}

/** Which role: by id or by name, within one organization. */
export type RoleRef = { id: string } | { name: string };

/** How a member page is ordered and filtered (exact matches on the stored role value). */
export interface MemberQuery {
  limit: number;
  offset: number;
  /** Default createdAt; ties by age, then id. */
  sortBy?: "createdAt" | "role";
  descending?: boolean;
  filter?: { field: "role" | "userId"; operator: "eq" | "ne" | "in" | "not_in"; values: string[] };
}

export type OrganizationPatch = Partial<Pick<OrganizationRecord, "name" | "slug" | "logo" | "metadata">>;

/**
 * The member a change is made for, checked again in the transaction that writes, under the organization's
 * lock: a role change or removal of that member that commits first is seen, so a member demoted while their
 * own request is in flight cannot still act with the role they had. `check` gets the actor's membership as
 * it is then (null when it is gone) and, for a change of a member, that member as it is then; it throws
 * the catalogue error that refuses, and nothing is written.
 */
export interface ActorCheck {
  userId: string;
  check(actor: MemberRecord | null, subject?: MemberRecord): void;
}

/** How a member change is guarded. */
export interface MemberChangeRules {
  /** Taking this role from the organization's last member holding it raises YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER. */
  keepRole?: string;
  actor?: ActorCheck;
}

export interface OrganizationStore {
  /**
   * Creates an organization with its first member, atomically. A taken slug raises ORGANIZATION_ALREADY_EXISTS;
   * with `limit` (> 0), a creator already a member of that many organizations raises
   * YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS, and concurrent creates of one creator are
   * serialized so the limit holds.
   */
  createOrganization(organization: OrganizationRecord, creator: MemberRecord, limit?: number): Promise<void>;
  findOrganization(id: string): Promise<OrganizationRecord | null>;
  /** The organizations with these ids that exist, in no particular order. */
  findOrganizations(ids: string[]): Promise<OrganizationRecord[]>;
  findOrganizationBySlug(slug: string): Promise<OrganizationRecord | null>;
  /** Applies a patch; null when the organization is gone. A taken slug raises ORGANIZATION_ALREADY_EXISTS. */
  updateOrganization(id: string, patch: OrganizationPatch, actor?: ActorCheck): Promise<OrganizationRecord | null>;
  /** Deletes an organization with its members, invitations, teams and custom roles, atomically; false when it was already gone. */
  deleteOrganization(id: string, actor?: ActorCheck): Promise<boolean>;
  /** The organizations the user is a member of, oldest membership first. */
  listOrganizationsOfUser(userId: string): Promise<OrganizationRecord[]>;
  /** How many organizations the user is a member of. */
  countMemberships(userId: string): Promise<number>;

  findMember(organizationId: string, userId: string): Promise<MemberRecord | null>;
  findMemberById(id: string): Promise<MemberRecord | null>;
  /** The members of the organization with one of these user ids. */
  findMembersByUserIds(organizationId: string, userIds: string[]): Promise<MemberRecord[]>;
  /** One page of members, oldest first (ties by id) unless sorted otherwise, and how many match. */
  listMembers(organizationId: string, page: MemberQuery): Promise<{ members: MemberRecord[]; total: number }>;
  /** Adds a member. A second membership of one user raises USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION. */
  addMember(member: MemberRecord): Promise<void>;
  /**
   * Sets a member's role; null when the member is gone. Changes within one organization are serialized, so
   * two owners demoting each other leave one (`keepRole`).
   */
  updateMemberRole(id: string, role: string, rules?: MemberChangeRules): Promise<MemberRecord | null>;
  /**
   * Deletes a member and, in the same transaction, their places in the organization's teams; false when it
   * was already gone. `rules` as for updateMemberRole.
   */
  deleteMember(id: string, rules?: MemberChangeRules): Promise<boolean>;
  /**
   * Removes every membership of a user and cancels the pending invitations they sent; answers the
   * organizations they were a member of. Where the user was the last member holding `ownerRole`, the
   * role passes to the oldest remaining member whose role includes `successorRole`, else to the oldest
   * remaining member; an organization left with no member is deleted with its invitations and teams. The
   * user's places in teams go with each membership, in its transaction. Idempotent.
   */
  removeUser(userId: string, ownerRole: string, successorRole: string): Promise<string[]>;

  /**
   * Stores a pending invitation. A pending invitation of the same address to the same organization still
   * valid at the new one's createdAt raises USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION, and `limit` such
   * invitations of any address INVITATION_LIMIT_REACHED; invitations within one organization are
   * serialized, so two concurrent ones leave one pending and concurrent ones do not pass the limit.
   * `mail` is queued in the same transaction: both are stored or neither.
   */
  createInvitation(invitation: InvitationRecord, actor?: ActorCheck, limit?: number, mail?: NewInvitationMail): Promise<void>;
  findInvitation(id: string): Promise<InvitationRecord | null>;
  /** The newest pending invitation of this (lower-cased) address to the organization, or null. */
  findPendingInvitation(organizationId: string, email: string): Promise<InvitationRecord | null>;
  /** The organization's invitations, newest first (only the pending ones with `pendingOnly`). */
  listInvitations(organizationId: string, pendingOnly?: boolean): Promise<InvitationRecord[]>;
  /** The pending invitations to this (lower-cased) address, newest first. */
  listPendingInvitationsTo(email: string): Promise<InvitationRecord[]>;
  /**
   * Moves a pending invitation to another status (and expiry, and inviter: a resend); false when it is no
   * longer pending (or gone).
   * With `actor`, decided under the invitation's organization's lock. `mail` (a resend's) is queued in the
   * same transaction, only when the invitation was still pending.
   */
  answerInvitation(id: string, status: InvitationStatus, options?: { expiresAt?: Date; inviterId?: string; actor?: ActorCheck; mail?: NewInvitationMail }): Promise<boolean>;
  /**
   * Accepts a pending invitation and adds the member, atomically: of two concurrent accepts one wins, the
   * other gets false and adds nothing. A membership that already exists raises
   * USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION and leaves the invitation pending. With `inviter`, its
   * check runs under the organization's lock on the inviter's membership as it is then, so a concurrent
   * demotion or removal of the inviter is seen.
   */
  acceptInvitation(id: string, member: MemberRecord, inviter?: ActorCheck): Promise<boolean>;
  /**
   * Undoes acceptInvitation after a later step failed: removes the member it added and makes the invitation
   * pending again, atomically (a member or an invitation already gone or changed is left as it is).
   */
  reopenInvitation(id: string, memberId: string): Promise<void>;

  /**
   * Creates a team, under the organization's lock: a team of the same name there raises TEAM_ALREADY_EXISTS,
   * and `limit` (> 0) teams already there YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_TEAMS. `actor` as for
   * the member changes.
   */
  createTeam(team: TeamRecord, limit: number, actor?: ActorCheck): Promise<void>;
  findTeam(id: string): Promise<TeamRecord | null>;
  /** The organization's team with exactly this name, or null. */
  findTeamByName(organizationId: string, name: string): Promise<TeamRecord | null>;
  /** The organization's teams, oldest first (ties by id). */
  listTeams(organizationId: string): Promise<TeamRecord[]>;
  /** How many teams the organization has. */
  countTeams(organizationId: string): Promise<number>;
  /** Renames a team; null when it is gone. A name another team there has raises TEAM_ALREADY_EXISTS. */
  renameTeam(id: string, name: string, updatedAt: Date, actor?: ActorCheck): Promise<TeamRecord | null>;
  /** Deletes a team with its members' places, atomically; false when it was already gone. */
  deleteTeam(id: string, actor?: ActorCheck): Promise<boolean>;
  /** The teams the user has a place in (of one organization when given), oldest first. */
  listTeamsOfUser(userId: string, organizationId?: string): Promise<TeamRecord[]>;
  findTeamMember(teamId: string, userId: string): Promise<TeamMemberRecord | null>;
  /** The team's members' places, oldest first (ties by id). */
  listTeamMembers(teamId: string): Promise<TeamMemberRecord[]>;
  /** The user's places in the organization's teams. */
  listTeamPlacesOfUser(organizationId: string, userId: string): Promise<TeamMemberRecord[]>;
  /**
   * Gives a member a place in a team, under the organization's lock, and answers the place: the one there
   * already when the user has it (idempotent). Refused with TEAM_NOT_FOUND when the team is gone,
   * USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION when the user is not a member of its organization (then), and
   * TEAM_MEMBER_LIMIT_REACHED when `limit` (> 0) places are taken. `actor` as for the member changes.
   */
  addTeamMember(place: TeamMemberRecord, limit: number, actor?: ActorCheck): Promise<TeamMemberRecord>;
  /** Removes a user's place in a team; false when they had none. */
  removeTeamMember(teamId: string, userId: string, actor?: ActorCheck): Promise<boolean>;

  /**
   * Stores a custom role, under the organization's lock (after `actor`'s check): more than `limit` roles
   * raises TOO_MANY_ROLES; a name another role has, or one a member or pending invitation still holds (a
   * role deleted while being assigned), ROLE_NAME_IS_ALREADY_TAKEN.
   */
  createRole(role: CustomRoleRecord, actor: ActorCheck, limit: number): Promise<void>;
  findRole(organizationId: string, ref: RoleRef): Promise<CustomRoleRecord | null>;
  /** The organization's custom roles, oldest first. */
  listRoles(organizationId: string): Promise<CustomRoleRecord[]>;
  /**
   * Renames a role and/or replaces its permissions, under the organization's lock (after `actor`'s check);
   * null when the role is gone. A rename of a role a member or pending invitation holds raises
   * ROLE_IS_ASSIGNED_TO_MEMBERS; a name taken as for createRole, ROLE_NAME_IS_ALREADY_TAKEN.
   */
  updateRole(id: string, patch: { name?: string; permissions?: Permissions; updatedAt: Date }, actor: ActorCheck): Promise<CustomRoleRecord | null>;
  /**
   * Deletes a role, under the organization's lock (after `actor`'s check); false when it is gone. A role a
   * member or pending invitation holds raises ROLE_IS_ASSIGNED_TO_MEMBERS.
   */
  deleteRole(id: string, actor: ActorCheck): Promise<boolean>;

  /** Up to `limit` organization events due at `now` whose lease is free, oldest due first. */
  findDueOrganizationEvents(now: Date, limit: number): Promise<OrganizationEventRecord[]>;
  /** Takes the lease on an event and counts the attempt, in one conditional UPDATE: true for the one caller that won it. */
  claimOrganizationEvent(id: string, seenAttempts: number, now: Date, leaseUntil: Date): Promise<boolean>;
  /** Frees the lease of an event held at `attempts` and schedules another attempt. */
  retryOrganizationEvent(id: string, attempts: number, nextAttemptAt: Date): Promise<void>;
  /** Removes a published event. */
  deleteOrganizationEvent(id: string): Promise<void>;

  /** Up to `limit` invitation mails due at `now` whose lease is free, oldest due first. */
  findDueInvitationMails(now: Date, limit: number): Promise<InvitationMailRecord[]>;
  /**
   * Takes the lease on a due mail and counts the attempt, in one conditional UPDATE (lease free and still at
   * `seenAttempts`): true for the one caller that won it.
   */
  claimInvitationMail(id: string, seenAttempts: number, now: Date, leaseUntil: Date): Promise<boolean>;
  /** Frees the lease of a mail held at `attempts` and schedules another attempt. */
  retryInvitationMail(id: string, attempts: number, nextAttemptAt: Date): Promise<void>;
  /** Removes a delivered, dropped or abandoned mail. */
  deleteInvitationMail(id: string): Promise<void>;
  close(): Promise<void>;
}
