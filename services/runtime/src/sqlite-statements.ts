/**
 * SQLite with bound parameters and reused statements. MikroORM 7 writes every parameter into the SQL text
 * (`platform.formatQuery`) before the query reaches the driver, so each query is a text SQLite has not seen
 * and compiles anew. Here a query's parameters are bound instead: its text depends only on its shape, and
 * the connection keeps each compiled statement by its text (a sign-in's reads and writes then cost no
 * compilation; docs/adr/0017-sqlite-settings-and-statements.md).
 *
 * Values are bound as MikroORM's SQLite platform writes them into the text (`SqlitePlatform.escape`), so
 * what is stored and compared is unchanged: integers as integers (node:sqlite binds a JavaScript number as
 * a real, which a text column would store as "5.0"), booleans as 1 and 0, dates as epoch milliseconds,
 * plain objects as JSON, arrays as one parameter per element. A query this cannot bind (an escaped `\?`,
 * which would become a parameter) goes to the driver as MikroORM writes it.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { CompiledQuery, SqliteDialect } from "kysely";
import {
  AbstractSqlDriver,
  BaseSqliteConnection,
  type Configuration,
  isRaw,
  type LoggingOptions,
  NativeQueryBuilder,
  raw,
  type RawQueryFragment,
  SqlitePlatform,
  type Transaction,
} from "@mikro-orm/sql";

/** A query as the driver runs it: text with `?` placeholders and the values bound to them in order. */
export interface BoundQuery {
  sql: string;
  parameters: unknown[];
}

/** Compiled statements kept per database; a text beyond these (rare shapes) is compiled again when seen. */
const MAX_STATEMENTS = 500;

/**
 * The query with its values bound, or undefined when it must be written out instead. `??` placeholders are
 * identifiers and raw fragments are SQL: both are written into the text, as MikroORM does.
 */
export function bindParameters(platform: SqlitePlatform, sql: string, params: readonly unknown[]): BoundQuery | undefined {
  if (sql.includes("\\?")) return undefined;
  const parameters: unknown[] = [];
  let text = "";
  let from = 0;
  let next = 0;
  for (let at = sql.indexOf("?"); at !== -1; at = sql.indexOf("?", from)) {
    text += sql.slice(from, at);
    if (sql[at + 1] === "?") {
      text += platform.quoteIdentifier(params[next++] as string);
      from = at + 2;
      continue;
    }
    const value = params[next++];
    if (isRaw(value)) text += platform.formatQuery(value.sql, value.params);
    else if (Array.isArray(value)) {
      const values = value.map(bindable);
      if (values.includes(UNBINDABLE)) return undefined;
      text += values.map(() => "?").join(", ");
      parameters.push(...values);
    } else {
      const bound = bindable(value);
      if (bound === UNBINDABLE) return undefined;
      text += "?";
      parameters.push(bound);
    }
    from = at + 1;
  }
  return { sql: text + sql.slice(from), parameters };
}

const UNBINDABLE = Symbol("unbindable");
const INT64_LIMIT = 2 ** 63;

/** One value as node:sqlite binds it, the way SqlitePlatform.escape would have written it. */
function bindable(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case "string":
    case "bigint":
      return value;
    case "boolean":
      return value ? 1n : 0n;
    case "number":
      return integer(value);
  }
  if (value instanceof Date) return integer(value.getTime());
  if (Buffer.isBuffer(value)) return value;
  if (Array.isArray(value) || isRaw(value)) return UNBINDABLE;
  if (isPlainObject(value)) return JSON.stringify(value);
  return String(value);
}

