/**
 * The import itself (docs/adr/0079-importing-a-better-auth-database.md): reads the source table by table in
 * pages and hands each page to the import module of the service that owns that kind of row, opened
 * through the service's own config loader (its DATABASE_URL, AUTH_SECRET, two-factor keys). Every write is
 * keyed by the source's ids, so running it again doubles nothing and a stopped run finishes when rerun.
 */
import { ConfigError } from "@auth-platform/runtime/config";
import { type ImportedUser, type ImportOutcome, emptyOutcome, skip } from "@auth-platform/runtime/imported-rows";
import { identityConfig } from "@auth-platform/identity/config";
import { type IdentityImport, openIdentityImport } from "@auth-platform/identity/import/identity-import";
import type { BetterAuthSecrets } from "@auth-platform/identity/import/better-auth-cipher";
import { sessionConfig } from "@auth-platform/session/config";
import { openSessionImport, type SessionImport } from "@auth-platform/session/import/session-import";
import {
  type BetterAuthOrganizationRows,
  importOrganizationRows,
  type OrganizationImportReport,
  type OrganizationImportStore,
  openOrganizationImportStoreFromEnv,
} from "@auth-platform/organization/import/organization-import";
import { checkSchema, type SchemaCheck, toAccount, toSession, toTwoFactor, toUser } from "./schema.js";
import { type Join, openSource, type Source, type SourceRow } from "./source.js";

/**
 * Each target service's import module, opened on first need and kept for the whole run (one store, one
 * migration check per service), closed when the run ends.
 */
interface Targets {
  identity(): Promise<IdentityImport>;
  session(): Promise<SessionImport>;
  organization(): Promise<OrganizationImportStore>;
  close(): Promise<void>;
}

function targetsFor(env: Record<string, string | undefined>, secrets: BetterAuthSecrets): Targets {
  const opened: Array<Promise<{ close(): Promise<void> }>> = [];
  const once = <T extends { close(): Promise<void> }>(open: () => Promise<T>) => {
    let target: Promise<T> | undefined;
    return () => {
      if (!target) {
        target = open();
        opened.push(target);
      }
      return target;
    };
  };
  return {
    identity: once(() => openIdentityImport(identityConfig(env), secrets)),
    session: once(() => openSessionImport(sessionConfig(env))),
    organization: once(() => openOrganizationImportStoreFromEnv(env)),
    async close() {
      // A target that failed to open has nothing to close.
      for (const result of await Promise.allSettled(opened)) if (result.status === "fulfilled") await result.value.close();
    },
  };
}

/** What a kind's importer gets besides its pages: the source (read by `finish`, once the pages are done), the schema found and the targets. */
export interface ImportContext {
  source: Source;
  /** The rows of a page (--batch-size). */
  batchSize: number;
  schema: SchemaCheck;
  targets: Targets;
  toUser(row: SourceRow): ReturnType<typeof toUser>;
}

export interface KindWriter {
  write(rows: SourceRow[]): Promise<ImportOutcome>;
  /** After every page of the source: removes here what earlier runs imported and the source no longer has; returns how many. */
  finish?(): Promise<number>;
}

/**
 * One kind of row: the source table it is read from and the writer that takes its pages. `open` is not
 * called on a dry run. Order matters: a kind's rows refer to those of the kinds before it.
 */
export interface KindImporter {
  kind: string;
  table: string;
  /** A related row read with each of this kind's rows (in the same query). */
  join?: Join;
  /**
   * Its pages do not depend on each other: the next is written while this one is, so the importer's CPU
   * and the target database's overlap. Not for kinds whose writes read what an earlier page wrote.
   */
  overlap?: boolean;
  open(context: ImportContext): Promise<KindWriter>;
  /** What a dry run can tell of a page without the target (rows the writer would leave out, by reason). */
  inspect?(rows: SourceRow[]): ImportOutcome;
}

const expiredSessions = (rows: SourceRow[]): ImportOutcome => {
  const outcome = emptyOutcome();
  const now = Date.now();
  const expired = rows.filter((row) => toSession(row).expiresAt.getTime() <= now).length;
  skip(outcome, "sessions: expired", expired);
  outcome.written = rows.length - expired;
  return outcome;
};

/** One organization report as the command's outcome: the kind's rows written (created or updated) and the refused ones by reason. */
function organizationOutcome(report: OrganizationImportReport, kind: keyof OrganizationImportReport["counts"]): ImportOutcome {
  const outcome: ImportOutcome = { written: report.counts[kind].created + report.counts[kind].updated, skipped: {} };
  for (const refused of report.skipped) skip(outcome, `${refused.kind}: ${refused.reason}`);
  return outcome;
}

/**
 * A kind of the organization plugin's rows. The organization module reads better-auth's own column names and
 * either driver's dates, so a source row is handed to it as it is.
 */
