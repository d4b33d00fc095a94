/**
 * Many rows written in a few INSERT ... ON CONFLICT statements through the store's connection, and the
 * lookups around them, for bulk writes (an import's pages): no entity is made or mapped for a row, and no
 * value is written into the SQL text (docs/adr/0079-importing-a-better-auth-database.md). On PostgreSQL a
 * page is one statement over one bound array per column (`unnest`, `= any`), so its text is the same for
 * every page; on SQLite, bound parameters (sqlite-statements.ts binds them as MikroORM's SQLite platform
 * writes them).
 */
import type { EntityMetadata, EntitySchema } from "@mikro-orm/core";
import { type EntityManager, SqlitePlatform } from "@mikro-orm/sql";
import { CompiledQuery } from "kysely";

/** What a row already stored under the same key becomes. */
export type OnConflict =
  /** Left as it is. */
  | { ignore: true }
  /** Its `merge` columns replaced by the new row's: always, or only where the stored `newerBy` is older than the new one's. */
  | { merge: readonly string[]; newerBy?: string };

export interface BulkInsert<Row extends object> {
  /** The entity written (its table and column names come from its metadata). */
  // biome-ignore lint/suspicious/noExplicitAny: any entity; only its metadata is read.
  entity: any;
  /** The properties of each row written. */
  properties: readonly (keyof Row & string)[];
  /** The properties of the unique key a conflict is detected on. */
  conflict: readonly (keyof Row & string)[];
  onConflict: OnConflict;
}

/** Below SQLite's 32,766 bound parameters per statement. */
const MAX_SQLITE_PARAMETERS = 30_000;

/** A kysely client or transaction: runs a query with its parameters bound (MikroORM's execute writes them into the text). */
interface QueryRunner {
  executeQuery(query: CompiledQuery): Promise<{ rows: unknown[] }>;
}

/** The em's open transaction, or its connection's client. */
function runnerOf(em: EntityManager): QueryRunner {
  return (em.getTransactionContext() ?? em.getConnection().getClient()) as unknown as QueryRunner;
}

const columnOf = (meta: EntityMetadata, property: string) => `"${meta.properties[property]!.fieldNames[0]}"`;

/** A bound array of the property's column type, without its length (a cast to varchar(n) would cut, where an insert refuses). */
const arrayOf = (meta: EntityMetadata, property: string, parameter: number) => `$${parameter}::${meta.properties[property]!.columnTypes[0]!.replace(/\(.*\)$/, "")}[]`;

const isSqlite = (em: EntityManager) => em.getPlatform() instanceof SqlitePlatform;

export interface BulkLookup<Row extends object, Read extends keyof Row & string> {
  // biome-ignore lint/suspicious/noExplicitAny: the schema's base entity type plays no part in a read.
  entity: EntitySchema<Row, any>;
  /** The properties read from each row found. */
  properties: readonly Read[];
  /** The property whose value is looked up. */
  by: keyof Row & string;
}

/** The rows whose `by` is one of `values` (their `properties`, as plain data), on `em`'s connection or transaction. */
export async function bulkLookup<Row extends object, Read extends keyof Row & string>(
  em: EntityManager,
  spec: BulkLookup<Row, Read>,
  values: readonly unknown[],
): Promise<Array<Pick<Row, Read>>> {
  if (!values.length) return [];
  const meta: EntityMetadata = em.getMetadata().get(spec.entity);
  const head = `select ${spec.properties.map((p) => `${columnOf(meta, p)} as "${p}"`).join(", ")} from "${meta.tableName}" where ${columnOf(meta, spec.by)}`;
  if (!isSqlite(em)) {
    const { rows } = await runnerOf(em).executeQuery(CompiledQuery.raw(`${head} = any(${arrayOf(meta, spec.by, 1)})`, [values]));
    return rows as Array<Pick<Row, Read>>;
  }
  const found: Array<Pick<Row, Read>> = [];
  for (let start = 0; start < values.length; start += MAX_SQLITE_PARAMETERS) {
    found.push(...((await em.execute(`${head} in (?)`, [values.slice(start, start + MAX_SQLITE_PARAMETERS)], "all")) as Array<Pick<Row, Read>>));
  }
  return found;
}

/** Writes `rows` (their `properties`) on `em`'s connection, or in its transaction when one is open. */
export async function bulkInsert<Row extends object>(em: EntityManager, spec: BulkInsert<Row>, rows: readonly Row[]): Promise<void> {
  if (!rows.length) return;
  const meta: EntityMetadata = em.getMetadata().get(spec.entity);
  const column = (property: string) => columnOf(meta, property);
  const table = `"${meta.tableName}"`;
  let onConflict = "do nothing";
  if ("merge" in spec.onConflict) {
    const { merge, newerBy } = spec.onConflict;
    onConflict = `do update set ${merge.map((p) => `${column(p)} = excluded.${column(p)}`).join(", ")}`;
    if (newerBy) onConflict += ` where ${table}.${column(newerBy)} < excluded.${column(newerBy)}`;
  }
  const head = `insert into ${table} (${spec.properties.map(column).join(", ")}) `;
  const tail = ` on conflict (${spec.conflict.map(column).join(", ")}) ${onConflict}`;
  if (!isSqlite(em)) {
    const arrays = spec.properties.map((property, at) => arrayOf(meta, property, at + 1));
    // Dates as ISO text: the same instant, written natively rather than by pg's field-by-field local-time formatting.
    const values = spec.properties.map((property) =>
      rows.map((row) => {
        const value = row[property];
        return value instanceof Date ? value.toISOString() : value;
      }),
    );
    await runnerOf(em).executeQuery(CompiledQuery.raw(`${head}select * from unnest(${arrays.join(", ")})${tail}`, values));
    return;
  }
  const placeholders = `(${spec.properties.map(() => "?").join(", ")})`;
  const perStatement = Math.max(1, Math.floor(MAX_SQLITE_PARAMETERS / spec.properties.length));
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    await em.execute(
      `${head}values ${chunk.map(() => placeholders).join(", ")}${tail}`,
      chunk.flatMap((row) => spec.properties.map((p) => row[p])),
      "run",
    );
  }
}
