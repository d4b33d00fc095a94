/**
 * Many rows written in a few multi-row INSERT ... ON CONFLICT statements through the store's connection,
 * for bulk writes (an import's pages): no entity is made or mapped for a row, which cost the import most of
 * its CPU (docs/adr/0079-importing-a-better-auth-database.md). The values are bound as the query builder
 * binds them (dates, booleans), on SQLite and PostgreSQL alike.
 */
import type { EntityManager } from "@mikro-orm/sql";

/** What a row already stored under the same key becomes. */
export type OnConflict =
  /** Left as it is. */
  | { ignore: true }
  /** Its `columns` replaced by the new row's, only where the stored `newerBy` is older than the new one's. */
  | { merge: readonly string[]; newerBy: string };

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

/** Below SQLite's 32,766 bound parameters per statement (PostgreSQL takes 65,535). */
const MAX_PARAMETERS = 30_000;

/** Writes `rows` (their `properties`) on `em`'s connection, or in its transaction when one is open. */
export async function bulkInsert<Row extends object>(em: EntityManager, spec: BulkInsert<Row>, rows: readonly Row[]): Promise<void> {
  if (!rows.length) return;
  const meta = em.getMetadata().get(spec.entity);
  const column = (property: string) => `"${meta.properties[property]!.fieldNames[0]}"`;
  const table = `"${meta.tableName}"`;
  const onConflict =
    "ignore" in spec.onConflict
      ? "do nothing"
      : `do update set ${spec.onConflict.merge.map((p) => `${column(p)} = excluded.${column(p)}`).join(", ")} where ${table}.${column(spec.onConflict.newerBy)} < excluded.${column(spec.onConflict.newerBy)}`;
  const head = `insert into ${table} (${spec.properties.map(column).join(", ")}) values `;
  const tail = ` on conflict (${spec.conflict.map(column).join(", ")}) ${onConflict}`;
  const placeholders = `(${spec.properties.map(() => "?").join(", ")})`;
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / spec.properties.length));
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    await em.execute(
      `${head}${chunk.map(() => placeholders).join(", ")}${tail}`,
      chunk.flatMap((row) => spec.properties.map((p) => row[p])),
      "run",
    );
  }
}
