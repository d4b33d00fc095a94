/** Audit records <-> contract messages. */
import type { AuditEvent } from "@auth-platform/proto/gen/auth/admin/v1/admin";
import type { AuditRecord } from "../store/audit-store.js";

export function toAuditEventMessage(record: AuditRecord): AuditEvent {
  return {
    id: record.id,
    action: record.action,
    actorId: record.actorId ?? undefined,
    impersonatorId: record.impersonatorId ?? undefined,
    targetId: record.targetId ?? undefined,
    at: record.at,
    ipAddress: record.ipAddress ?? undefined,
    userAgent: record.userAgent ?? undefined,
    outcome: record.outcome,
    details: record.details,
  };
}
