/**
 * The compatibility rule's reading of a migration (docs/upgrades.md): release N+1's migrations run while
 * release N still serves on the same database, so they only expand the schema (new tables, nullable or
 * defaulted columns, indexes built without blocking writes). A contract migration (a drop) says so in its
 * name and ships a release after the code stopped reading what it drops; a rename never does.
 */
import type { Migration } from "@mikro-orm/migrations";

// biome-ignore lint/suspicious/noExplicitAny: MikroORM constructs migrations with arguments of its own.
type MigrationClass = new (...args: any[]) => Migration;

export interface MigrationEntry {
  name: string;
  class: MigrationClass;
  /**
   * Why the previous release cannot serve while this migration runs or after it (a released migration older
   * than the rule, docs/upgrades.md#history): `migrate --check` refuses to roll it into a database in use.
   */
  replaceTogether?: string;
}

/** A contract migration's name says so: `0012-contract-drop-session-token`. */
export const isContract = (name: string): boolean => /(^|-)contract-/.test(name);

/**
 * The SQL an addSql-only migration would run on the database `config` names (migrations read its
 * clientUrl to choose a dialect's statements), or null when its up() runs statements itself (a code
 * migration, older than the rule: its SQL is not known before it runs). Nothing reaches a database.
 */
export async function statementsOf(entry: MigrationEntry, config: { get(key: string): unknown }): Promise<string[] | null> {
  const driver = new Proxy(
    {},
    {
      get: () => {
        throw new RunsCode();
      },
    },
  );
  const migration = new entry.class(driver, { get: (key: string) => config.get(key) });
  try {
    await migration.up();
  } catch (error) {
    if (error instanceof RunsCode) return null;
    throw error;
  }
  return migration.getQueries().map((query) => String(query));
}

/** The configuration statementsOf reads PostgreSQL's statements with: production's dialect. */
export const POSTGRESQL_CONFIG = { get: (key: string) => (key === "clientUrl" ? "postgresql://127.0.0.1/plan" : undefined) };

class RunsCode extends Error {}

/**
 * What in a migration breaks the rule, one line each; empty when it keeps it. `statements` null (a code
 * migration) breaks it: the rule needs SQL that can be read before it runs.
 */
export function ruleBreaches(entry: MigrationEntry, statements: string[] | null): string[] {
  if (statements === null) return ["runs code instead of plain SQL (addSql): its statements cannot be checked before they run"];
  const transactional = new entry.class(undefined, undefined).isTransactional();
  const contract = isContract(entry.name);
  const created = new Set<string>();
  const breaches: string[] = [];
  for (const raw of statements) {
    const sql = raw.replace(/\s+/g, " ").replace(/"/g, "").trim().toLowerCase();
    const newTable = /^create table (?:if not exists )?(\w+)/.exec(sql)?.[1];
    if (newTable) {
      created.add(newTable);
      continue;
    }
    const breach = statementBreach(sql, created, transactional, contract);
    if (breach) breaches.push(`${breach}: ${raw.replace(/\s+/g, " ").trim().slice(0, 160)}`);
  }
  return breaches;
}

function statementBreach(sql: string, created: Set<string>, transactional: boolean, contract: boolean): string | null {
  const table = /^alter table (?:only )?(\w+)/.exec(sql)?.[1];
  if (/\brename\b/.test(sql)) return "renames (release N reads the old name): add the new one, copy, drop the old later";
  if (/^drop table\b/.test(sql) || (table && /\bdrop column\b/.test(sql))) {
    return contract ? null : "drops in a migration not named contract (release N may still read it)";
  }
  if (/^do \$\$/.test(sql)) return "runs a procedural block (its statements cannot be checked before they run)";
  if (table && /\bgenerated always\b.*\bstored\b/.test(sql)) return "adds a stored generated column (rewrites the table under an exclusive lock)";
  if (table && /\balter column \w+ (set not null|type|set data type)\b/.test(sql)) return "changes a column in place (locks and rewrites, release N writes the old shape)";
  if (table && !created.has(table) && /\badd column\b/.test(sql) && /\bnot null\b/.test(sql) && !/\bdefault\b/.test(sql)) {
    return "adds a NOT NULL column without a default (release N's inserts fail)";
  }
  if (table && !created.has(table) && /\badd constraint\b/.test(sql) && !/\bnot valid\b/.test(sql)) return "adds a constraint that scans the table under lock (add it NOT VALID)";
  const index = /^create (?:unique )?index (concurrently )?(?:if not exists )?\w+ on (\w+)/.exec(sql);
  if (index) {
    if (created.has(index[2] ?? "")) return null;
    if (!index[1]) return "indexes an existing table without CONCURRENTLY (blocks its writes while it builds)";
    if (transactional) return "CREATE INDEX CONCURRENTLY cannot run in a transaction: the migration's isTransactional() must return false";
    return null;
  }
  const written = /^(?:update|delete from) (\w+)/.exec(sql)?.[1];
  if (written && !created.has(written)) {
    return "rewrites rows of a table in use (a backfill runs in the background, not in a migration)";
  }
  if (/^lock table\b/.test(sql)) return "locks a table";
  return null;
}
