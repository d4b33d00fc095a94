/** The audit log on MikroORM (SQLite or PostgreSQL). A duplicate id is ignored by the insert itself. */
import { openStore } from "@auth-platform/runtime/store";
import type { AuditOutcome, AuditQuery, AuditRecord, AuditStore } from "./audit-store.js";
import { AuditEventEntity, type AuditEventRow } from "./entities.js";
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

export async function openAuditStore(url: string): Promise<AuditStore> {
  const store = await openStore({ url, entities: [AuditEventEntity], migrations: adminMigrations });
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
    close: () => store.close(),
  };
}
