/**
 * The one store bootstrap: a MikroORM instance for a service, SQLite by default (a file under the data
 * folder, or :memory:) and PostgreSQL when the URL says postgres://. Migrations are real migration classes
 * run at start; the schema is never synced from entities. SQLite is node's built-in node:sqlite, through
 * MikroORM's generic SQLite driver: no native addon to load (libsql's kept 5 to 6 MiB resident in every
 * process on the embedded default, bench/README.md), with parameters bound and statements reused
 * (sqlite-statements.ts).
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { EntitySchema, QueryOrderMap } from "@mikro-orm/core";
import { Migrator } from "@mikro-orm/migrations";
import type { EntityManager, MikroORM, QBFilterQuery } from "@mikro-orm/sql";
import { registerDependency } from "./dependencies.js";
import { rowReader } from "./read-one.js";
import { type DrainablePool, drainable } from "./pg-pool-drain.js";
import { MigrationsDone, migrationMode } from "./migration-mode.js";
import { compatibilityProblems, planText, schemaState } from "./migration-plan.js";
import type { MigrationEntry } from "./migration-rule.js";

export type Dialect = "sqlite" | "postgresql";

export interface StoreOptions {
  url: string;
  // biome-ignore lint/suspicious/noExplicitAny: a store holds entities of every type; EntitySchema is invariant in them.
  entities: EntitySchema<any, any>[];
  migrations: MigrationEntry[];
  /** Connection pool size for PostgreSQL. */
  poolMax?: number;
  /** PostgreSQL: the longest a query waits for a connection (a free pool slot, or a new connection opening). */
  connectTimeoutMs?: number;
  debug?: boolean;
}

export interface Store {
  orm: MikroORM;
  dialect: Dialect;
  /** A fresh EntityManager for one unit of work. */
  em(): EntityManager;
  /**
   * The first row matching `where` (in `orderBy` order) as plain typed data, or null. No entity is made (no
   * identity map, change tracking or hydration): about a third of findOne's CPU, for the read-only lookups
   * on hot paths (a sign-in's user and account).
   */
  // biome-ignore lint/suspicious/noExplicitAny: the schema's base entity type plays no part in a read.
  readOne<Entity extends object>(entity: EntitySchema<Entity, any>, where: QBFilterQuery<Entity>, orderBy?: QueryOrderMap<Entity>): Promise<Entity | null>;
  close(): Promise<void>;
}

/**
 * How long a query waits for a PostgreSQL connection by default. pg waits without limit otherwise: for a
 * pool slot while every connection is taken, and for a server that does not answer (until the kernel's TCP
 * timeout, minutes). Past a gRPC call's deadline (5 s) nobody reads the answer; the query fails instead,
 * and the service's start-up fails rather than hanging when the database is unreachable.
 */
export const PG_CONNECT_TIMEOUT_MS = 5_000;

export function dialectOf(url: string): Dialect {
  return /^postgres(ql)?:\/\//.test(url) ? "postgresql" : "sqlite";
}

