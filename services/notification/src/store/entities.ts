/** The notification service's one table: the outbox. */
import { defineEntity, p } from "@mikro-orm/core";

export const OutboxMessageEntity = defineEntity({
  name: "OutboxMessage",
  tableName: "outbox_message",
  properties: {
    id: p.string().primary(),
    idempotencyKey: p.string().nullable().unique(),
    recipient: p.string(),
    template: p.string(),
    subject: p.text(),
    textBody: p.text(),
    htmlBody: p.text(),
    /** JSON array of strings. */
    links: p.text(),
    status: p.string(),
    attempts: p.integer(),
    nextAttemptAt: p.datetime(),
    leaseUntil: p.datetime().nullable(),
    leaseOwner: p.string().nullable(),
    lastError: p.text().nullable(),
    createdAt: p.datetime(),
    deliveredAt: p.datetime().nullable(),
  },
});

export type OutboxMessageRow = InstanceType<typeof OutboxMessageEntity.class>;
