/**
 * When a process runs its database migrations (MIGRATIONS): `run` at every start (the default: make dev,
 * npm start, tests), `skip` when a deployment runs them beforehand (the chart's pre-install/pre-upgrade
 * Job), in which case the store only checks that none is pending; `only` for that Job itself (`node
 * dist/<svc>.js migrate`): the first store opened runs them and the start stops there (MigrationsDone).
 *
 * Its own module, apart from store.ts, so that main.ts (which every process runs, the gateway too) does
 * not load MikroORM into a process that has no database.
 */
export type MigrationMode = "run" | "skip" | "only";
let mode: MigrationMode = "run";

export function setMigrationMode(next: MigrationMode): void {
  mode = next;
}
export const migrationMode = (): MigrationMode => mode;

/** Thrown by openStore in `only` mode once the migrations ran: the process has nothing more to do. */
export class MigrationsDone extends Error {
  constructor() {
    super("migrations done");
    this.name = "MigrationsDone";
  }
}
