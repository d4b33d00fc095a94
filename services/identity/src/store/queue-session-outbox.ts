/** The session outbox row written beside every write of a user (identity-store.ts, USER_WRITES). */
import { type EntityManager, raw } from "@mikro-orm/sql";
import { SessionOutboxEntity } from "./entities.js";
import { WRITER_DELIVERY_MS } from "./identity-store.js";

/**
 * Queues the user's session outbox row, written `now`, in the transaction `em` belongs to (USER_WRITES): one
 * upsert, so two writes of one user at once each move the version and neither is lost. Due for the worker
 * only after WRITER_DELIVERY_MS: the writing request delivers it first.
 */
export async function queueSessionOutbox(em: EntityManager, userId: string, now: Date, revokeSessions = false): Promise<void> {
  const at = new Date(now.getTime() + WRITER_DELIVERY_MS);
  await em
    .createQueryBuilder(SessionOutboxEntity)
    .insert({ userId, revokeSessions, version: 1, attempts: 0, nextAttemptAt: at, leaseUntil: null })
    .onConflict("userId")
    .merge({ version: raw(`"session_outbox"."version" + 1`), attempts: 0, nextAttemptAt: at, ...(revokeSessions ? { revokeSessions: true } : {}) })
    .execute("run");
}
