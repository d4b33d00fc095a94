/**
 * The identity schema's migrations, in order. Plain SQL that PostgreSQL and SQLite both accept; a released
 * migration is never edited, a change is a new class appended here.
 */
import { Migration } from "@mikro-orm/migrations";

class CreateUserAndAccount extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "user" (
      "id" varchar(64) not null primary key,
      "name" varchar(255) not null,
      "email" varchar(255) not null,
      "email_verified" boolean not null default false,
      "image" text null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      "username" varchar(255) null,
      "display_username" varchar(255) null,
      "role" varchar(255) null,
      "banned" boolean not null default false,
      "ban_reason" text null,
      "ban_expires" timestamptz null,
      "extra_fields" text not null default '{}'
    )`);
    this.addSql(`create unique index "user_email_unique" on "user" ("email")`);
    this.addSql(`create unique index "user_username_unique" on "user" ("username")`);
    this.addSql(`create table "account" (
      "id" varchar(64) not null primary key,
      "account_id" varchar(255) not null,
      "provider_id" varchar(255) not null,
      "user_id" varchar(64) not null,
      "password" text null,
      "access_token" text null,
      "refresh_token" text null,
      "id_token" text null,
      "access_token_expires_at" timestamptz null,
      "refresh_token_expires_at" timestamptz null,
      "scope" text null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null
    )`);
    this.addSql(`create index "account_user_id_index" on "account" ("user_id")`);
    this.addSql(`create unique index "account_provider_account_unique" on "account" ("provider_id", "account_id")`);
  }
}

class CreateVerification extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "verification" (
      "id" varchar(64) not null primary key,
      "identifier" varchar(255) not null,
      "value" text not null,
      "expires_at" timestamptz not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null
    )`);
    this.addSql(`create index "verification_identifier_index" on "verification" ("identifier")`);
  }
}

class CreateMailRequest extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "mail_request" (
      "id" varchar(64) not null primary key,
      "kind" varchar(32) not null,
      "email" varchar(320) not null,
      "callback_url" text null,
      "attempts" integer not null default 0,
      "next_attempt_at" timestamptz not null,
      "lease_until" timestamptz null,
      "created_at" timestamptz not null
    )`);
    // The worker's scan: requests by due time.
    this.addSql(`create index "mail_request_next_attempt_at_index" on "mail_request" ("next_attempt_at")`);
    // Voiding a user's older reset tokens: by user, among the reset-password records.
    this.addSql(`create index "verification_value_index" on "verification" ("value")`);
  }
}

class CreateTwoFactor extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table "user" add column "two_factor_enabled" boolean not null default false`);
    this.addSql(`create table "two_factor" (
      "user_id" varchar(64) not null primary key,
      "secret" text not null,
      "verified" boolean not null default false,
      "last_totp_step" integer null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null
    )`);
    this.addSql(`create table "two_factor_backup_code" (
      "user_id" varchar(64) not null,
      "code_hash" varchar(128) not null,
      primary key ("user_id", "code_hash")
    )`);
    this.addSql(`create table "two_factor_challenge" (
      "id" varchar(128) not null primary key,
      "user_id" varchar(64) not null,
      "remember_me" boolean not null,
      "ip_address" varchar(255) null,
      "user_agent" text null,
      "attempts" integer not null default 0,
      "otp_hash" varchar(128) null,
      "otp_expires_at" timestamptz null,
      "expires_at" timestamptz not null,
      "created_at" timestamptz not null
    )`);
    this.addSql(`create index "two_factor_challenge_user_id_index" on "two_factor_challenge" ("user_id")`);
    this.addSql(`create table "trusted_device" (
      "id" varchar(64) not null primary key,
      "user_id" varchar(64) not null,
      "token_hash" varchar(128) not null,
      "user_agent" text null,
      "ip_address" varchar(255) null,
      "created_at" timestamptz not null,
      "last_used_at" timestamptz not null,
      "expires_at" timestamptz not null
    )`);
    this.addSql(`create unique index "trusted_device_token_hash_unique" on "trusted_device" ("token_hash")`);
    this.addSql(`create index "trusted_device_user_id_index" on "trusted_device" ("user_id")`);
  }
}

