/**
 * Writes one batch of converted rows in one transaction, keeping their ids: each kind is read once (what is
 * there by id, and who holds each unique name), then written with one upsert, so a rerun updates instead of
 * doubling. A row whose organization (or team, or membership) is neither in the batch nor already here is
 * skipped, as is one whose unique name (slug, membership, team name, place, role name) another id holds.
 * No webhook event and no invitation mail is queued: the rows are not news to anyone.
 */
import type { EntityManager } from "@mikro-orm/sql";
import { InvitationEntity, MemberEntity, OrganizationEntity, OrganizationRoleEntity, TeamEntity, TeamMemberEntity } from "../store/entities.js";
import type { CustomRoleRecord, InvitationRecord, MemberRecord, OrganizationRecord, TeamMemberRecord, TeamRecord } from "../store/organization-store.js";
import { type ImportKind, type OrganizationImportReport, skip } from "./report.js";

export interface ConvertedBatch {
  organizations: OrganizationRecord[];
  members: MemberRecord[];
  teams: TeamRecord[];
  /** Places from teamMember rows (organization unknown yet) and from members' teamId (organization known). */
  places: (Omit<TeamMemberRecord, "organizationId"> & { organizationId?: string })[];
  invitations: InvitationRecord[];
  roles: CustomRoleRecord[];
}

/** The last row of each id: a source read twice over a page boundary gives one row. */
const lastOfEachId = <T extends { id: string }>(rows: T[]): T[] => [...new Map(rows.map((row) => [row.id, row])).values()];
const key = (...parts: string[]) => parts.join("\0");
const upsert = () => ({ onConflictFields: ["id"] as ["id"], onConflictAction: "merge" as const, batchSize: 500 });

/**
 * Keeps the rows whose unique key no other id holds, here or earlier in the batch. `holders` maps each key
 * to the id holding it now.
 */
function claimUnique<T extends { id: string }>(
  report: OrganizationImportReport,
  kind: ImportKind,
  rows: T[],
  keyOf: (row: T) => string,
  holders: Map<string, string>,
  reason: (row: T, holder: string) => string,
): T[] {
  return rows.filter((row) => {
    const holder = holders.get(keyOf(row));
    if (holder !== undefined && holder !== row.id) {
      skip(report, kind, row.id, reason(row, holder));
      return false;
    }
    holders.set(keyOf(row), row.id);
    return true;
  });
}

/** Counts the rows as created or updated by whether their id was here before the write (`here` reads those ids). */
async function count(report: OrganizationImportReport, kind: ImportKind, rows: { id: string }[], here: (ids: string[]) => Promise<{ id: string }[]>): Promise<void> {
  if (!rows.length) return;
  const there = new Set((await here(rows.map((r) => r.id))).map((row) => row.id));
  for (const row of rows) report.counts[kind][there.has(row.id) ? "updated" : "created"]++;
}

/** The ids among `ids` of the organizations here (the batch's already written). */
async function organizationsHere(em: EntityManager, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  return new Set((await em.find(OrganizationEntity, { id: { $in: [...new Set(ids)] } }, { fields: ["id"] })).map((row) => row.id));
}

/** Keeps the rows whose organization is here. */
async function inKnownOrganizations<T extends { id: string; organizationId: string }>(
  em: EntityManager,
  report: OrganizationImportReport,
  kind: ImportKind,
  rows: T[],
): Promise<T[]> {
  const known = await organizationsHere(
    em,
    rows.map((r) => r.organizationId),
  );
  return rows.filter((row) => {
    if (known.has(row.organizationId)) return true;
    skip(report, kind, row.id, `organization ${row.organizationId} is neither in this batch nor imported before`);
    return false;
  });
}

