/**
 * One better-auth row to the organization store's record, on its own: fields checked and normalized as the
 * service stores them (slugs folded, emails lower-cased, roles trimmed), or the reason the row cannot be
 * kept. References between rows and unique names are decided by write-batch.ts, which reads the store.
 */
import { createHash } from "node:crypto";
import { RESOURCES, type Permissions, type Resource } from "@auth-platform/contract/permissions";
import { foldSlug } from "../domain/access.js";
import { roleName, rolesOf } from "../domain/roles.js";
import { SLUG } from "../rpc/validation.js";
import type { CustomRoleRecord, InvitationRecord, InvitationStatus, MemberRecord, OrganizationRecord, TeamMemberRecord, TeamRecord } from "../store/organization-store.js";
import type {
  BetterAuthInvitationRow,
  BetterAuthMemberRow,
  BetterAuthOrganizationRoleRow,
  BetterAuthOrganizationRow,
  BetterAuthTeamMemberRow,
  BetterAuthTeamRow,
  SourceDate,
} from "./better-auth-rows.js";

/** A row kept (with what was changed on the way, if anything) or refused. */
export type Converted<T> = { record: T; notes: string[] } | { reason: string };

const INVITATION_STATUSES: readonly InvitationStatus[] = ["pending", "accepted", "rejected", "canceled"];
/** better-auth's default invitation lifetime: a 1.1 invitation (no createdAt) is dated this long before it expires. */
const BETTER_AUTH_INVITATION_LIFETIME_MS = 48 * 3600 * 1000;

/** A date as SQLite (ISO or SQL text, epoch seconds or milliseconds) or PostgreSQL (Date) answers it; null when unreadable. */
export function sourceDate(value: SourceDate | null | undefined): Date | null {
  if (value === null || value === undefined || value === "") return null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value;
  if (typeof value === "number" || /^\d+(\.\d+)?$/.test(value)) {
    const n = Number(value);
    // Epoch seconds until the year 33658; milliseconds from 1970-01-12 on.
    const date = new Date(n < 1e12 ? n * 1000 : n);
    return Number.isNaN(date.getTime()) ? null : date;
  }
  // SQLite's CURRENT_TIMESTAMP form ("2025-01-02 03:04:05") is UTC without saying so.
  const text = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?$/.test(value) ? `${value.replace(" ", "T")}Z` : value;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? null : date;
}

const text = (value: unknown): string | null => (typeof value === "string" && value.trim() ? value.trim() : null);

/** A role value as the service stores it: its roles trimmed, comma-separated; better-auth's default when empty. */
function roleValue(value: string | null | undefined): string {
  const roles = rolesOf(value ?? "");
  return roles.length ? roles.join(",") : "member";
}

/** better-auth's metadata (any JSON object) as the service's string map: values that are not strings kept as their JSON text. */
function metadataOf(value: string | null | undefined): { metadata: Record<string, string>; notes: string[] } {
  if (!value) return { metadata: {}, notes: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return { metadata: {}, notes: ["metadata is not JSON: dropped"] };
  }
  if (parsed === null) return { metadata: {}, notes: [] };
  if (typeof parsed !== "object" || Array.isArray(parsed)) return { metadata: {}, notes: ["metadata is not a JSON object: dropped"] };
  const metadata: Record<string, string> = {};
  let reencoded = false;
  for (const [key, item] of Object.entries(parsed)) {
    if (item === null || item === undefined) continue;
    if (typeof item === "string") metadata[key] = item;
    else {
      metadata[key] = JSON.stringify(item);
      reencoded = true;
    }
  }
  return { metadata, notes: reencoded ? ["metadata values that are not strings are kept as their JSON text"] : [] };
}

export function convertOrganization(row: BetterAuthOrganizationRow): Converted<OrganizationRecord> {
  const name = text(row.name);
  if (!name || name.length > 255) return { reason: "name must be 1 to 255 characters" };
  const slug = text(row.slug);
  if (!slug || !SLUG.test(slug)) return { reason: "slug must be 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit" };
  const createdAt = sourceDate(row.createdAt);
  if (!createdAt) return { reason: "createdAt is not a date" };
  const { metadata, notes } = metadataOf(row.metadata);
  return { record: { id: row.id, name, slug: foldSlug(slug), logo: text(row.logo), metadata, createdAt }, notes };
}

export function convertMember(row: BetterAuthMemberRow): Converted<MemberRecord> {
  const createdAt = sourceDate(row.createdAt);
  if (!createdAt) return { reason: "createdAt is not a date" };
  if (!text(row.userId) || !text(row.organizationId)) return { reason: "userId and organizationId are required" };
  return { record: { id: row.id, organizationId: row.organizationId, userId: row.userId, role: roleValue(row.role), createdAt }, notes: [] };
}

