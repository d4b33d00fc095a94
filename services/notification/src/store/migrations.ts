/** The notification schema's migrations, in order; plain SQL both PostgreSQL and SQLite accept. */
import { Migration } from "@mikro-orm/migrations";

class CreateOutboxMessage extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "outbox_message" (
      "id" varchar(64) not null primary key,
      "idempotency_key" varchar(255) null,
      "recipient" varchar(320) not null,
      "template" varchar(64) not null,
      "subject" text not null,
      "text_body" text not null,
      "html_body" text not null,
      "links" text not null,
      "status" varchar(16) not null,
      "attempts" integer not null default 0,
      "next_attempt_at" timestamptz not null,
      "lease_until" timestamptz null,
      "lease_owner" varchar(64) null,
      "last_error" text null,
      "created_at" timestamptz not null,
      "delivered_at" timestamptz null
    )`);
    // Unique, so a retried SendEmail can never store a second message; several NULLs are allowed on both.
    this.addSql(`create unique index "outbox_message_idempotency_key_unique" on "outbox_message" ("idempotency_key")`);
    // The worker's scan: pending messages by due time.
    this.addSql(`create index "outbox_message_status_next_attempt_at_index" on "outbox_message" ("status", "next_attempt_at")`);
    // The development mailbox: one address's messages, newest first.
    this.addSql(`create index "outbox_message_recipient_created_at_index" on "outbox_message" ("recipient", "created_at")`);
  }
}

class CreateRecipientSlot extends Migration {
  async up(): Promise<void> {
    // The per-recipient send limit: at most N slots per recipient, each stamped with its last use.
    this.addSql(`create table "recipient_slot" (
      "recipient_key" varchar(64) not null,
      "slot" integer not null,
      "used_at" timestamptz not null,
      primary key ("recipient_key", "slot")
    )`);
  }
}

class CreateWebhookTables extends Migration {
  async up(): Promise<void> {
    // Signed webhooks (docs/adr/0077-signed-webhooks.md): endpoints, received events, deliveries.
    this.addSql(`create table "webhook_endpoint" (
      "id" varchar(64) not null primary key,
      "url" text not null,
      "event_types" text not null,
      "description" text not null,
      "enabled" boolean not null,
      "sealed_secret" text not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null
    )`);
    // The primary key is the source's event id: a redelivered event is stored once.
    this.addSql(`create table "webhook_event" (
      "id" varchar(64) not null primary key,
      "type" varchar(64) not null,
      "occurred_at" timestamptz not null,
      "payload" text not null,
      "received_at" timestamptz not null
    )`);
    this.addSql(`create table "webhook_delivery" (
      "id" varchar(64) not null primary key,
      "endpoint_id" varchar(64) not null,
      "event_id" varchar(64) not null,
      "event_type" varchar(64) not null,
      "status" varchar(16) not null,
      "attempts" integer not null default 0,
      "next_attempt_at" timestamptz not null,
      "lease_until" timestamptz null,
      "lease_owner" varchar(64) null,
      "last_response_code" integer null,
      "last_error" text null,
      "created_at" timestamptz not null,
      "delivered_at" timestamptz null
    )`);
    // One delivery per event and endpoint, however the intake is retried.
    this.addSql(`create unique index "webhook_delivery_endpoint_event_unique" on "webhook_delivery" ("endpoint_id", "event_id")`);
    // The worker's scan, and an endpoint's log newest first.
    this.addSql(`create index "webhook_delivery_status_next_attempt_at_index" on "webhook_delivery" ("status", "next_attempt_at")`);
    this.addSql(`create index "webhook_delivery_endpoint_created_at_index" on "webhook_delivery" ("endpoint_id", "created_at")`);
  }
}

export const notificationMigrations = [
  { name: "0001-create-outbox-message", class: CreateOutboxMessage },
  { name: "0002-create-recipient-slot", class: CreateRecipientSlot },
  { name: "0003-create-webhook-tables", class: CreateWebhookTables },
];
