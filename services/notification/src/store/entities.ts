/** The notification service's tables: the outbox, and the recipients' send slots. */
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

/** One of a recipient's send slots (the per-recipient limit): keyed by a hash of the address, never the address. */
export const RecipientSlotEntity = defineEntity({
  name: "RecipientSlot",
  tableName: "recipient_slot",
  properties: {
    recipientKey: p.string().primary(),
    slot: p.integer().primary(),
    usedAt: p.datetime(),
  },
});

export type OutboxMessageRow = InstanceType<typeof OutboxMessageEntity.class>;
