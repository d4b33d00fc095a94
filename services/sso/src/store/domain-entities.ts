/** The verified-domain table (docs/adr/0071-verified-domains.md). */
import { defineEntity, p } from "@mikro-orm/core";

export const DomainEntity = defineEntity({
  name: "SsoDomain",
  tableName: "sso_domain",
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    domain: p.string(),
    token: p.string(),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
    verifiedAt: p.datetime().nullable(),
    // The domain once verified, null before: its unique index lets one claim per domain be verified.
    verifiedDomain: p.string().nullable(),
    autoJoinRole: p.string().nullable(),
    autoJoinSince: p.datetime().nullable(),
  },
});

export type DomainRow = InstanceType<typeof DomainEntity.class>;
