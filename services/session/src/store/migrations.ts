/** The session schema's migrations, in order; plain SQL both PostgreSQL and SQLite accept. */
import { Migration } from "@mikro-orm/migrations";

class CreateSession extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "session" (
      "id" varchar(64) not null primary key,
      "token" varchar(64) not null,
      "user_id" varchar(64) not null,
      "expires_at" timestamptz not null,
      "ip_address" varchar(64) null,
      "user_agent" text null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      "impersonated_by" varchar(64) null,
      "active_organization_id" varchar(64) null
    )`);
    this.addSql(`create unique index "session_token_unique" on "session" ("token")`);
    this.addSql(`create index "session_user_id_index" on "session" ("user_id")`);
  }
}

export const sessionMigrations = [{ name: "0001-create-session", class: CreateSession }];
