/** The user event rows written beside the writes they record (identity-store.ts, UserEventRecord). */
import type { Dialect } from "@auth-platform/runtime/store";
import { newId } from "@auth-platform/runtime/random";
import type { EntityManager } from "@mikro-orm/sql";
import { UserEventEntity, type UserEventRow } from "./entities.js";
import { type UserEventRecord, type UserEventType, type UserRecord, WRITER_DELIVERY_MS } from "./identity-store.js";

/** Queues an event of the user, written `now`, in the transaction `em` belongs to; due after WRITER_DELIVERY_MS. */
export async function queueUserEvent(em: EntityManager, userId: string, type: UserEventType, payload: Record<string, string>, now: Date): Promise<void> {
  await em.insert(UserEventEntity, {
    id: newId(),
    userId,
    type,
    payload: JSON.stringify(payload),
    occurredAt: now,
    attempts: 0,
    nextAttemptAt: new Date(now.getTime() + WRITER_DELIVERY_MS),
    leaseUntil: null,
  });
}

/**
 * The user's address and its verified flag, read in the transaction `em` belongs to; on PostgreSQL the row is
 * locked until it ends, so a concurrent write cannot slip between this read and the write that follows.
 */
export async function readAddress(em: EntityManager, dialect: Dialect, id: string): Promise<Pick<UserRecord, "email" | "emailVerified"> | null> {
  const lock = dialect === "postgresql" ? " for update" : "";
  const rows = await em.execute<Array<{ email: string; email_verified: unknown }>>(`select "email", "email_verified" from "user" where "id" = ?${lock}`, [id]);
  const row = rows[0];
  return row ? { email: row.email, emailVerified: Boolean(row.email_verified) } : null;
}

export function toUserEvent(row: UserEventRow): UserEventRecord {
  return {
    id: row.id,
    userId: row.userId,
    type: row.type as UserEventType,
    payload: JSON.parse(row.payload) as Record<string, string>,
    occurredAt: row.occurredAt,
    attempts: row.attempts,
    nextAttemptAt: row.nextAttemptAt,
    leaseUntil: row.leaseUntil ?? null,
  };
}
