/**
 * The organization schema's migrations, in order; plain SQL both PostgreSQL and SQLite accept. A released
 * migration is never edited: a change is a new one. No foreign keys to other services' tables (user ids are
 * plain ids); inside this schema, members and invitations are deleted with their organization by the store.
 */
import { Migration } from "@mikro-orm/migrations";

class CreateOrganization extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "organization" (
      "id" varchar(64) not null primary key,
      "name" varchar(255) not null,
      "slug" varchar(255) not null,
      "logo" text null,
      "metadata" text null,
      "created_at" timestamptz not null
    )`);
    this.addSql(`create unique index "organization_slug_unique" on "organization" ("slug")`);
    this.addSql(`create table "member" (
      "id" varchar(64) not null primary key,
      "organization_id" varchar(64) not null,
      "user_id" varchar(64) not null,
      "role" varchar(255) not null,
      "created_at" timestamptz not null
    )`);
    // One membership per user and organization; it also serves "is U a member of O".
    this.addSql(`create unique index "member_organization_user_unique" on "member" ("organization_id", "user_id")`);
    // Member pages: oldest first within one organization, read straight off the index.
    this.addSql(`create index "member_organization_created_index" on "member" ("organization_id", "created_at", "id")`);
    this.addSql(`create index "member_user_index" on "member" ("user_id")`);
    this.addSql(`create table "invitation" (
      "id" varchar(64) not null primary key,
      "organization_id" varchar(64) not null,
      "email" varchar(320) not null,
      "role" varchar(255) not null,
      "status" varchar(16) not null,
      "inviter_id" varchar(64) not null,
      "expires_at" timestamptz not null,
      "created_at" timestamptz not null
    )`);
    this.addSql(`create index "invitation_organization_email_index" on "invitation" ("organization_id", "email")`);
    this.addSql(`create index "invitation_email_index" on "invitation" ("email")`);
    this.addSql(`create index "invitation_inviter_index" on "invitation" ("inviter_id")`);
  }
}

/**
 * Slugs are compared folded to lower case (the domain folds every slug it writes or looks up), so slugs that
 * differ only in case become one. Of each such group the oldest organization (then the smallest id) keeps
 * the lower-cased slug; each other one gets it with "-" and the first 8 characters of its id, lower-cased,
 * appended (the slug cut to 119 characters first, so it stays within 128). Every other slug is lower-cased.
 */
class SlugLowerCase extends Migration {
  async up(): Promise<void> {
    this.addSql(`update "organization" set "slug" = substr(lower("slug"), 1, 119) || '-' || lower(substr("id", 1, 8))
      where exists (
        select 1 from "organization" as "older"
        where lower("older"."slug") = lower("organization"."slug")
          and ("older"."created_at" < "organization"."created_at" or ("older"."created_at" = "organization"."created_at" and "older"."id" < "organization"."id"))
      )`);
    this.addSql(`update "organization" set "slug" = lower("slug") where "slug" <> lower("slug")`);
  }
}

class CreateInvitationMail extends Migration {
  async up(): Promise<void> {
    // The invitation mail outbox: written with the invitation, emptied by the worker once notification took it.
    this.addSql(`create table "invitation_mail" (
      "id" varchar(64) not null primary key,
      "invitation_id" varchar(64) not null,
      "recipient" varchar(320) not null,
      "variables" text not null,
      "idempotency_key" varchar(255) not null,
      "attempts" integer not null default 0,
      "next_attempt_at" timestamptz not null,
      "lease_until" timestamptz null,
      "created_at" timestamptz not null
    )`);
    // The worker's scan: mails by due time.
    this.addSql(`create index "invitation_mail_next_attempt_at_index" on "invitation_mail" ("next_attempt_at")`);
  }
}

/** The language of a queued invitation mail (the inviter's); mails queued before have none (English). A nullable column only. */
class InvitationMailLanguage extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table "invitation_mail" add column "language" varchar(16) null`);
  }
}

/** Teams and their members' places (docs/adr/0065-organization-teams.md). */
class CreateTeams extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "team" (
      "id" varchar(64) not null primary key,
      "organization_id" varchar(64) not null,
      "name" varchar(255) not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null
    )`);
    // One team of a name per organization (SCIM finds a group's team by it); it also serves the listing.
    this.addSql(`create unique index "team_organization_name_unique" on "team" ("organization_id", "name")`);
    this.addSql(`create table "team_member" (
      "id" varchar(64) not null primary key,
      "team_id" varchar(64) not null,
      "organization_id" varchar(64) not null,
      "user_id" varchar(64) not null,
      "created_at" timestamptz not null
    )`);
    this.addSql(`create unique index "team_member_team_user_unique" on "team_member" ("team_id", "user_id")`);
    // A member's removal from the organization removes their places: one indexed delete.
    this.addSql(`create index "team_member_organization_user_index" on "team_member" ("organization_id", "user_id")`);
    this.addSql(`create index "team_member_user_index" on "team_member" ("user_id")`);
  }
}

/**
 * Custom roles (docs/adr/0066-custom-organization-roles.md): a name unique within the organization and the
 * permissions it grants, as JSON text.
 */
class CreateOrganizationRole extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "organization_role" (
      "id" varchar(64) not null primary key,
      "organization_id" varchar(64) not null,
      "name" varchar(64) not null,
      "permissions" text not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz null
    )`);
    this.addSql(`create unique index "organization_role_organization_name_unique" on "organization_role" ("organization_id", "name")`);
  }
}

/**
 * The organization event outbox (docs/adr/0077-signed-webhooks.md): one row per webhook event, written with
 * the change it records, removed once PublishEvents took it. A new table only: nothing running is locked.
 */
class CreateOrganizationEvent extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "organization_event" (
      "id" varchar(64) not null primary key,
      "type" varchar(64) not null,
      "organization_id" varchar(64) not null,
      "payload" text not null,
      "occurred_at" timestamptz not null,
      "attempts" integer not null default 0,
      "next_attempt_at" timestamptz not null,
      "lease_until" timestamptz null
    )`);
    // The worker's scan: events by due time.
    this.addSql(`create index "organization_event_next_attempt_at_index" on "organization_event" ("next_attempt_at")`);
  }
}

export const organizationMigrations = [
  { name: "0001-create-organization", class: CreateOrganization },
  { name: "0002-slug-lower-case", class: SlugLowerCase },
  { name: "0003-create-invitation-mail", class: CreateInvitationMail },
  { name: "0004-invitation-mail-language", class: InvitationMailLanguage },
  { name: "0005-teams", class: CreateTeams },
  { name: "0006-create-organization-role", class: CreateOrganizationRole },
  { name: "0007-create-organization-event", class: CreateOrganizationEvent },
];