function organizationImporter(kind: string, table: string, field: keyof BetterAuthOrganizationRows, counted: keyof OrganizationImportReport["counts"]): KindImporter {
  return {
    kind,
    table,
    async open(context) {
      const target = await context.targets.organization();
      return { write: async (rows) => organizationOutcome(await importOrganizationRows(target, { [field]: rows } as BetterAuthOrganizationRows), counted) };
    },
  };
}

/**
 * Every kind this import moves, in order. The organization plugin's (when the source has it) come after
 * users: organizations first, then teams and members before the team members that name both.
 */
export const IMPORTERS: KindImporter[] = [
  {
    kind: "users",
    overlap: true,
    table: "user",
    async open(context) {
      const writer = await context.targets.identity();
      return { write: (rows) => writer.importUsers(rows.map(context.toUser)) };
    },
  },
  {
    kind: "accounts",
    overlap: true,
    table: "account",
    async open(context) {
      const writer = await context.targets.identity();
      return { write: (rows) => writer.importAccounts(rows.map(toAccount)) };
    },
  },
  {
    kind: "two-factor",
    table: "twoFactor",
    async open(context) {
      const writer = await context.targets.identity();
      return { write: (rows) => writer.importTwoFactors(rows.map(toTwoFactor)) };
    },
  },
  {
    kind: "sessions",
    overlap: true,
    table: "session",
    // Its user's row comes with each session: the session service keeps a copy of the user with the session.
    join: { table: "user", column: "userId", as: "user" },
    inspect: expiredSessions,
    async open(context) {
      const writer = await context.targets.session();
      // Only users identity holds: one skipped there (an email taken by another user) gets no session here.
      const identity = await context.targets.identity();
      return {
        async write(rows) {
          const present = await identity.presentUsers([...new Set(rows.map((row) => String(row.userId)))]);
          const users = new Map<string, ImportedUser>();
          for (const { user } of rows) {
            const id = user ? String((user as SourceRow).id) : undefined;
            if (id && present.has(id) && !users.has(id)) users.set(id, context.toUser(user as SourceRow));
          }
          return writer.importSessions(rows.map(toSession), users);
        },
        // A session the old app ended (signed out, revoked) since an earlier run ends here too: one earlier
        // runs imported, this run did not see, whose user the source still has (not a session of another source).
        async finish() {
          let ended = 0;
          let after: string | null = null;
          for (;;) {
            const unseen = await writer.unseenSessions(after, context.batchSize);
            if (!unseen.length) return ended;
            const users = await context.source.existing("user", [...new Set(unseen.map((s) => s.userId))]);
            ended += await writer.endSessions(unseen.filter((s) => users.has(s.userId)).map((s) => s.sessionId));
            after = unseen[unseen.length - 1]!.sessionId;
          }
        },
      };
    },
  },
  organizationImporter("organizations", "organization", "organizations", "organization"),
  organizationImporter("organization roles", "organizationRole", "roles", "role"),
  organizationImporter("teams", "team", "teams", "team"),
  organizationImporter("members", "member", "members", "member"),
  organizationImporter("team members", "teamMember", "teamMembers", "teamMember"),
  organizationImporter("invitations", "invitation", "invitations", "invitation"),
  {
    // Pending email verifications, password resets and the like: their tokens are better-auth's own
    // (unhashed identifiers, JWTs) and no link better-auth mailed leads here, so they are counted, not moved.
    kind: "verifications",
    table: "verification",
    inspect: (rows) => ({ written: 0, skipped: { "verifications: pending links of the old app (users ask for a new one)": rows.length } }),
    async open() {
      return { write: async (rows) => ({ written: 0, skipped: { "verifications: pending links of the old app (users ask for a new one)": rows.length } }) };
    },
  },
];

type PageResult = { outcome: ImportOutcome } | { error: unknown };

/**
 * Writes a kind's pages, up to `depth` at once (each in its own transaction), and counts each page's
 * outcome in order. A page that failed beside another (both claiming one unique key, a deadlock) is
 * written again alone once the others are done: writes are keyed by the source's ids, so nothing doubles.
 * Failing alone, it stops the import.
 */
function pageWriter(writer: KindWriter, depth: number, count: (rows: SourceRow[], outcome: ImportOutcome) => void) {
  const pending: Array<{ rows: SourceRow[]; result: Promise<PageResult> }> = [];
  const attempt = (rows: SourceRow[]): Promise<PageResult> =>
    writer.write(rows).then(
      (outcome) => ({ outcome }),
      (error: unknown) => ({ error }),
    );
  const settle = async () => {
    const page = pending.shift()!;
    let result = await page.result;
    if ("error" in result && depth > 1) {
      for (const other of pending) await other.result;
      result = await attempt(page.rows);
    }
    if ("error" in result) throw result.error;
    count(page.rows, result.outcome);
  };
  return {
    /** Starts writing `rows`; resolves when fewer than `depth` pages are being written. */
    async add(rows: SourceRow[]) {
      pending.push({ rows, result: attempt(rows) });
      if (pending.length >= depth) await settle();
    },
    /** Resolves when every page is written. */
    async finish() {
      while (pending.length) await settle();
    },
  };
}

