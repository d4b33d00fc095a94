/** The audit log on MikroORM (SQLite or PostgreSQL). A duplicate id is ignored by the insert itself. */
import { openStore } from "@auth-platform/runtime/store";
import type { AuditOutcome, AuditQuery, AuditRecord, AuditStore } from "./audit-store.js";
import { AuditEventEntity, type AuditEventRow } from "./entities.js";
import { inTurn } from "./in-turn.js";
import { adminMigrations } from "./migrations.js";

function toRecord(row: AuditEventRow): AuditRecord {
  return {
    id: row.id,
    action: row.action,
    actorId: row.actorId ?? null,
    impersonatorId: row.impersonatorId ?? null,
    targetId: row.targetId ?? null,
    at: row.at,
    ipAddress: row.ipAddress ?? null,
    userAgent: row.userAgent ?? null,
    outcome: row.outcome as AuditOutcome,
    details: JSON.parse(row.details || "{}") as Record<string, unknown>,
  };
}

function whereOf(query: AuditQuery) {
  return {
    ...(query.action ? { action: query.action } : {}),
    ...(query.actorId ? { actorId: query.actorId } : {}),
    ...(query.targetId ? { targetId: query.targetId } : {}),
    ...(query.since || query.until ? { at: { ...(query.since ? { $gte: query.since } : {}), ...(query.until ? { $lt: query.until } : {}) } } : {}),
  };
}

/** The advisory lock's key: one lock for the whole admin set. */
const ADMIN_CHANGE_LOCK = "admin-change";

export async function openAuditStore(url: string): Promise<AuditStore> {
  const store = await openStore({ url, entities: [AuditEventEntity], migrations: adminMigrations });
  // In process first: a replica's waiting changes hold no PostgreSQL connection but the one in front.
  const inProcess = inTurn();
  return {
    async append(record) {
      // ON CONFLICT DO NOTHING (both dialects): a retried report stores nothing twice and raises nothing.
      await store
        .em()
        .createQueryBuilder(AuditEventEntity)
        .insert({ ...record, details: JSON.stringify(record.details) })
        .onConflict("id")
        .ignore()
        .execute();
    },
    async list(query) {
      const em = store.em();
      const where = whereOf(query);
      const [rows, total] = await Promise.all([
        em.find(AuditEventEntity, where, { orderBy: [{ at: "desc" }, { id: "desc" }], limit: query.limit, offset: query.offset }),
        em.count(AuditEventEntity, where),
      ]);
      return { records: rows.map(toRecord), total };
    },
    async deleteOlderThan(before) {
      return store.em().nativeDelete(AuditEventEntity, { at: { $lt: before } });
    },
    withAdminChangeLock(work) {
      if (store.dialect !== "postgresql") return inProcess(work);
      return inProcess(() =>
        store.em().transactional(async (em) => {
          await em.execute("select pg_advisory_xact_lock(hashtext(?))", [ADMIN_CHANGE_LOCK]);
          return work();
        }),
      );
    },
    close: () => store.close(),
  };
}
