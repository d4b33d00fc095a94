/** The admin service's table: the audit log. */
import { defineEntity, p } from "@mikro-orm/core";

export const AuditEventEntity = defineEntity({
  name: "AuditEvent",
  tableName: "audit_event",
  properties: {
    id: p.string().primary(),
    action: p.string(),
    actorId: p.string().nullable(),
    impersonatorId: p.string().nullable(),
    targetId: p.string().nullable(),
    at: p.datetime(),
    ipAddress: p.string().nullable(),
    userAgent: p.text().nullable(),
    outcome: p.string(),
    /** JSON object. */
    details: p.text(),
  },
});

export type AuditEventRow = InstanceType<typeof AuditEventEntity.class>;
