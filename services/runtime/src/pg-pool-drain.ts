/**
 * Lets a PostgreSQL store close while queries are still opening connections.
 *
 * Kysely's PostgreSQL driver (0.29, under MikroORM 7) forgets its pool when it is destroyed, then reads it
 * again when a connection that was still being opened arrives. That read throws, the connection is never
 * given back, and pg's `pool.end()` waits for it forever. Any query that needs a new connection at that
 * moment triggers it: a readiness check's `select 1`, or a handler still running at shutdown. The service
 * then never finishes closing.
 *
 * `drain()` stops that. From then on new connections are refused before they reach pg. It then waits until
 * the connections already being opened have arrived; their queries run and give them back. Only after that
 * does the ORM end the pool.
 */
import type { Pool, PoolClient } from "pg";

export class StoreClosedError extends Error {
  constructor() {
    super("the store is closed");
    this.name = "StoreClosedError";
  }
}

export interface DrainablePool {
  /** Refuses new connections, then resolves once none is still being opened (and their callers have them). */
  drain(): Promise<void>;
}

export function drainable(pool: Pool): DrainablePool {
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  let closing = false;
  let opening = 0;
  let drained: (() => void) | undefined;
  const settle = () => {
    opening--;
    if (opening === 0) drained?.();
  };
  // Only the promise form is counted: Kysely uses it. The callback form (nothing here calls it) goes to pg as is.
  pool.connect = ((...args: unknown[]) => {
    if (args.length > 0) return connect(...args);
    if (closing) return Promise.reject(new StoreClosedError());
    opening++;
    const opened = connect() as Promise<PoolClient>;
    opened.then(settle, settle);
    return opened;
  }) as Pool["connect"];
  return {
    async drain() {
      closing = true;
      if (opening > 0) await new Promise<void>((resolve) => (drained = resolve));
      // The callers' continuations (which read the driver's pool and start their query) run on later
      // microtasks; one macrotask turn lets all of them run before the pool is ended.
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}
