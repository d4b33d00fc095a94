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

export const notificationMigrations = [
  { name: "0001-create-outbox-message", class: CreateOutboxMessage },
  { name: "0002-create-recipient-slot", class: CreateRecipientSlot },
];
