/**
 * What the SCIM use cases need (docs/adr/0070-scim-provisioning.md): their store, and the services that
 * own users (identity), memberships (organization) and sessions (session), behind ports.
 */
import type { ScimUserAttributes } from "./user.js";

export interface ScimTokenRecord {
  id: string;
  organizationId: string;
  name: string;
  /** The first characters of the token, shown in lists so an admin can tell tokens apart. */
  prefix: string;
  /** SHA-256 of the whole token (hex): the token is 256 random bits, so no slow hash is needed. */
  tokenHash: string;
  createdBy: string;
  createdAt: Date;
  lastUsedAt?: Date;
}

/** What was last delivered to the organization and identity services for a provisioned user. */
export type ScimApplied = "member" | "inactive" | "gone";

export interface ScimUserRow extends ScimUserAttributes {
  organizationId: string;
  /** The platform's user id, the SCIM id. */
  userId: string;
  createdAt: Date;
  updatedAt: Date;
  revision: number;
  /** Deleted over SCIM; the row stays until the membership's removal is delivered. */
  deleted: boolean;
  /** The state last delivered; differs from the wanted one while an effect is pending. */
  applied: ScimApplied | null;
}

export interface ScimGroupRow {
  organizationId: string;
  /** The team's id, the SCIM id. */
  teamId: string;
  displayName: string;
  externalId?: string;
  /** User ids, each a provisioned user of the organization. */
  members: string[];
  createdAt: Date;
  updatedAt: Date;
  revision: number;
}

export type ScimGroupFilter = { attribute: "displayName" | "externalId" | "id"; value: string };

export type ScimUserFilter = { attribute: "userName" | "externalId" | "id"; value: string };

export interface ScimStore {
  insertToken(token: ScimTokenRecord): Promise<void>;
  findTokenByHash(tokenHash: string): Promise<ScimTokenRecord | undefined>;
  listTokens(organizationId: string): Promise<ScimTokenRecord[]>;
  countTokens(organizationId: string): Promise<number>;
  /** False when the organization has no such token. */
  deleteToken(organizationId: string, id: string): Promise<boolean>;
  touchToken(id: string, at: Date): Promise<void>;

  /**
   * Inserts a new row, or revives a deleted one of the same user (its revision counting on); answers the row
   * stored, or undefined when a live row holds the user, the userName or the externalId.
   */
  putNewUser(row: ScimUserRow): Promise<ScimUserRow | undefined>;
  /** The live (not deleted) row. */
  getUser(organizationId: string, userId: string): Promise<ScimUserRow | undefined>;
  /** Live rows, ordered by creation; userName compared without case, externalId and id exactly. */
  listUsers(organizationId: string, filter: ScimUserFilter | undefined, offset: number, limit: number): Promise<{ rows: ScimUserRow[]; total: number }>;
  /** Writes the row if its stored revision is `expectedRevision`; false otherwise, or when userName or externalId collide. */
  updateUser(row: ScimUserRow, expectedRevision: number): Promise<"updated" | "changed" | "conflict">;
  /** Records a delivery of the state read at `revision` (a deleted row delivered as gone goes away). */
  markApplied(organizationId: string, userId: string, revision: number, applied: ScimApplied): Promise<void>;
  /** Rows whose wanted state is not the applied one, oldest change first. */
  listUndelivered(limit: number): Promise<ScimUserRow[]>;

  /** False when a group of the organization has this displayName (without case) or externalId. */
  insertGroup(row: ScimGroupRow): Promise<boolean>;
  getGroup(organizationId: string, teamId: string): Promise<ScimGroupRow | undefined>;
  listGroups(organizationId: string, filter: ScimGroupFilter | undefined, offset: number, limit: number): Promise<{ rows: ScimGroupRow[]; total: number }>;
  updateGroup(row: ScimGroupRow, expectedRevision: number): Promise<"updated" | "changed" | "conflict">;
  deleteGroup(organizationId: string, teamId: string): Promise<void>;
  /** Takes a user out of every group of the organization (their SCIM user was deleted). */
  removeFromGroups(organizationId: string, userId: string): Promise<void>;
}

export interface ScimPeers {
  /** identity: the user with this email, if any. */
  findUserByEmail(email: string): Promise<{ id: string } | undefined>;
  /** identity: a new user under identity's rules (no password: they sign in through the organization's SSO or a reset). */
  createUser(input: { email: string; name: string }): Promise<{ id: string }>;
  /** organization: makes the user a member with the default role; idempotent. */
  addMember(organizationId: string, userId: string): Promise<void>;
  /** organization: ends the membership; idempotent. */
  removeMember(organizationId: string, userId: string): Promise<void>;
  /** identity: deactivates the user, which ends every session of theirs at once (identity's session outbox). */
  deactivateUser(userId: string): Promise<void>;
  reactivateUser(userId: string): Promise<void>;
  /** organization: a new team (no caller: the service acts for the organization). */
  createTeam(organizationId: string, name: string): Promise<{ id: string }>;
  renameTeam(organizationId: string, teamId: string, name: string): Promise<void>;
  removeTeam(organizationId: string, teamId: string): Promise<void>;
  /** Idempotent both. */
  addTeamMember(organizationId: string, teamId: string, userId: string): Promise<void>;
  removeTeamMember(organizationId: string, teamId: string, userId: string): Promise<void>;
  /** organization: the user's role in the organization (comma-separated roles), undefined for a non-member. */
  roleIn(organizationId: string, userId: string): Promise<string | undefined>;
  /** sso: whether the organization verified the domain of this email. */
  ownsDomainOf(organizationId: string, email: string): Promise<boolean>;
}

export interface ScimDeps {
  store: ScimStore;
  peers: ScimPeers;
  now: () => Date;
  /** Wakes the delivery worker after a failed inline delivery. */
  wakeDelivery?: () => void;
}