export async function writeBatch(em: EntityManager, batch: ConvertedBatch, report: OrganizationImportReport): Promise<void> {
  await writeOrganizations(em, lastOfEachId(batch.organizations), report);
  await writeMembers(em, lastOfEachId(batch.members), report);
  await writeTeams(em, lastOfEachId(batch.teams), report);
  await writePlaces(em, lastOfEachId(batch.places), report);
  await writeInvitations(em, lastOfEachId(batch.invitations), report);
  await writeRoles(em, lastOfEachId(batch.roles), report);
}

async function writeOrganizations(em: EntityManager, rows: OrganizationRecord[], report: OrganizationImportReport): Promise<void> {
  if (!rows.length) return;
  const bySlug = await em.find(OrganizationEntity, { slug: { $in: rows.map((r) => r.slug) } }, { fields: ["id", "slug"] });
  const kept = claimUnique(
    report,
    "organization",
    rows,
    (r) => r.slug,
    new Map(bySlug.map((r) => [r.slug, r.id])),
    (r, holder) => `slug ${r.slug} belongs to organization ${holder}`,
  );
  await count(report, "organization", kept, (ids) => em.find(OrganizationEntity, { id: { $in: ids } }, { fields: ["id"] }));
  const data = kept.map((r) => ({ ...r, metadata: Object.keys(r.metadata).length ? JSON.stringify(r.metadata) : null }));
  if (data.length) await em.upsertMany(OrganizationEntity, data, upsert());
}

async function writeMembers(em: EntityManager, rows: MemberRecord[], report: OrganizationImportReport): Promise<void> {
  const known = await inKnownOrganizations(em, report, "member", rows);
  if (!known.length) return;
  const there = await em.find(
    MemberEntity,
    { organizationId: { $in: [...new Set(known.map((r) => r.organizationId))] }, userId: { $in: [...new Set(known.map((r) => r.userId))] } },
    { fields: ["id", "organizationId", "userId"] },
  );
  const kept = claimUnique(
    report,
    "member",
    known,
    (r) => key(r.organizationId, r.userId),
    new Map(there.map((r) => [key(r.organizationId, r.userId), r.id])),
    (r, holder) => `user ${r.userId} is a member of organization ${r.organizationId} already, as member ${holder}`,
  );
  await count(report, "member", kept, (ids) => em.find(MemberEntity, { id: { $in: ids } }, { fields: ["id"] }));
  if (kept.length) await em.upsertMany(MemberEntity, kept, upsert());
}

async function writeTeams(em: EntityManager, rows: TeamRecord[], report: OrganizationImportReport): Promise<void> {
  const known = await inKnownOrganizations(em, report, "team", rows);
  if (!known.length) return;
  const there = await em.find(
    TeamEntity,
    { organizationId: { $in: [...new Set(known.map((r) => r.organizationId))] }, name: { $in: [...new Set(known.map((r) => r.name))] } },
    { fields: ["id", "organizationId", "name"] },
  );
  const kept = claimUnique(
    report,
    "team",
    known,
    (r) => key(r.organizationId, r.name),
    new Map(there.map((r) => [key(r.organizationId, r.name), r.id])),
    (r, holder) => `team ${holder} of organization ${r.organizationId} has the name ${JSON.stringify(r.name)}`,
  );
  await count(report, "team", kept, (ids) => em.find(TeamEntity, { id: { $in: ids } }, { fields: ["id"] }));
  if (kept.length) await em.upsertMany(TeamEntity, kept, upsert());
}

