/**
 * The updatedAt a write of a user stamps: the clock's time, or 1 ms past the stored updatedAt when the clock
 * is not past it. So a user's updatedAt strictly increases: two writes of one user (in the same millisecond,
 * or with the clock set back) never share one, and the session service's copy, which only a strictly newer
 * updatedAt replaces, can tell the later write from the earlier whatever order their copies arrive in.
 */
import { raw } from "@mikro-orm/sql";
import type { Dialect } from "@auth-platform/runtime/store";

/** The memory store's half: the next updatedAt of a user stored with `stored`. */
export function nextUserUpdatedAt(stored: Date, now: Date): Date {
  return new Date(Math.max(now.getTime(), stored.getTime() + 1));
}

/**
 * The SQL stores' half: the user row's next updated_at, computed by the UPDATE itself from the row it writes
 * (a value read before it could be stale by the time it lands).
 */
export function nextUserUpdatedAtSql(dialect: Dialect, now: Date) {
  if (dialect === "postgresql") return raw(`greatest(?::timestamptz, "updated_at" + interval '1 millisecond')`, [now.toISOString()]);
  // MikroORM keeps SQLite datetimes as epoch milliseconds (integers).
  return raw(`max(?, "updated_at" + 1)`, [now.getTime()]);
}
