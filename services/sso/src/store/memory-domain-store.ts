/** The domain store in process memory: the domain's unit tests and the contract's reference backend. */
import type { DomainRecord, DomainStore } from "../domains/domain-claims.js";

export function memoryDomainStore(): DomainStore {
  const rows = new Map<string, DomainRecord>();
  const copy = (record: DomainRecord | undefined) => (record ? structuredClone(record) : undefined);
  const find = (match: (record: DomainRecord) => boolean) => copy([...rows.values()].find(match));
  return {
    findDomain: async (id) => copy(rows.get(id)),
    findDomainClaim: async (organizationId, domain) => find((r) => r.organizationId === organizationId && r.domain === domain),
    findVerifiedDomain: async (domain) => find((r) => r.domain === domain && r.verifiedAt !== null),
    listDomains: async (organizationId) =>
      [...rows.values()]
        .filter((r) => r.organizationId === organizationId)
        .sort((a, b) => (a.domain < b.domain ? -1 : 1))
        .map((r) => structuredClone(r)),
    async insertDomain(record) {
      const taken = [...rows.values()].some(
        (r) =>
          r.id === record.id || (r.organizationId === record.organizationId && r.domain === record.domain) || (record.verifiedAt && r.verifiedAt && r.domain === record.domain),
      );
      if (taken) return false;
      rows.set(record.id, structuredClone(record));
      return true;
    },
    async renewDomainClaim(id, token, createdAt, expiresAt) {
      const row = rows.get(id);
      if (row && !row.verifiedAt) Object.assign(row, { token, createdAt, expiresAt });
    },
    async markDomainVerified(id, at) {
      const row = rows.get(id);
      if (!row || row.verifiedAt) return false;
      if ([...rows.values()].some((r) => r.domain === row.domain && r.verifiedAt)) return false;
      row.verifiedAt = at;
      return true;
    },
    async setDomainAutoJoin(id, role, since) {
      const row = rows.get(id);
      if (row) Object.assign(row, { autoJoinRole: role, autoJoinSince: since });
    },
    async deleteDomain(id) {
      rows.delete(id);
    },
  };
}