/** An integral number as an SQLite integer (the text "5" is one); any other number as a real. */
function integer(value: number): unknown {
  return Number.isInteger(value) && Math.abs(value) < INT64_LIMIT ? BigInt(value) : value;
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** MikroORM's SQLite connection, with each query's parameters bound instead of written into its text. */
export class BoundSqliteConnection extends BaseSqliteConnection {
  declare protected platform: SqlitePlatform;

  override async execute<T>(
    query: string | NativeQueryBuilder | RawQueryFragment,
    params: readonly unknown[] | Record<string, unknown> = [],
    method: "all" | "get" | "run" = "all",
    ctx?: Transaction,
    loggerContext?: LoggingOptions,
  ): Promise<T> {
    let sql: string | NativeQueryBuilder | RawQueryFragment = query;
    if (sql instanceof NativeQueryBuilder) sql = sql.toRaw();
    // Named parameters (a plain object) are turned into positional ones by raw(), as MikroORM does.
    if (typeof sql === "string" && !Array.isArray(params)) sql = raw(sql, params);
    let values = params as readonly unknown[];
    if (isRaw(sql)) {
      values = sql.params;
      sql = sql.sql;
    }
    const text = this.config.get("onQuery")(sql as string, values);
    const bound = bindParameters(this.platform, text, values);
    // MikroORM's own path from the query as given (it applies onQuery itself).
    if (!bound) return super.execute(query, params, method, ctx, loggerContext) as Promise<T>;
    await this.ensureConnection();
    const { abort, context } = abortOptions(loggerContext);
    const logged = this.getSql(text, this.config.getLogger().isEnabled("query-params", context) ? this.platform.formatQuery(text, values as unknown[]) : text, context);
    return this.executeQuery(
      logged,
      async () => {
        const runner = (ctx ?? this.getClient()) as unknown as QueryRunner;
        return this.transformRawResult<T>(await runner.executeQuery(CompiledQuery.raw(bound.sql, bound.parameters), abort), method);
      },
      { query: text, params: values as unknown[], ...context },
    );
  }
}

/** A kysely client or transaction, as MikroORM runs a compiled query on it. */
interface QueryRunner {
  executeQuery(query: CompiledQuery, abort?: object): Promise<unknown>;
}

/** The query builder's cancellation options ride on the logger context; the logger must not see them. */
function abortOptions(loggerContext?: LoggingOptions): { abort?: object; context?: LoggingOptions } {
  const { signal, inflightQueryAbortStrategy, ...context } = (loggerContext ?? {}) as LoggingOptions & { signal?: AbortSignal; inflightQueryAbortStrategy?: string };
  if (signal == null && inflightQueryAbortStrategy == null) return { context: loggerContext };
  return { abort: { signal, inflightQueryAbortStrategy }, context };
}

/** MikroORM's generic SQLite driver on BoundSqliteConnection. */
export class BoundSqliteDriver extends AbstractSqlDriver<BoundSqliteConnection> {
  constructor(config: Configuration) {
    super(config, new SqlitePlatform(), BoundSqliteConnection, ["kysely"]);
  }
}

/**
 * node:sqlite behind kysely, keeping up to MAX_STATEMENTS compiled statements by text (least recently used
 * dropped first). kysely runs one query at a time on SQLite's one connection, and each runs to completion
 * (all or run), so one statement is never in use twice at once.
 */
export function cachedNodeSqliteDialect(file: string): SqliteDialect {
  return new SqliteDialect({
    database: () => {
      const { DatabaseSync } = process.getBuiltinModule("node:sqlite") as typeof import("node:sqlite");
      const db: DatabaseSync = new DatabaseSync(file);
      const statements = new Map<string, CachedStatement>();
      return {
        prepare(sql: string): CachedStatement {
          let statement = statements.get(sql);
          if (statement) statements.delete(sql);
          else statement = cachedStatement(db.prepare(sql));
          statements.set(sql, statement);
          if (statements.size > MAX_STATEMENTS) statements.delete(statements.keys().next().value!);
          return statement;
        },
        close: () => db.close(),
      } as never;
    },
  });
}

interface CachedStatement {
  /** Whether the statement returns rows (a select, a pragma, a `returning`): kysely then reads them. */
  reader: boolean;
  all(parameters: readonly unknown[]): unknown[];
  run(parameters: readonly unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(parameters: readonly unknown[]): unknown;
}

function cachedStatement(statement: StatementSync): CachedStatement {
  type Bindable = Parameters<StatementSync["all"]>;
  return {
    reader: statement.columns().length > 0,
    all: (parameters) => statement.all(...(parameters as Bindable)),
    run: (parameters) => statement.run(...(parameters as Bindable)),
    get: (parameters) => statement.get(...(parameters as Bindable)),
  };
}
