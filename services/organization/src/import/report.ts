/** What one batch of the import did, per kind of row (docs/importing-organizations.md). */

export const IMPORT_KINDS = ["organization", "member", "invitation", "team", "teamMember", "role"] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

export interface OrganizationImportReport {
  /** created: new here; updated: there already (from an earlier run), written again from the source row. */
  counts: Record<ImportKind, { created: number; updated: number; skipped: number }>;
  /** Rows not written, with why. */
  skipped: { kind: ImportKind; id: string; reason: string }[];
  /** Rows written with a change the store's shape required (metadata re-encoded, permissions dropped). */
  notes: { kind: ImportKind; id: string; note: string }[];
}

export function emptyReport(): OrganizationImportReport {
  return {
    counts: Object.fromEntries(IMPORT_KINDS.map((kind) => [kind, { created: 0, updated: 0, skipped: 0 }])) as OrganizationImportReport["counts"],
    skipped: [],
    notes: [],
  };
}

export function skip(report: OrganizationImportReport, kind: ImportKind, id: string, reason: string): void {
  report.counts[kind].skipped++;
  report.skipped.push({ kind, id, reason });
}

export function note(report: OrganizationImportReport, kind: ImportKind, id: string, notes: string[]): void {
  for (const text of notes) report.notes.push({ kind, id, note: text });
}
