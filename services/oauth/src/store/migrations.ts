/**
 * The oauth schema's migrations, in order; plain SQL both PostgreSQL and SQLite accept. A released
 * migration is never edited: a change is a new one.
 */
import { Migration } from "@mikro-orm/migrations";

class CreateSignInState extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "oauth_state" (
      "state" varchar(64) not null primary key,
      "provider_id" varchar(64) not null,
      "code_verifier" varchar(255) not null,
      "nonce" varchar(255) not null,
      "callback_url" text not null,
      "error_url" text null,
      "new_user_url" text null,
      "link_user_id" varchar(64) null,
      "link_email" varchar(255) null,
      "expires_at" timestamptz not null,
      "created_at" timestamptz not null
    )`);
    this.addSql(`create index "oauth_state_expires_at_index" on "oauth_state" ("expires_at")`);
  }
}

export const oauthMigrations = [{ name: "0001-create-oauth-state", class: CreateSignInState }];