export async function openStore(options: StoreOptions): Promise<Store> {
  const dialect = dialectOf(options.url);
  const common = {
    entities: options.entities,
    extensions: [Migrator],
    // Each migration in a transaction of its own rather than all pending ones in one: a migration that builds
    // an index CONCURRENTLY runs outside any (docs/upgrades.md), and would wait forever on an enclosing one.
    migrations: { migrationsList: options.migrations, snapshot: false, silent: true, transactional: true, allOrNothing: false },
    debug: options.debug ?? false,
    allowGlobalContext: false,
  };
  let orm: MikroORM;
  let pool: DrainablePool | undefined;
  if (dialect === "postgresql") {
    const { MikroORM: PgORM } = await import("@mikro-orm/postgresql");
    const pgOrm = await PgORM.init({
      ...common,
      clientUrl: options.url,
      pool: { min: 0, max: options.poolMax ?? 10 },
      driverOptions: { connectionTimeoutMillis: options.connectTimeoutMs ?? PG_CONNECT_TIMEOUT_MS },
    });
    pool = drainable(await pgOrm.em.getConnection().getNativeClient());
    orm = pgOrm as unknown as MikroORM;
  } else {
    if (!process.getBuiltinModule?.("node:sqlite")) {
      throw new Error(`SQLite needs node:sqlite (Node 22.13 or later; the project runs Node 24 through npm: npm start, make dev), and this is Node ${process.versions.node}`);
    }
    const { MikroORM: SqlORM } = await import("@mikro-orm/sql");
    const { BoundSqliteDriver, cachedNodeSqliteDialect } = await import("./sqlite-statements.js");
    const dbName = options.url.replace(/^file:/, "");
    if (dbName !== ":memory:") mkdirSync(dirname(dbName), { recursive: true });
    orm = (await SqlORM.init({ ...common, driver: BoundSqliteDriver, dbName, driverOptions: cachedNodeSqliteDialect(dbName) })) as unknown as MikroORM;
    // WAL lets readers run beside the one writer; busy_timeout waits for the lock instead of failing.
    // synchronous=NORMAL (SQLite's advice for WAL): a commit no longer waits for an fsync on the event loop,
    // only checkpoints do; a process crash loses nothing, a power loss may lose the last commits
    // (docs/adr/0017-sqlite-settings-and-statements.md).
    await orm.em.getConnection().execute("pragma busy_timeout = 5000");
    if (dbName !== ":memory:") {
      await orm.em.getConnection().execute("pragma journal_mode = wal");
      await orm.em.getConnection().execute("pragma synchronous = normal");
    }
  }
  const mode = migrationMode();
  if (mode === "plan" || mode === "check") {
    const state = await schemaState(orm, options.migrations);
    const problems = compatibilityProblems(state);
    await orm.close(true);
    const report = [await planText(state, orm.config), ...problems].join("\n");
    throw new MigrationsDone(report, mode === "check" && problems.length > 0);
  }
  if (mode === "skip") await checkMigrated(orm, options.migrations);
  else await migrate(orm, dialect, options.url, options.migrations);
  if (mode === "only") {
    await orm.close(true);
    throw new MigrationsDone();
  }
  // Reported (auth_dependency_up, a log line) but not required: every replica shares the database, so an
  // outage would take them all out of their Service at once, and callers would meet a connection failure
  // instead of the 503 with Retry-After each replica answers (rpc.ts), and no cached session (session).
  const unregister = registerDependency({ kind: "database", required: false, check: async () => void (await orm.em.getConnection().execute("select 1")) });
  return {
    orm,
    dialect,
    em: () => orm.em.fork() as EntityManager,
    readOne: rowReader(() => orm.em.fork() as EntityManager),
    close: async () => {
      unregister();
      await pool?.drain();
      await orm.close(true);
    },
  };
}

/**
 * A database a newer release contracted (dropped what this one may read): refuse to start, in every mode.
 * Ahead by expand-only migrations is fine, as a rollback needs (docs/upgrades.md).
 */
async function refuseIncompatible(orm: MikroORM, migrations: MigrationEntry[]): Promise<void> {
  const ahead = compatibilityProblems({ ...(await schemaState(orm, migrations)), pending: [] });
  if (ahead.length > 0) {
    await orm.close(true);
    throw new Error(`the database is incompatible with this release: ${ahead.join("; ")}`);
  }
}

/** MIGRATIONS=skip: a pending migration means the migration Job did not run (or failed); refuse to start. */
async function checkMigrated(orm: MikroORM, migrations: MigrationEntry[]): Promise<void> {
  await refuseIncompatible(orm, migrations);
  const pending = await orm.migrator.getPending();
  if (pending.length > 0) {
    await orm.close(true);
    throw new Error(
      `MIGRATIONS=skip but ${pending.length} migration(s) are pending (${pending.map((m) => m.name).join(", ")}): run the migration Job (node dist/<service>.js migrate) first`,
    );
  }
}

/**
 * Runs pending migrations. On PostgreSQL, replicas starting together (an HPA's first rollout) take turns
 * under an advisory lock, held on a connection of its own, so each migration runs once and none fails on
 * a table another replica just created. SQLite is one process's file.
 */
async function migrate(orm: MikroORM, dialect: Dialect, url: string, migrations: MigrationEntry[]): Promise<void> {
  if (dialect !== "postgresql") {
    await refuseIncompatible(orm, migrations);
    await orm.migrator.up();
    return;
  }
  const { default: pg } = await import("pg");
  const lock = new pg.Client({ connectionString: url });
  await lock.connect();
  try {
    await lock.query("select pg_advisory_lock(hashtext($1))", [MIGRATION_LOCK]);
    await refuseIncompatible(orm, migrations);
    await orm.migrator.up();
  } finally {
    await lock.end();
  }
}

const MIGRATION_LOCK = "auth-platform:migrations";

/** Whether an error is a unique-constraint violation, on either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { name?: string; code?: string; message?: string };
  return e?.name === "UniqueConstraintViolationException" || e?.code === "23505" || /UNIQUE constraint failed|duplicate key value/i.test(e?.message ?? "");
}
