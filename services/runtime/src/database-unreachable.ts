/**
 * A database out of reach (down, partitioned, restarting, refusing connections) is the service's
 * dependency being unavailable, not a fault of the call: every service answers it as SERVICE_UNAVAILABLE
 * with a retry hint (rpc.ts), which the gateway turns into a 503 with Retry-After. Kept apart from store.ts
 * so the gateway, which loads rpc.ts, does not load MikroORM with it.
 */

/**
 * The retry hint (x-retry-after-ms, then Retry-After) of a call refused because the database is out of
 * reach: about one readiness check interval, and the time a query waits for a new connection.
 */
export const DATABASE_RETRY_AFTER_MS = 5_000;

/** Node's socket errors for a server that cannot be reached or dropped the connection. */
const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);
/**
 * PostgreSQL's: 08xxx (connection exception), 57P01-57P03 (the server shut down, crashed, or does not take
 * connections yet), 53300 (no connection slot left).
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300)$/;
/** pg's and pg-pool's own messages (no code) for a connection that ended, or was not made in time. */
const CONNECTION_LOST = /Connection terminated|timeout exceeded when trying to connect|is not queryable/i;

/**
 * Whether an error says the PostgreSQL server is out of reach, as opposed to a query it refused. MikroORM
 * wraps the driver's error and copies its code; the cause chain is followed a few steps. SQLite is a file
 * of the process, never "away": its errors are not this.
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  let e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; e && depth < 4; depth++, e = e.cause as typeof e) {
    const code = typeof e.code === "string" ? e.code : "";
    if (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code)) return true;
    if (typeof e.message === "string" && CONNECTION_LOST.test(e.message)) return true;
  }
  return false;
}
