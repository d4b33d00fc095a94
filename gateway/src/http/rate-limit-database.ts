/**
 * Rate-limit counters in PostgreSQL (RATE_LIMIT_STORAGE=database): the shared count for gateway replicas
 * that have a database and no Redis (docs/adr/0051-rate-limit-counters-in-the-database.md). One table,
 * "rateLimit", one row per counter key; each hit is one atomic statement, so replicas hitting the same key
 * together count exactly. The gateway creates the table itself at start (it has no migrations), and every
 * replica deletes rows whose window has ended now and then.
 */
import type { Pool } from "pg";
import type { Logger } from "@auth-platform/runtime/log";
import type { RateLimitCounters } from "./rate-limit.js";

/** A few connections per replica: one short statement per request, never a transaction held open. */
const POOL_MAX = 2;
/** The longest a hit waits, for a connection and for its statement: past it the limiter fails open. */
const CONNECT_TIMEOUT_MS = 1_000;
const STATEMENT_TIMEOUT_MS = 1_000;
/** The client's own bound, for a server that no longer answers at all (a partition): the statement timeout is the server's. */
const QUERY_TIMEOUT_MS = 1_500;
const SWEEP_EVERY_MS = 60_000;
/** Rows one delete removes: a sweep runs deletes of this size back to back, each short. */
const SWEEP_BATCH = 1_000;
/** Serialises the table's creation between replicas starting together. */
const CREATE_LOCK = "auth-platform:rate-limit-table";

// Unlogged: no WAL for a write on every request; after a crash of the server the table is empty, which
// only restarts the windows. "lastRequest" and "windowEnd" are milliseconds since the epoch.
const CREATE_TABLE = `create unlogged table if not exists "rateLimit" (
  "key" text primary key,
  "count" integer not null,
  "lastRequest" bigint not null,
  "windowEnd" bigint not null
)`;
const CREATE_INDEX = `create index if not exists "rateLimit_windowEnd_index" on "rateLimit" ("windowEnd")`;

// A window that has ended restarts at 1 with a new end; otherwise the count grows and the end stays. The
// SET expressions all read the row as it was, and the row is locked from the conflict to the commit.
const HIT = `insert into "rateLimit" as r ("key", "count", "lastRequest", "windowEnd")
  values ($1, 1, $2::bigint, $2::bigint + $3::bigint)
  on conflict ("key") do update set
    "count" = case when r."windowEnd" <= $2::bigint then 1 else r."count" + 1 end,
    "windowEnd" = case when r."windowEnd" <= $2::bigint then $2::bigint + $3::bigint else r."windowEnd" end,
    "lastRequest" = $2::bigint
  returning "count", "windowEnd" - $2::bigint as "resetMs"`;

// SKIP LOCKED: replicas sweeping together take different rows, and a row a hit holds is left for later.
const DELETE_ENDED = `delete from "rateLimit" where "key" in (
  select "key" from "rateLimit" where "windowEnd" <= $1::bigint limit $2 for update skip locked
)`;

export interface DatabaseCounters extends RateLimitCounters {
  /** Deletes the rows whose window has ended, in bounded batches; resolves to how many it deleted. */
  deleteEnded(): Promise<number>;
}

export interface DatabaseCountersOptions {
  /** postgres:// URL (RATE_LIMIT_DATABASE_URL); may hold a password, so it is never logged. */
  url: string;
  log: Logger;
  /** The clock windows are timed by (tests move it). */
  now?: () => number;
  /** Rows per delete of a sweep. */
  sweepBatch?: number;
}

export async function openDatabaseCounters(options: DatabaseCountersOptions): Promise<DatabaseCounters> {
  const { url, log, now = Date.now, sweepBatch = SWEEP_BATCH } = options;
  const { default: pg } = await import("pg");
  const pool: Pool = new pg.Pool({
    connectionString: url,
    max: POOL_MAX,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
    application_name: "auth-gateway-rate-limit",
  });
  let down = false;
  // An idle connection the server dropped: pg reports it here, and without a listener it would end the process.
  pool.on("error", (error) => {
    if (!down) log.warn("rate-limit database connection lost", { error: error.message });
    down = true;
  });

  let created: Promise<void> | undefined;
  const createTable = async () => {
    const client = await pool.connect();
    try {
      await client.query("begin");
      await client.query("select pg_advisory_xact_lock(hashtext($1))", [CREATE_LOCK]);
      await client.query(CREATE_TABLE);
      await client.query(CREATE_INDEX);
      await client.query("commit");
      client.release();
    } catch (error) {
      // The connection may be broken or still running a statement: dropped (the server rolls back), not reused.
      client.release(error as Error);
      throw error;
    }
  };
  // Created once; a failure (the database unreachable at start) is tried again by the next hit.
  const tableReady = () =>
    (created ??= createTable().catch((error: unknown) => {
      created = undefined;
      throw error;
    }));

  let closed = false;
  const sweep = setInterval(() => {
    counters.deleteEnded().catch((error: unknown) => {
      if (!closed) log.warn("rate-limit database sweep failed; will try again", { error });
    });
  }, SWEEP_EVERY_MS);
  sweep.unref();

  const counters: DatabaseCounters = {
    async hit(key, windowMs) {
      await tableReady();
      try {
        // pg reads a bigint as a string.
        const { rows } = await pool.query<{ count: number; resetMs: string }>(HIT, [key, now(), windowMs]);
        if (down) log.info("rate-limit database available again");
        down = false;
        return { count: rows[0]!.count, resetMs: Number(rows[0]!.resetMs) };
      } catch (error) {
        // The table was dropped (an operator clearing the counters): create it again on the next hit.
        if ((error as { code?: string }).code === "42P01") created = undefined;
        down = true;
        throw error;
      }
    },
    async deleteEnded() {
      await tableReady();
      let deleted = 0;
      for (;;) {
        const { rowCount } = await pool.query(DELETE_ENDED, [now(), sweepBatch]);
        deleted += rowCount ?? 0;
        if ((rowCount ?? 0) < sweepBatch || closed) return deleted;
      }
    },
    async ready(timeoutMs = 5_000) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
      const reached = tableReady().then(
        () => true,
        () => false,
      );
      const ok = await Promise.race([reached, timedOut]);
      clearTimeout(timer);
      if (!ok) log.warn("rate-limit database not reachable at start; requests are allowed until it is", { timeoutMs });
      return ok;
    },
    async close() {
      closed = true;
      clearInterval(sweep);
      await pool.end();
    },
  };
  return counters;
}