/**
 * list-users (admin): an index for each sort order (ties broken by id, so each page is one index range),
 * the lower-cased name for name search and sort, the role filter. Email search uses the unique email index.
 */
class UserAdmin extends Migration {
  async up(): Promise<void> {
    this.addSql(`create index "user_created_at_id_index" on "user" ("created_at", "id")`);
    this.addSql(`create index "user_updated_at_id_index" on "user" ("updated_at", "id")`);
    this.addSql(`create index "user_name_id_index" on "user" ("name", "id")`);
    this.addSql(`create index "user_lower_name_index" on "user" (lower("name"))`);
    this.addSql(`create index "user_role_created_at_index" on "user" ("role", "created_at")`);
    this.addSql(`create index "user_banned_created_at_index" on "user" ("banned", "created_at")`);
    // PostgreSQL only: trigram indexes serve the infix and suffix searches (LIKE '%x%', '%x'), which no
    // B-tree can. pg_trgm is a trusted extension (PostgreSQL 13+), so a database owner may create it;
    // where that is refused, the searches still work, by scanning, and a notice says why.
    // The store opens PostgreSQL by clientUrl and SQLite by dbName (services/runtime/src/store.ts).
    if (/^postgres(ql)?:\/\//.test(String(this.config.get("clientUrl") ?? ""))) {
      this.addSql(`do $$ begin
        create extension if not exists pg_trgm;
      exception when insufficient_privilege then
        raise notice 'pg_trgm not available: list-users infix searches scan the user table';
      end $$`);
      this.addSql(`do $$ begin
        if exists (select 1 from pg_extension where extname = 'pg_trgm') then
          create index "user_email_trgm_index" on "user" using gin ("email" gin_trgm_ops);
          create index "user_lower_name_trgm_index" on "user" using gin (lower("name") gin_trgm_ops);
        end if;
      end $$`);
    }
  }
}

/**
 * list-users' case-insensitive name prefix search (lower(name) LIKE 'x%') as an index range on PostgreSQL:
 * only a text_pattern_ops index serves LIKE under a database collation other than "C" (C.UTF-8 included),
 * so the bounded count and the filtered page read the matching rows instead of the table. It replaces
 * 0005's plain lower(name) index, which no query used there. SQLite keeps its own.
 */
class UserNamePrefix extends Migration {
  async up(): Promise<void> {
    if (/^postgres(ql)?:\/\//.test(String(this.config.get("clientUrl") ?? ""))) {
      this.addSql(`create index "user_lower_name_pattern_index" on "user" (lower("name") text_pattern_ops)`);
      this.addSql(`drop index if exists "user_lower_name_index"`);
    }
  }
}

/**
 * list-users' name search on PostgreSQL reads a stored lower-cased copy of the name: evaluating lower() on
 * every row made a scan for an infix (the bounded count of `name contains x`, or its matches read first)
 * about three times slower than the same scan of a stored column, under C.UTF-8 and other libc collations.
 * The trigram and prefix indexes move to the column. Adding a stored generated column rewrites the table
 * under an exclusive lock (about a second per 100,000 users); SQLite keeps lower("name") and its index.
 */
class UserNameLower extends Migration {
  async up(): Promise<void> {
    if (/^postgres(ql)?:\/\//.test(String(this.config.get("clientUrl") ?? ""))) {
      this.addSql(`alter table "user" add column "name_lower" text generated always as (lower("name")) stored`);
      this.addSql(`create index "user_name_lower_pattern_index" on "user" ("name_lower" text_pattern_ops)`);
      this.addSql(`drop index if exists "user_lower_name_pattern_index"`);
      this.addSql(`do $$ begin
        if exists (select 1 from pg_extension where extname = 'pg_trgm') then
          create index "user_name_lower_trgm_index" on "user" using gin ("name_lower" gin_trgm_ops);
        end if;
      end $$`);
      this.addSql(`drop index if exists "user_lower_name_trgm_index"`);
    }
  }
}