export interface ImportOptions {
  from: string;
  env: Record<string, string | undefined>;
  secrets: BetterAuthSecrets;
  dryRun?: boolean;
  batchSize?: number;
  importers?: KindImporter[];
  progress?: (done: number, total: number, kind: string) => void;
}

export interface KindSummary {
  kind: string;
  read: number;
  written: number;
  skipped: Record<string, number>;
  /** Imported by an earlier run and no longer in the source: removed here. */
  removed: number;
}

export interface ImportSummary {
  dryRun: boolean;
  kinds: KindSummary[];
  ignoredUserColumns: string[];
}

export const DEFAULT_BATCH_SIZE = 2000;

export async function importBetterAuth(options: ImportOptions): Promise<ImportSummary> {
  const importers = options.importers ?? IMPORTERS;
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const source = await openSource(options.from);
  const targets = targetsFor(options.env, options.secrets);
  try {
    const fieldConfig = identityConfig(options.env).userFields;
    const schema = checkSchema(await source.tables(), Object.keys(fieldConfig));
    const extra = schema.extraFields.map((name) => ({ name, type: fieldConfig[name]!.type }));
    const context: ImportContext = { source, batchSize, schema, targets, toUser: (row) => toUser(row, extra) };
    const present = importers.filter((importer) => schema.present.has(importer.table));
    // One after the other: the PostgreSQL source is one connection.
    let total = 0;
    for (const importer of present) total += await source.count(importer.table);
    let done = 0;
    const kinds: KindSummary[] = [];
    for (const importer of present) {
      const summary: KindSummary = { kind: importer.kind, read: 0, written: 0, skipped: {}, removed: 0 };
      kinds.push(summary);
      const writer = options.dryRun ? undefined : await importer.open(context);
      const count = (rows: SourceRow[], outcome: ImportOutcome) => {
        summary.read += rows.length;
        summary.written += outcome.written;
        for (const [reason, count] of Object.entries(outcome.skipped)) summary.skipped[reason] = (summary.skipped[reason] ?? 0) + count;
        done += rows.length;
        options.progress?.(done, total, importer.kind);
      };
      const pages = writer ? pageWriter(writer, importer.overlap ? 2 : 1, count) : undefined;
      // The next page is read while this one is written: the source and the targets are different databases.
      let next = source.page(importer.table, null, batchSize, importer.join);
      for (;;) {
        const rows = await next;
        if (!rows.length) break;
        next = rows.length < batchSize ? Promise.resolve([]) : source.page(importer.table, String(rows[rows.length - 1]!.id), batchSize, importer.join);
        // Handled here too: if this page's write fails, the read in flight must not crash the process.
        next.catch(() => undefined);
        if (pages) await pages.add(rows);
        else count(rows, importer.inspect?.(rows) ?? { written: rows.length, skipped: {} });
      }
      await pages?.finish();
      summary.removed = (await writer?.finish?.()) ?? 0;
    }
    return { dryRun: options.dryRun ?? false, kinds, ignoredUserColumns: schema.ignoredUserColumns };
  } finally {
    await targets.close();
    await source.close();
  }
}

/** The summary as an operator reads it: one line per kind, then the rows left out and why. */
export function formatSummary(summary: ImportSummary): string {
  const lines = [summary.dryRun ? "dry run: nothing was written" : "import done"];
  for (const kind of summary.kinds) {
    const skipped = Object.values(kind.skipped).reduce((a, b) => a + b, 0);
    const removed = kind.removed ? `, ${kind.removed} removed (no longer in the source)` : "";
    lines.push(`  ${kind.kind}: ${kind.read} read, ${kind.written} ${summary.dryRun ? "to write" : "written"}, ${skipped} skipped${removed}`);
    for (const [reason, count] of Object.entries(kind.skipped)) lines.push(`    ${count} ${reason}`);
  }
  if (summary.ignoredUserColumns.length) lines.push(`  user columns not imported (not in IDENTITY_USER_FIELDS): ${summary.ignoredUserColumns.join(", ")}`);
  return `${lines.join("\n")}\n`;
}

/** The old app's secrets from BETTER_AUTH_SECRET and BETTER_AUTH_SECRETS ("version:secret,..."). */
export function secretsFromEnv(env: Record<string, string | undefined>): { secret: string; versions: Map<number, string> } {
  const secret = env.BETTER_AUTH_SECRET ?? "";
  const versions = new Map<number, string>();
  for (const entry of (env.BETTER_AUTH_SECRETS ?? "").split(",").filter((e) => e.trim())) {
    const colon = entry.indexOf(":");
    const version = Number(entry.slice(0, colon).trim());
    if (colon <= 0 || !Number.isInteger(version)) throw new ConfigError([`BETTER_AUTH_SECRETS: entries must be version:secret (entry ${versions.size + 1})`]);
    versions.set(version, entry.slice(colon + 1));
  }
  if (!secret && !versions.size) throw new ConfigError(["BETTER_AUTH_SECRET: the old app's secret is needed to open its two-factor secrets and encrypted tokens"]);
  return { secret, versions };
}
