/** The audit log in process memory: for unit tests of the domain, and the contract's reference backend. */
import type { AuditQuery, AuditRecord, AuditStore } from "./audit-store.js";
import { inTurn } from "./in-turn.js";

const matches = (record: AuditRecord, query: AuditQuery) =>
  (!query.action || record.action === query.action) &&
  (!query.actorId || record.actorId === query.actorId) &&
  (!query.targetId || record.targetId === query.targetId) &&
  (!query.since || record.at >= query.since) &&
  (!query.until || record.at < query.until);

/** Newest first, ties by id descending (as the SQL store orders). */
const newestFirst = (a: AuditRecord, b: AuditRecord) => b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

export function createMemoryAuditStore(): AuditStore {
  const records = new Map<string, AuditRecord>();
  return {
    async append(record) {
      if (!records.has(record.id)) records.set(record.id, structuredClone(record));
    },
    async list(query) {
      const found = [...records.values()].filter((r) => matches(r, query)).sort(newestFirst);
      return { records: found.slice(query.offset, query.offset + query.limit).map((r) => structuredClone(r)), total: found.length };
    },
    async deleteOlderThan(before) {
      let count = 0;
      for (const [id, record] of records) {
        if (record.at < before) {
          records.delete(id);
          count += 1;
        }
      }
      return count;
    },
    withAdminChangeLock: inTurn(),
    async close() {},
  };
}