/**
 * list-users filtered on emailVerified, in the default and the name order, as one index range each (the
 * filter reads `ne true` as `= false`: the column is NOT NULL). Without them the page walked the sort
 * order's index and passed every verified user ahead of the first unverified one: at 100,000 users, 30,000
 * rows when the two correlate, as new and unverified accounts do in the default order.
 */
class UserEmailVerified extends Migration {
  async up(): Promise<void> {
    this.addSql(`create index "user_email_verified_created_at_id_index" on "user" ("email_verified", "created_at", "id")`);
    this.addSql(`create index "user_email_verified_name_id_index" on "user" ("email_verified", "name", "id")`);
  }
}

/**
 * The session outbox: what the session service has still to be told about a user, written with every write
 * of the user (domain/session-outbox.ts). A new table only: nothing running is locked or changed.
 */
class CreateSessionOutbox extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "session_outbox" (
      "user_id" varchar(64) not null primary key,
      "revoke_sessions" boolean not null default false,
      "version" integer not null,
      "attempts" integer not null default 0,
      "next_attempt_at" timestamptz not null,
      "lease_until" timestamptz null
    )`);
    this.addSql(`create index "session_outbox_next_attempt_at_index" on "session_outbox" ("next_attempt_at")`);
  }
}

/** The language of a queued mail request's mail; rows queued before have none (English). A nullable column only. */
class MailRequestLanguage extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table "mail_request" add column "language" varchar(16) null`);
  }
}

/**
 * When each user last signed in (docs/adr/0054-last-sign-in-and-audit-names.md): a nullable column, so adding
 * it rewrites no row on either database.
 */
class UserLastSignIn extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table "user" add column "last_sign_in_at" timestamptz null`);
  }
}

/**
 * The first factor of a two-factor challenge, recorded on the session it opens
 * (docs/adr/0064-sessions-record-how-the-user-signed-in.md). A nullable column only.
 */
class ChallengeSignInMethod extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table "two_factor_challenge" add column "method" varchar(64) null`);
  }
}

/**
 * Passkeys (docs/adr/0059-passkeys.md): the credentials, unique by credential id across users, and the
 * pending ceremonies, each taken once. Two new tables only: nothing running is locked or changed.
 */
class CreatePasskeys extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "passkey" (
      "id" varchar(64) not null primary key,
      "user_id" varchar(64) not null,
      "name" varchar(255) null,
      "credential_id" varchar(1024) not null,
      "public_key" text not null,
      "counter" bigint not null default 0,
      "device_type" varchar(32) not null,
      "backed_up" boolean not null,
      "transports" varchar(255) not null default '',
      "aaguid" varchar(64) null,
      "created_at" timestamptz not null
    )`);
    this.addSql(`create unique index "passkey_credential_id_unique" on "passkey" ("credential_id")`);
    this.addSql(`create index "passkey_user_id_index" on "passkey" ("user_id")`);
    this.addSql(`create table "passkey_challenge" (
      "id" varchar(128) not null primary key,
      "kind" varchar(32) not null,
      "challenge" varchar(255) not null,
      "user_id" varchar(64) null,
      "session_id" varchar(64) null,
      "expires_at" timestamptz not null,
      "created_at" timestamptz not null
    )`);
    this.addSql(`create index "passkey_challenge_user_id_index" on "passkey_challenge" ("user_id")`);
    this.addSql(`create index "passkey_challenge_expires_at_index" on "passkey_challenge" ("expires_at")`);
  }
}

/**
 * Mail sign-in (docs/adr/0061-mail-sign-in.md): the mailed codes, one per purpose and address, and what a
 * queued mail request needs beyond its address (a link's other callback URLs, a code's purpose). A new table
 * and a nullable column: nothing running is locked or rewritten.
 */
class MailSignIn extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "email_code" (
      "id" varchar(64) not null primary key,
      "purpose" varchar(32) not null,
      "email" varchar(320) not null,
      "code_hash" varchar(128) not null,
      "attempts" integer not null default 0,
      "expires_at" timestamptz not null,
      "created_at" timestamptz not null
    )`);
    this.addSql(`create unique index "email_code_purpose_email_unique" on "email_code" ("purpose", "email")`);
    this.addSql(`alter table "mail_request" add column "details" text null`);
  }
}

