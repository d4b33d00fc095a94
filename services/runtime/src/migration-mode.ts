/**
 * When a process runs its database migrations (MIGRATIONS): `run` at every start (the default: make dev,
 * npm start, tests), `skip` when a deployment runs them beforehand (the chart's pre-install/pre-upgrade
 * Job), in which case the store only checks that none is pending; `only` for that Job itself (`node
 * dist/<svc>.js migrate`): the first store opened runs them and the start stops there (MigrationsDone);
 * `plan` and `check` (`migrate --plan`, `migrate --check`) stop there too, having changed nothing: the
 * first prints what would run, the second fails when this release cannot serve on the database beside
 * the other one (migration-plan.ts, docs/upgrades.md).
 *
 * Its own module, apart from store.ts, so that main.ts (which every process runs, the gateway too) does
 * not load MikroORM into a process that has no database.
 */
export type MigrationMode = "run" | "skip" | "only" | "plan" | "check";
let mode: MigrationMode = "run";

export function setMigrationMode(next: MigrationMode): void {
  mode = next;
}
export const migrationMode = (): MigrationMode => mode;

/**
 * Thrown by openStore in `only`, `plan` and `check` modes once done: the process has nothing more to do
 * than print `report` and exit, 1 when `failed` (a check that found a problem).
 */
export class MigrationsDone extends Error {
  constructor(
    readonly report = "migrations done",
    readonly failed = false,
  ) {
    super(report);
    this.name = "MigrationsDone";
  }
}