/**
 * The place in a team that a member row of the versions before the teamMember table carries. Its id is
 * derived from the member and the team, so a rerun finds the same place.
 */
export function placesOfMember(member: MemberRecord, teamIds: string | null | undefined): TeamMemberRecord[] {
  return (teamIds ?? "")
    .split(",")
    .map((id) => id.trim())
    .filter(Boolean)
    .map((teamId) => ({
      id: `tm_${createHash("sha256").update(`${member.id}\0${teamId}`).digest("hex").slice(0, 40)}`,
      teamId,
      organizationId: member.organizationId,
      userId: member.userId,
      createdAt: member.createdAt,
    }));
}

export function convertInvitation(row: BetterAuthInvitationRow): Converted<InvitationRecord> {
  const status = INVITATION_STATUSES.find((s) => s === row.status);
  if (!status) return { reason: `status ${JSON.stringify(row.status)} is not pending, accepted, rejected or canceled` };
  const email = text(row.email)?.toLowerCase();
  if (!email) return { reason: "email is required" };
  if (!text(row.inviterId) || !text(row.organizationId)) return { reason: "inviterId and organizationId are required" };
  const expiresAt = sourceDate(row.expiresAt);
  if (!expiresAt) return { reason: "expiresAt is not a date" };
  const createdAt = sourceDate(row.createdAt) ?? new Date(expiresAt.getTime() - BETTER_AUTH_INVITATION_LIFETIME_MS);
  const notes = text(row.teamId) ? ["its team is not kept: accepting it makes a member of the organization only"] : [];
  return { record: { id: row.id, organizationId: row.organizationId, email, role: roleValue(row.role), status, inviterId: row.inviterId, expiresAt, createdAt }, notes };
}

export function convertTeam(row: BetterAuthTeamRow): Converted<TeamRecord> {
  const name = text(row.name);
  if (!name) return { reason: "name is required" };
  const createdAt = sourceDate(row.createdAt);
  if (!createdAt) return { reason: "createdAt is not a date" };
  return { record: { id: row.id, organizationId: row.organizationId, name, createdAt, updatedAt: sourceDate(row.updatedAt) ?? createdAt }, notes: [] };
}

/** A teamMember row; its organization is its team's, filled in by the writer. */
export function convertTeamMember(row: BetterAuthTeamMemberRow, now: Date): Converted<Omit<TeamMemberRecord, "organizationId">> {
  if (!text(row.teamId) || !text(row.userId)) return { reason: "teamId and userId are required" };
  return { record: { id: row.id, teamId: row.teamId, userId: row.userId, createdAt: sourceDate(row.createdAt) ?? now }, notes: [] };
}

/**
 * A 1.7 organizationRole row. Names are compared in lower case, as better-auth 1.7 does; permissions on
 * resources or actions the platform does not know are dropped (the role grants less, never more) and said.
 */
export function convertRole(row: BetterAuthOrganizationRoleRow, configured: ReadonlySet<string>): Converted<CustomRoleRecord> {
  const name = (text(row.role) ?? "").toLowerCase();
  if (!roleName.safeParse(name).success) return { reason: "role name must be lower-case letters, digits, - and _ (1 to 32, starting with a letter)" };
  if (configured.has(name)) return { reason: `${name} is a configured role (ORGANIZATION_ROLES), which a custom role cannot redefine` };
  const createdAt = sourceDate(row.createdAt);
  if (!createdAt) return { reason: "createdAt is not a date" };
  let asked: unknown;
  try {
    asked = JSON.parse(row.permission);
  } catch {
    return { reason: "permission is not JSON" };
  }
  if (!asked || typeof asked !== "object" || Array.isArray(asked)) return { reason: "permission is not a JSON object" };
  const permissions: Permissions = {};
  const dropped: string[] = [];
  for (const [resource, actions] of Object.entries(asked)) {
    const listed = Array.isArray(actions) ? actions.filter((a): a is string => typeof a === "string") : [];
    const known: readonly string[] = Object.hasOwn(RESOURCES, resource) ? RESOURCES[resource as Resource] : [];
    for (const action of listed) if (!known.includes(action)) dropped.push(`${resource}:${action}`);
    const granted = known.filter((action) => listed.includes(action));
    if (granted.length) permissions[resource as Resource] = granted;
  }
  const notes = dropped.length ? [`permissions the platform does not know were dropped: ${dropped.join(", ")}`] : [];
  return { record: { id: row.id, organizationId: row.organizationId, name, permissions, createdAt, updatedAt: sourceDate(row.updatedAt) }, notes };
}
