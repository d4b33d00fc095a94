/**
 * Where a database stands against this release's migrations, for `migrate --plan` (what would run) and
 * `migrate --check` (whether this release and the one beside it can both serve on it, docs/upgrades.md).
 */
import type { MikroORM } from "@mikro-orm/sql";
import { isContract, type MigrationEntry, statementsOf } from "./migration-rule.js";

export interface SchemaState {
  /** Applied migrations this release knows. */
  applied: string[];
  /** This release's migrations not applied yet (behind). */
  pending: MigrationEntry[];
  /** Applied migrations this release does not know: a newer release ran them (ahead). */
  unknown: string[];
}

export async function schemaState(orm: MikroORM, migrations: MigrationEntry[]): Promise<SchemaState> {
  const executed = new Set((await orm.migrator.getExecuted()).map((m) => m.name));
  const known = new Set(migrations.map((m) => m.name));
  return {
    applied: migrations.filter((m) => executed.has(m.name)).map((m) => m.name),
    pending: migrations.filter((m) => !executed.has(m.name)),
    unknown: [...executed].filter((name) => !known.has(name)),
  };
}

/**
 * Why this release and the other one on this database cannot both serve, one line each. Ahead: a newer
 * release's contract migration dropped what this one may read (expand-only ones are fine). Behind: a
 * pending migration older than the rule that needs the processes replaced together, on a database already
 * in use (a fresh one has no previous release serving on it).
 */
export function compatibilityProblems(state: SchemaState): string[] {
  const problems = state.unknown
    .filter(isContract)
    .map((name) => `ahead: ${name} is a contract migration of a newer release; this release may read what it dropped (deploy that release or a later one)`);
  if (state.applied.length + state.unknown.length > 0) {
    for (const m of state.pending) {
      if (m.replaceTogether)
        problems.push(`behind: ${m.name} cannot run under a rolling upgrade (${m.replaceTogether}): stop every process of the service and its gateways first, then migrate`);
    }
  }
  return problems;
}

/** The plan in words: the counts, then each pending migration with the SQL it will run. */
export async function planText(state: SchemaState, config: { get(key: string): unknown }): Promise<string> {
  const lines = [`${state.applied.length} applied, ${state.pending.length} pending, ${state.unknown.length} applied by a newer release`];
  for (const name of state.unknown) lines.push(`  newer ${name}${isContract(name) ? " (contract)" : ""}`);
  for (const m of state.pending) {
    lines.push(`  pending ${m.name}${m.replaceTogether ? " (replace processes together)" : ""}`);
    const statements = await statementsOf(m, config);
    if (statements === null) lines.push("    (runs code: see its class)");
    else for (const sql of statements) lines.push(`    ${sql.replace(/\s+/g, " ").trim()};`);
  }
  return lines.join("\n");
}
