/** The session outbox row written beside every write of a user (identity-store.ts, USER_WRITES). */
import { type EntityManager, raw } from "@mikro-orm/sql";
import { SessionOutboxEntity } from "./entities.js";

/**
 * Queues the user's session outbox row, due at `at`, in the transaction `em` belongs to (USER_WRITES): one
 * upsert, so two writes of one user at once each move the version and neither is lost.
 */
export async function queueSessionOutbox(em: EntityManager, userId: string, at: Date, revokeSessions = false): Promise<void> {
  await em
    .createQueryBuilder(SessionOutboxEntity)
    .insert({ userId, revokeSessions, version: 1, attempts: 0, nextAttemptAt: at, leaseUntil: null })
    .onConflict("userId")
    .merge({ version: raw(`"session_outbox"."version" + 1`), attempts: 0, nextAttemptAt: at, ...(revokeSessions ? { revokeSessions: true } : {}) })
    .execute("run");
}
