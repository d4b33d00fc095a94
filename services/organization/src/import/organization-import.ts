/**
 * The organization part of the move from better-auth (docs/importing-organizations.md): the import command
 * opens the organization store with openOrganizationImportStore, then hands it each batch of the
 * organization plugin's rows with importOrganizationRows, and gets back what was written and skipped.
 */
import { openStore, type Store } from "@auth-platform/runtime/store";
import { organizationConfig } from "../config.js";
import { DEFAULT_ROLES, type RoleTable } from "../domain/roles.js";
import { organizationStoreOptions } from "../store/mikro-organization-store.js";
import type { BetterAuthOrganizationRows } from "./better-auth-rows.js";
import { type Converted, convertInvitation, convertMember, convertOrganization, convertRole, convertTeam, convertTeamMember, placesOfMember } from "./convert.js";
import { emptyReport, type ImportKind, note, type OrganizationImportReport, skip } from "./report.js";
import { type ConvertedBatch, writeBatch } from "./write-batch.js";

export type { OrganizationImportReport } from "./report.js";
export type * from "./better-auth-rows.js";

/** The organization store as the import writes it: its database (migrated), and the configured roles no custom role may take. */
export interface OrganizationImportStore {
  store: Store;
  roles: RoleTable;
  close(): Promise<void>;
}

/** Opens the store on a database URL (migrating it, as the service does at start). */
export async function openOrganizationImportStore(url: string, roles: RoleTable = DEFAULT_ROLES): Promise<OrganizationImportStore> {
  const store = await openStore(organizationStoreOptions(url));
  return { store, roles, close: () => store.close() };
}

/** Opens the store the organization service would, from the same environment (ORGANIZATION_DATABASE_URL, ORGANIZATION_ROLES). */
export async function openOrganizationImportStoreFromEnv(source: Record<string, string | undefined> = process.env): Promise<OrganizationImportStore> {
  const config = organizationConfig(source);
  return openOrganizationImportStore(config.databaseUrl, config.roles);
}

/** Keeps the converted records, reporting the refused rows and the notes of the kept ones. */
function keep<R extends { id: string }, T>(report: OrganizationImportReport, kind: ImportKind, rows: R[] | undefined, convert: (row: R) => Converted<T>): { row: R; record: T }[] {
  const kept: { row: R; record: T }[] = [];
  for (const row of rows ?? []) {
    const result = convert(row);
    if ("reason" in result) skip(report, kind, String(row.id), result.reason);
    else {
      note(report, kind, row.id, result.notes);
      kept.push({ row, record: result.record });
    }
  }
  return kept;
}

/**
 * Imports one batch in one transaction, keeping the source's ids. Idempotent: a rerun updates what an
 * earlier one wrote. Rows may refer to rows of this batch or of earlier batches, so a command sends
 * organizations before the rows that name them (and teams and members before team members). Users are
 * not checked: identity owns them, and its import may come in any order.
 */
export async function importOrganizationRows(target: OrganizationImportStore, rows: BetterAuthOrganizationRows, now: Date = new Date()): Promise<OrganizationImportReport> {
  const report = emptyReport();
  const configured = new Set(Object.keys(target.roles));
  const members = keep(report, "member", rows.members, convertMember);
  const batch: ConvertedBatch = {
    organizations: keep(report, "organization", rows.organizations, convertOrganization).map((k) => k.record),
    members: members.map((k) => k.record),
    teams: keep(report, "team", rows.teams, convertTeam).map((k) => k.record),
    places: [
      ...keep(report, "teamMember", rows.teamMembers, (row) => convertTeamMember(row, now)).map((k) => k.record),
      ...members.flatMap(({ row, record }) => placesOfMember(record, row.teamId)),
    ],
    invitations: keep(report, "invitation", rows.invitations, convertInvitation).map((k) => k.record),
    roles: keep(report, "role", rows.roles, (row) => convertRole(row, configured)).map((k) => k.record),
  };
  const written = emptyReport();
  await target.store.em().transactional((em) => writeBatch(em, batch, written));
  return { counts: merged(report.counts, written.counts), skipped: [...report.skipped, ...written.skipped], notes: report.notes };
}

function merged(a: OrganizationImportReport["counts"], b: OrganizationImportReport["counts"]): OrganizationImportReport["counts"] {
  const counts = { ...a };
  for (const kind of Object.keys(b) as ImportKind[]) {
    counts[kind] = { created: a[kind].created + b[kind].created, updated: a[kind].updated + b[kind].updated, skipped: a[kind].skipped + b[kind].skipped };
  }
  return counts;
}