/**
 * The user event outbox (docs/adr/0074-user-event-outbox.md): what other services must learn of a user,
 * one row per event with its type, written with the write it records. A new table only: nothing running is
 * locked or changed.
 */
class CreateUserEvent extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "user_event" (
      "id" varchar(64) not null primary key,
      "user_id" varchar(64) not null,
      "type" varchar(64) not null,
      "payload" text not null,
      "occurred_at" timestamptz not null,
      "attempts" integer not null default 0,
      "next_attempt_at" timestamptz not null,
      "lease_until" timestamptz null
    )`);
    this.addSql(`create index "user_event_user_id_index" on "user_event" ("user_id")`);
    this.addSql(`create index "user_event_next_attempt_at_index" on "user_event" ("next_attempt_at")`);
  }
}

/**
 * API keys (docs/adr/0075-api-keys.md): one row per key, found by the keyed hash of the key (unique index),
 * listed by owner. A new table only: nothing running is locked or changed.
 */
class CreateApiKey extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "api_key" (
      "id" varchar(64) not null primary key,
      "name" varchar(255) null,
      "start" varchar(32) null,
      "prefix" varchar(64) null,
      "key_hash" varchar(128) not null,
      "user_id" varchar(64) null,
      "organization_id" varchar(64) null,
      "permissions" text null,
      "metadata" text null,
      "enabled" boolean not null default true,
      "expires_at" timestamptz null,
      "rate_limit_window_ms" bigint null,
      "rate_limit_max" integer null,
      "window_start" bigint null,
      "request_count" integer not null default 0,
      "last_used_at" timestamptz null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null
    )`);
    this.addSql(`create unique index "api_key_key_hash_unique" on "api_key" ("key_hash")`);
    this.addSql(`create index "api_key_user_id_index" on "api_key" ("user_id")`);
    this.addSql(`create index "api_key_organization_id_index" on "api_key" ("organization_id")`);
    this.addSql(`create index "api_key_expires_at_index" on "api_key" ("expires_at")`);
  }
}

export const identityMigrations = [
  { name: "0001-create-user-and-account", class: CreateUserAndAccount },
  { name: "0002-create-verification", class: CreateVerification },
  { name: "0003-create-mail-request", class: CreateMailRequest },
  { name: "0004-two-factor", class: CreateTwoFactor },
  { name: "0005-user-admin", class: UserAdmin },
  { name: "0006-user-name-prefix", class: UserNamePrefix },
  { name: "0007-user-name-lower", class: UserNameLower },
  { name: "0008-user-email-verified", class: UserEmailVerified },
  { name: "0009-session-outbox", class: CreateSessionOutbox },
  { name: "0010-mail-request-language", class: MailRequestLanguage },
  { name: "0011-user-last-sign-in", class: UserLastSignIn },
  { name: "0012-challenge-sign-in-method", class: ChallengeSignInMethod },
  { name: "0013-passkeys", class: CreatePasskeys },
  { name: "0014-mail-sign-in", class: MailSignIn },
  { name: "0015-user-event", class: CreateUserEvent },
  { name: "0016-api-key", class: CreateApiKey },
];
