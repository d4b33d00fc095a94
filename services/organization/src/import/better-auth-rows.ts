/**
 * The rows of better-auth's organization plugin (1.1 to 1.7) as its tables hold them, with better-auth's
 * own column names. Dates come as Date (PostgreSQL, MySQL) or as text or epoch numbers (SQLite); metadata
 * and a role's permissions are JSON text. Optional fields are the ones an older version lacks.
 */

/** A stored date, as the source's driver answers it. */
export type SourceDate = Date | string | number;

export interface BetterAuthOrganizationRow {
  id: string;
  name: string;
  /** Not required in 1.1's schema. */
  slug?: string | null;
  logo?: string | null;
  /** JSON text (an object), or null. */
  metadata?: string | null;
  createdAt: SourceDate;
}

export interface BetterAuthMemberRow {
  id: string;
  organizationId: string;
  userId: string;
  /** One role, or several separated by commas. */
  role: string;
  /** The versions between 1.1 and the teamMember table put a member's team here; comma-separated ids are read too. */
  teamId?: string | null;
  createdAt: SourceDate;
}

export interface BetterAuthInvitationRow {
  id: string;
  organizationId: string;
  email: string;
  /** Not required in the schema: better-auth reads a missing role as "member". */
  role?: string | null;
  /** pending, accepted, rejected or canceled. */
  status: string;
  inviterId: string;
  expiresAt: SourceDate;
  /** 1.1 has no createdAt on invitations. */
  createdAt?: SourceDate | null;
  /** The team(s) the invitation places its recipient in (versions with teams); comma-separated in 1.7. */
  teamId?: string | null;
}

export interface BetterAuthTeamRow {
  id: string;
  organizationId: string;
  name: string;
  createdAt: SourceDate;
  /** Optional in the schema. */
  updatedAt?: SourceDate | null;
}

/** The teamMember table (1.7): one user's place in one team. */
export interface BetterAuthTeamMemberRow {
  id: string;
  teamId: string;
  userId: string;
  createdAt?: SourceDate | null;
}

/** 1.7 with dynamic access control: a role an organization defined, `permission` as JSON (resource -> actions). */
export interface BetterAuthOrganizationRoleRow {
  id: string;
  organizationId: string;
  role: string;
  permission: string;
  createdAt: SourceDate;
  updatedAt?: SourceDate | null;
}

/** One batch of source rows, any kind possibly empty. */
export interface BetterAuthOrganizationRows {
  organizations?: BetterAuthOrganizationRow[];
  members?: BetterAuthMemberRow[];
  invitations?: BetterAuthInvitationRow[];
  teams?: BetterAuthTeamRow[];
  teamMembers?: BetterAuthTeamMemberRow[];
  roles?: BetterAuthOrganizationRoleRow[];
}
