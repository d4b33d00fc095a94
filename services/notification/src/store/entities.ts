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

/** A registered webhook receiver (docs/adr/0077-signed-webhooks.md); the secret sealed. */
export const WebhookEndpointEntity = defineEntity({
  name: "WebhookEndpoint",
  tableName: "webhook_endpoint",
  properties: {
    id: p.string().primary(),
    url: p.text(),
    /** JSON array of event types. */
    eventTypes: p.text(),
    description: p.text(),
    enabled: p.boolean(),
    sealedSecret: p.text(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

/** An event received from its source, once per id. */
export const WebhookEventEntity = defineEntity({
  name: "WebhookEvent",
  tableName: "webhook_event",
  properties: {
    id: p.string().primary(),
    type: p.string(),
    occurredAt: p.datetime(),
    payload: p.text(),
    receivedAt: p.datetime(),
  },
});

/** One event to one endpoint: the delivery log's row, leased by the worker. */
export const WebhookDeliveryEntity = defineEntity({
  name: "WebhookDelivery",
  tableName: "webhook_delivery",
  properties: {
    id: p.string().primary(),
    endpointId: p.string(),
    eventId: p.string(),
    eventType: p.string(),
    status: p.string(),
    attempts: p.integer(),
    nextAttemptAt: p.datetime(),
    leaseUntil: p.datetime().nullable(),
    leaseOwner: p.string().nullable(),
    lastResponseCode: p.integer().nullable(),
    lastError: p.text().nullable(),
    createdAt: p.datetime(),
    deliveredAt: p.datetime().nullable(),
  },
});

export type WebhookEndpointRow = InstanceType<typeof WebhookEndpointEntity.class>;
export type WebhookDeliveryRow = InstanceType<typeof WebhookDeliveryEntity.class>;
