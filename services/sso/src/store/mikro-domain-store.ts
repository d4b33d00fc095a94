/** The domain store on MikroORM, on the sso service's own connection (mikro-sso-store.ts). */
import { isUniqueViolation, type Store } from "@auth-platform/runtime/store";
import type { DomainRecord, DomainStore } from "../domains/domain-claims.js";
import { DomainEntity, type DomainRow } from "./domain-entities.js";

function toDomain(row: DomainRow): DomainRecord {
  return {
    id: row.id,
    organizationId: row.organizationId,
    domain: row.domain,
    token: row.token,
    createdAt: new Date(row.createdAt),
    expiresAt: new Date(row.expiresAt),
    verifiedAt: row.verifiedAt ? new Date(row.verifiedAt) : null,
    autoJoinRole: row.autoJoinRole ?? null,
    autoJoinSince: row.autoJoinSince ? new Date(row.autoJoinSince) : null,
  };
}

export function mikroDomainStore(store: Store): DomainStore {
  const one = async (where: Partial<Pick<DomainRow, "id" | "organizationId" | "domain" | "verifiedDomain">>) => {
    const row = await store.readOne(DomainEntity, where);
    return row ? toDomain(row) : undefined;
  };
  return {
    findDomain: (id) => one({ id }),
    findDomainClaim: (organizationId, domain) => one({ organizationId, domain }),
    findVerifiedDomain: (domain) => one({ verifiedDomain: domain }),
    async listDomains(organizationId) {
      const rows = await store.em().find(DomainEntity, { organizationId }, { orderBy: { domain: "asc" } });
      return rows.map(toDomain);
    },
    async insertDomain(record) {
      try {
        await store.em().insert(DomainEntity, { ...record, verifiedDomain: record.verifiedAt ? record.domain : null });
        return true;
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },
    async renewDomainClaim(id, token, createdAt, expiresAt) {
      await store.em().nativeUpdate(DomainEntity, { id, verifiedAt: null }, { token, createdAt, expiresAt });
    },
    async markDomainVerified(id, at) {
      const row = await store.readOne(DomainEntity, { id });
      if (!row) return false;
      try {
        return (await store.em().nativeUpdate(DomainEntity, { id, verifiedAt: null }, { verifiedAt: at, verifiedDomain: row.domain })) > 0;
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },
    async setDomainAutoJoin(id, role, since) {
      await store.em().nativeUpdate(DomainEntity, { id }, { autoJoinRole: role, autoJoinSince: since });
    },
    async deleteDomain(id) {
      await store.em().nativeDelete(DomainEntity, { id });
    },
  };
}
