/**
 * Reads a better-auth database: a SQLite file (node:sqlite) or PostgreSQL (pg), table by table in pages
 * ordered by id (keyset: each page starts after the last id of the one before, so a million rows cost no
 * OFFSET scans and no more memory than one page). Read-only: nothing is written to the source.
 */
import type { DatabaseSync } from "node:sqlite";
import pg from "pg";

export type SourceRow = Record<string, unknown>;

export interface Source {
  dialect: "sqlite" | "postgresql";
  /** Every table and its columns. */
  tables(): Promise<Map<string, Set<string>>>;
  count(table: string): Promise<number>;
  /** Up to `limit` rows with an id after `afterId` (all when null), by id. */
  page(table: string, afterId: string | null, limit: number): Promise<SourceRow[]>;
  /** The rows whose `column` is one of `values`. */
  where(table: string, column: string, values: string[]): Promise<SourceRow[]>;
  close(): Promise<void>;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The source a --from value names: postgres:// or postgresql:// URLs, otherwise a SQLite file (file: optional). */
export async function openSource(from: string): Promise<Source> {
  return /^postgres(ql)?:\/\//.test(from) ? openPostgres(from) : openSqlite(from.replace(/^file:/, ""));
}

async function openSqlite(file: string): Promise<Source> {
  const { DatabaseSync: Database } = process.getBuiltinModule("node:sqlite") as typeof import("node:sqlite");
  const db: DatabaseSync = new Database(file, { readOnly: true });
  return {
    dialect: "sqlite",
    async tables() {
      const found = new Map<string, Set<string>>();
      for (const { name } of db.prepare("select name from sqlite_master where type = 'table'").all() as Array<{ name: string }>) {
        const columns = db.prepare(`pragma table_info(${quote(name)})`).all() as Array<{ name: string }>;
        found.set(name, new Set(columns.map((c) => c.name)));
      }
      return found;
    },
    count: async (table) => Number((db.prepare(`select count(*) as n from ${quote(table)}`).get() as { n: number }).n),
    page: async (table, afterId, limit) =>
      (afterId === null
        ? db.prepare(`select * from ${quote(table)} order by "id" limit ?`).all(limit)
        : db.prepare(`select * from ${quote(table)} where "id" > ? order by "id" limit ?`).all(afterId, limit)) as SourceRow[],
    where: async (table, column, values) =>
      values.length ? (db.prepare(`select * from ${quote(table)} where ${quote(column)} in (${values.map(() => "?").join(",")})`).all(...values) as SourceRow[]) : [],
    close: async () => db.close(),
  };
}

async function openPostgres(url: string): Promise<Source> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    dialect: "postgresql",
    async tables() {
      const { rows } = await client.query<{ table_name: string; column_name: string }>(
        "select table_name, column_name from information_schema.columns where table_schema = current_schema()",
      );
      const found = new Map<string, Set<string>>();
      for (const row of rows) {
        const columns = found.get(row.table_name) ?? new Set<string>();
        columns.add(row.column_name);
        found.set(row.table_name, columns);
      }
      return found;
    },
    count: async (table) => Number((await client.query<{ n: string }>(`select count(*) as n from ${quote(table)}`)).rows[0]!.n),
    // The comparison and the order use the same collation, so pages neither overlap nor skip, on the id index.
    page: async (table, afterId, limit) =>
      (afterId === null
        ? await client.query(`select * from ${quote(table)} order by "id" limit $1`, [limit])
        : await client.query(`select * from ${quote(table)} where "id" > $1 order by "id" limit $2`, [afterId, limit])
      ).rows as SourceRow[],
    where: async (table, column, values) =>
      values.length ? ((await client.query(`select * from ${quote(table)} where ${quote(column)} = any($1)`, [values])).rows as SourceRow[]) : [],
    close: () => client.end(),
  };
}
