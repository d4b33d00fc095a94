/** The SCIM tables' migration, listed in the sso schema's migrations (store/migrations.ts). */
import { Migration } from "@mikro-orm/migrations";

export class CreateScim extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "scim_token" (
      "id" varchar(64) not null primary key,
      "organization_id" varchar(64) not null,
      "name" varchar(255) not null,
      "prefix" varchar(16) not null,
      "token_hash" varchar(64) not null,
      "created_by" varchar(64) not null,
      "created_at" timestamptz not null,
      "last_used_at" timestamptz null
    )`);
    // Authentication finds a token by its digest.
    this.addSql(`create unique index "scim_token_hash_unique" on "scim_token" ("token_hash")`);
    this.addSql(`create index "scim_token_organization_index" on "scim_token" ("organization_id", "created_at")`);
    this.addSql(`create table "scim_user" (
      "organization_id" varchar(64) not null,
      "user_id" varchar(64) not null,
      "user_name" varchar(256) not null,
      "user_name_lower" varchar(256) not null,
      "external_id" varchar(256) null,
      "display_name" varchar(256) null,
      "given_name" varchar(256) null,
      "family_name" varchar(256) null,
      "email" varchar(320) not null,
      "active" boolean not null,
      "deleted" boolean not null,
      "applied" varchar(16) null,
      "pending" boolean not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      "revision" integer not null,
      primary key ("organization_id", "user_id")
    )`);
    // userName and externalId lookups (IdPs filter on them before every create); pages in creation order.
    this.addSql(`create index "scim_user_name_index" on "scim_user" ("organization_id", "user_name_lower")`);
    this.addSql(`create index "scim_user_external_index" on "scim_user" ("organization_id", "external_id")`);
    this.addSql(`create index "scim_user_created_index" on "scim_user" ("organization_id", "created_at", "user_id")`);
    // The delivery worker's scan: rows whose effects have not landed.
    this.addSql(`create index "scim_user_pending_index" on "scim_user" ("pending", "updated_at")`);
    this.addSql(`create table "scim_group" (
      "organization_id" varchar(64) not null,
      "team_id" varchar(64) not null,
      "display_name" varchar(256) not null,
      "display_name_lower" varchar(256) not null,
      "external_id" varchar(256) null,
      "members" text not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      "revision" integer not null,
      primary key ("organization_id", "team_id")
    )`);
    this.addSql(`create unique index "scim_group_name_unique" on "scim_group" ("organization_id", "display_name_lower")`);
    this.addSql(`create index "scim_group_created_index" on "scim_group" ("organization_id", "created_at", "team_id")`);
  }
}
