/** The admin schema's migrations, in order; plain SQL both PostgreSQL and SQLite accept. Never edit a released one. */
import { Migration } from "@mikro-orm/migrations";

class CreateAuditEvent extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "audit_event" (
      "id" varchar(64) not null primary key,
      "action" varchar(64) not null,
      "actor_id" varchar(64) null,
      "impersonator_id" varchar(64) null,
      "target_id" varchar(64) null,
      "at" timestamptz not null,
      "ip_address" varchar(64) null,
      "user_agent" text null,
      "outcome" varchar(16) not null,
      "details" text not null default '{}'
    )`);
    // The admin route's reads: newest first, overall and by actor, target or action; retention's trim by time.
    this.addSql(`create index "audit_event_at_index" on "audit_event" ("at", "id")`);
    this.addSql(`create index "audit_event_actor_at_index" on "audit_event" ("actor_id", "at")`);
    this.addSql(`create index "audit_event_target_at_index" on "audit_event" ("target_id", "at")`);
    this.addSql(`create index "audit_event_action_at_index" on "audit_event" ("action", "at")`);
  }
}

export const adminMigrations = [{ name: "0001-create-audit-event", class: CreateAuditEvent }];
