/**
 * The verified-domain table's migration, appended to the sso schema's list (migrations.ts). Plain SQL both
 * PostgreSQL and SQLite accept; never edited once released.
 */
import { Migration } from "@mikro-orm/migrations";

export class CreateDomain extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "sso_domain" (
      "id" varchar(64) not null primary key,
      "organization_id" varchar(64) not null,
      "domain" varchar(255) not null,
      "token" varchar(64) not null,
      "created_at" timestamptz not null,
      "expires_at" timestamptz not null,
      "verified_at" timestamptz null,
      "verified_domain" varchar(255) null,
      "auto_join_role" varchar(64) null,
      "auto_join_since" timestamptz null
    )`);
    // One claim of a domain per organization; it also lists an organization's domains.
    this.addSql(`create unique index "sso_domain_organization_domain_unique" on "sso_domain" ("organization_id", "domain")`);
    // One verified claim per domain (NULLs are distinct on both dialects): the rule and the routing lookup.
    this.addSql(`create unique index "sso_domain_verified_unique" on "sso_domain" ("verified_domain")`);
  }
}
