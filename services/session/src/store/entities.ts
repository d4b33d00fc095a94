/** The session service's table (SPEC.md §3). */
import { defineEntity, p } from "@mikro-orm/core";

export const SessionEntity = defineEntity({
  name: "Session",
  tableName: "session",
  properties: {
    id: p.string().primary(),
    token: p.string().unique(),
    userId: p.string().index(),
    expiresAt: p.datetime(),
    ipAddress: p.string().nullable(),
    userAgent: p.text().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    impersonatedBy: p.string().nullable(),
    activeOrganizationId: p.string().nullable(),
  },
});

export type SessionRow = InstanceType<typeof SessionEntity.class>;
