/**
 * The sso schema's migrations, in order; plain SQL both PostgreSQL and SQLite accept. A released migration
 * is never edited: a change is a new one. Organization and user ids are plain ids (other services' rows).
 */
import { Migration } from "@mikro-orm/migrations";
import { samlHandoffMigration, samlStateMigration } from "../saml/saml-state-store.js";
import { CreateScim } from "../scim/migrations.js";
import { CreateDomain } from "./domain-migrations.js";

class CreateProvider extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "sso_provider" (
      "provider_id" varchar(64) not null primary key,
      "organization_id" varchar(64) not null,
      "type" varchar(16) not null,
      "issuer" text not null,
      "domain" varchar(255) not null,
      "domain_verified" boolean not null,
      "enabled" boolean not null,
      "default_role" varchar(255) not null,
      "user_id" varchar(64) not null,
      "oidc_config" text null,
      "saml_config" text null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null
    )`);
    // One domain routes to one provider; it also serves the sign-in lookup by email domain.
    this.addSql(`create unique index "sso_provider_domain_unique" on "sso_provider" ("domain")`);
    this.addSql(`create index "sso_provider_organization_index" on "sso_provider" ("organization_id", "created_at")`);
  }
}

class CreateOidcState extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "sso_oidc_state" (
      "state" varchar(64) not null primary key,
      "provider_id" varchar(64) not null,
      "code_verifier" varchar(128) not null,
      "nonce" varchar(64) not null,
      "callback_url" text not null,
      "error_url" text null,
      "new_user_url" text null,
      "expires_at" timestamptz not null
    )`);
    this.addSql(`create index "sso_oidc_state_expires_index" on "sso_oidc_state" ("expires_at")`);
  }
}

export const ssoMigrations = [
  { name: "0001-create-provider", class: CreateProvider },
  { name: "0002-create-scim", class: CreateScim },
  { name: "0003-create-domain", class: CreateDomain },
  samlStateMigration,
  { name: "0005-oidc-state", class: CreateOidcState },
  samlHandoffMigration,
];
