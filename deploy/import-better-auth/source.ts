/**
 * Reads a better-auth database: a SQLite file (node:sqlite) or PostgreSQL (pg), table by table in pages
 * ordered by id (keyset: each page starts after the last id of the one before, so a million rows cost no
 * OFFSET scans and no more memory than one page). Read-only: nothing is written to the source.
 */
import type { DatabaseSync } from "node:sqlite";
import pg from "pg";

export type SourceRow = Record<string, unknown>;

/**
 * A related row read with each row of a page: the row of `table` whose id is the page row's `column`,
 * under the key `as` (null when there is none), in the same query (no second read of the related table).
 */
export interface Join {
  table: string;
  column: string;
  as: string;
}

export interface Source {
  dialect: "sqlite" | "postgresql";
  /** Every table and its columns. */
  tables(): Promise<Map<string, Set<string>>>;
  count(table: string): Promise<number>;
  /** Up to `limit` rows with an id after `afterId` (all when null), by id, each with its `join` row when given. */
  page(table: string, afterId: string | null, limit: number, join?: Join): Promise<SourceRow[]>;
  /** Which of these ids the table has. */
  existing(table: string, ids: string[]): Promise<Set<string>>;
  close(): Promise<void>;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * The text of a page query, with `?` or `$n` placeholders for the id after which it starts (when given) and
 * the limit. A join's columns come back prefixed by "as." and are folded into one object by `folded`.
 */
function pageQuery(table: string, afterId: string | null, join: { join: Join; columns: string[] } | undefined, placeholder: (n: number) => string): string {
  const joined = join ? `, ${join.columns.map((c) => `j.${quote(c)} as ${quote(`${join.join.as}.${c}`)}`).join(", ")}` : "";
  const from = join ? ` left join ${quote(join.join.table)} j on j."id" = t.${quote(join.join.column)}` : "";
  const after = afterId === null ? "" : ` where t."id" > ${placeholder(1)}`;
  return `select t.*${joined} from ${quote(table)} t${from}${after} order by t."id" limit ${placeholder(afterId === null ? 1 : 2)}`;
}

/** The columns of each joined table, read once per source (a page query names each of them). */
function joinColumns(tables: () => Promise<Map<string, Set<string>>>): (join: Join | undefined) => Promise<{ join: Join; columns: string[] } | undefined> {
  const known = new Map<string, string[]>();
  return async (join) => {
    if (!join) return undefined;
    if (!known.has(join.table)) known.set(join.table, [...((await tables()).get(join.table) ?? [])]);
    return { join, columns: known.get(join.table)! };
  };
}

/** A joined page's rows with the join's columns moved into one object under `as` (null when the left join found none). */
function folded(rows: SourceRow[], join: Join | undefined): SourceRow[] {
  if (!join || !rows.length) return rows;
  // Every row of a page has the same columns: split them once.
  const prefix = `${join.as}.`;
  const columns = Object.keys(rows[0]!);
  const own = columns.filter((c) => !c.startsWith(prefix));
  const related = columns.filter((c) => c.startsWith(prefix)).map((c) => [c, c.slice(prefix.length)] as const);
  return rows.map((row) => {
    const folded: SourceRow = {};
    for (const column of own) folded[column] = row[column];
    const relatedRow: SourceRow = {};
    for (const [column, name] of related) relatedRow[name] = row[column];
    folded[join.as] = relatedRow.id === null || relatedRow.id === undefined ? null : relatedRow;
    return folded;
  });
}

/** The source a --from value names: postgres:// or postgresql:// URLs, otherwise a SQLite file (file: optional). */
export async function openSource(from: string): Promise<Source> {
  return /^postgres(ql)?:\/\//.test(from) ? openPostgres(from) : openSqlite(from.replace(/^file:/, ""));
}

async function openSqlite(file: string): Promise<Source> {
  const { DatabaseSync: Database } = process.getBuiltinModule("node:sqlite") as typeof import("node:sqlite");
  const db: DatabaseSync = new Database(file, { readOnly: true });
  const tables = async () => {
    const found = new Map<string, Set<string>>();
    for (const { name } of db.prepare("select name from sqlite_master where type = 'table'").all() as Array<{ name: string }>) {
      const columns = db.prepare(`pragma table_info(${quote(name)})`).all() as Array<{ name: string }>;
      found.set(name, new Set(columns.map((c) => c.name)));
    }
    return found;
  };
  const columnsOf = joinColumns(tables);
  return {
    dialect: "sqlite",
    tables,
    count: async (table) => Number((db.prepare(`select count(*) as n from ${quote(table)}`).get() as { n: number }).n),
    async page(table, afterId, limit, join) {
      const statement = db.prepare(pageQuery(table, afterId, await columnsOf(join), () => "?"));
      return folded((afterId === null ? statement.all(limit) : statement.all(afterId, limit)) as SourceRow[], join);
    },
    async existing(table, ids) {
      const found = new Set<string>();
      // Below SQLite's bound-parameter limit per statement.
      for (let start = 0; start < ids.length; start += 30_000) {
        const chunk = ids.slice(start, start + 30_000);
        const rows = db.prepare(`select "id" from ${quote(table)} where "id" in (${chunk.map(() => "?").join(", ")})`).all(...chunk) as Array<{ id: unknown }>;
        for (const row of rows) found.add(String(row.id));
      }
      return found;
    },
    close: async () => db.close(),
  };
}

async function openPostgres(url: string): Promise<Source> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const tables = async () => {
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
  };
  const columnsOf = joinColumns(tables);
  return {
    dialect: "postgresql",
    tables,
    count: async (table) => Number((await client.query<{ n: string }>(`select count(*) as n from ${quote(table)}`)).rows[0]!.n),
    // The comparison and the order use the same collation, so pages neither overlap nor skip, on the id index.
    async page(table, afterId, limit, join) {
      const text = pageQuery(table, afterId, await columnsOf(join), (n) => `$${n}`);
      return folded((await client.query(text, afterId === null ? [limit] : [afterId, limit])).rows as SourceRow[], join);
    },
    async existing(table, ids) {
      const { rows } = await client.query<{ id: unknown }>(`select "id" from ${quote(table)} where "id" = any($1)`, [ids]);
      return new Set(rows.map((row) => String(row.id)));
    },
    close: () => client.end(),
  };
}