/** Places in teams: the team must be here and its user a member of the team's organization (as addTeamMember requires). */
async function writePlaces(em: EntityManager, rows: ConvertedBatch["places"], report: OrganizationImportReport): Promise<void> {
  if (!rows.length) return;
  const teams = new Map(
    (await em.find(TeamEntity, { id: { $in: [...new Set(rows.map((r) => r.teamId))] } }, { fields: ["id", "organizationId"] })).map((t) => [t.id, t.organizationId]),
  );
  const placed: TeamMemberRecord[] = [];
  for (const row of rows) {
    const organizationId = teams.get(row.teamId);
    if (organizationId === undefined || (row.organizationId !== undefined && row.organizationId !== organizationId)) {
      skip(report, "teamMember", row.id, `team ${row.teamId} is neither in this batch nor imported before`);
    } else placed.push({ ...row, organizationId });
  }
  if (!placed.length) return;
  const users = [...new Set(placed.map((r) => r.userId))];
  const memberships = new Set(
    (
      await em.find(MemberEntity, { organizationId: { $in: [...new Set(placed.map((r) => r.organizationId))] }, userId: { $in: users } }, { fields: ["organizationId", "userId"] })
    ).map((m) => key(m.organizationId, m.userId)),
  );
  const members = placed.filter((row) => {
    if (memberships.has(key(row.organizationId, row.userId))) return true;
    skip(report, "teamMember", row.id, `user ${row.userId} is not a member of the team's organization ${row.organizationId}`);
    return false;
  });
  if (!members.length) return;
  const there = await em.find(TeamMemberEntity, { teamId: { $in: [...new Set(members.map((r) => r.teamId))] }, userId: { $in: users } }, { fields: ["id", "teamId", "userId"] });
  const kept = claimUnique(
    report,
    "teamMember",
    members,
    (r) => key(r.teamId, r.userId),
    new Map(there.map((r) => [key(r.teamId, r.userId), r.id])),
    (r, holder) => `user ${r.userId} has a place in team ${r.teamId} already, as ${holder}`,
  );
  await count(report, "teamMember", kept, (ids) => em.find(TeamMemberEntity, { id: { $in: ids } }, { fields: ["id"] }));
  // A teamMember row may have no createdAt (the import's time then): a rerun keeps the first one.
  if (kept.length) await em.upsertMany(TeamMemberEntity, kept, { ...upsert(), onConflictExcludeFields: ["createdAt"] });
}

/** An invitation answered here since an earlier run (accepted on the platform) is not made pending again by its source row. */
async function writeInvitations(em: EntityManager, rows: InvitationRecord[], report: OrganizationImportReport): Promise<void> {
  const known = await inKnownOrganizations(em, report, "invitation", rows);
  if (!known.length) return;
  const answered = new Map(
    (await em.find(InvitationEntity, { id: { $in: known.map((r) => r.id) }, status: { $ne: "pending" } }, { fields: ["id", "status"] })).map((r) => [r.id, r.status]),
  );
  const kept = known.filter((row) => {
    const status = answered.get(row.id);
    if (row.status !== "pending" || status === undefined) return true;
    skip(report, "invitation", row.id, `${status} here since an earlier import: kept as it is`);
    return false;
  });
  await count(report, "invitation", kept, (ids) => em.find(InvitationEntity, { id: { $in: ids } }, { fields: ["id"] }));
  if (kept.length) await em.upsertMany(InvitationEntity, kept, upsert());
}

async function writeRoles(em: EntityManager, rows: CustomRoleRecord[], report: OrganizationImportReport): Promise<void> {
  const known = await inKnownOrganizations(em, report, "role", rows);
  if (!known.length) return;
  const there = await em.find(
    OrganizationRoleEntity,
    { organizationId: { $in: [...new Set(known.map((r) => r.organizationId))] }, name: { $in: [...new Set(known.map((r) => r.name))] } },
    { fields: ["id", "organizationId", "name"] },
  );
  const kept = claimUnique(
    report,
    "role",
    known,
    (r) => key(r.organizationId, r.name),
    new Map(there.map((r) => [key(r.organizationId, r.name), r.id])),
    (r, holder) => `role ${holder} of organization ${r.organizationId} has the name ${r.name}`,
  );
  await count(report, "role", kept, (ids) => em.find(OrganizationRoleEntity, { id: { $in: ids } }, { fields: ["id"] }));
  if (kept.length)
    await em.upsertMany(
      OrganizationRoleEntity,
      kept.map((r) => ({ ...r, permissions: JSON.stringify(r.permissions) })),
      upsert(),
    );
}
