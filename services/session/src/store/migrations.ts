/**
 * The session schema's migrations, in order; plain SQL both PostgreSQL and SQLite accept. A released
 * migration is never edited: a change is a new one.
 */
import { Migration } from "@mikro-orm/migrations";
import type { MigrationEntry } from "@auth-platform/runtime/migration-rule";
import type { TokenVault } from "@auth-platform/runtime/session-token";

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

/**
 * Replaces the plain token by its keyed hash and an encrypted copy (a code migration: the values need
 * AUTH_SECRET). The table is rebuilt, not altered, so both dialects get the NOT NULL columns: rows are copied
 * with the token in token_hash, then each row gets its real hash and sealed copy, inside the migration's
 * transaction and under the migration lock (runtime/store.ts), so no replica sees a half-converted table.
 */
function hashSessionTokens(vault: TokenVault) {
  return class HashSessionTokens extends Migration {
    async up(): Promise<void> {
      await this.execute(`create table "session_hashed" (
        "id" varchar(64) not null primary key,
        "token_hash" varchar(64) not null,
        "token_sealed" text not null,
        "user_id" varchar(64) not null,
        "expires_at" timestamptz not null,
        "ip_address" varchar(64) null,
        "user_agent" text null,
        "created_at" timestamptz not null,
        "updated_at" timestamptz not null,
        "impersonated_by" varchar(64) null,
        "active_organization_id" varchar(64) null
      )`);
      await this.execute(`insert into "session_hashed" ("id", "token_hash", "token_sealed", "user_id", "expires_at",
        "ip_address", "user_agent", "created_at", "updated_at", "impersonated_by", "active_organization_id")
        select "id", "token", '', "user_id", "expires_at", "ip_address", "user_agent", "created_at", "updated_at",
        "impersonated_by", "active_organization_id" from "session"`);
      const rows = (await this.execute(`select "id", "token_hash" from "session_hashed"`)) as Array<{ id: string; token_hash: string }>;
      for (const row of rows) {
        await this.execute(`update "session_hashed" set "token_hash" = ?, "token_sealed" = ? where "id" = ?`, [
          vault.lookup(row.token_hash),
          vault.seal(row.token_hash, row.id),
          row.id,
        ]);
      }
      await this.execute(`drop table "session"`);
      await this.execute(`alter table "session_hashed" rename to "session"`);
      await this.execute(`create unique index "session_token_hash_unique" on "session" ("token_hash")`);
      await this.execute(`create index "session_user_id_index" on "session" ("user_id")`);
      await this.execute(`create table "session_pending_revocation" (
        "token_hash" varchar(64) not null primary key,
        "expires_at" timestamptz not null,
        "recorded_at" timestamptz not null
      )`);
    }
  };
}

/** The session service's copy of each user with sessions (entities.ts, SessionUserEntity). */
class CreateSessionUser extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "session_user" (
      "user_id" varchar(64) not null primary key,
      "updated_at" timestamptz not null,
      "snapshot" text not null
    )`);
  }
}

/** Sessions are looked up by active organization when one is deleted or a member leaves it. */
class IndexActiveOrganization extends Migration {
  async up(): Promise<void> {
    this.addSql(`create index "session_active_organization_id_index" on "session" ("active_organization_id")`);
  }
}

/** Cache entries still to drop after a change Redis could not take (entities.ts, PendingForgetEntity). */
class CreatePendingForget extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "session_pending_forget" (
      "token_hash" varchar(64) not null primary key,
      "recorded_at" timestamptz not null
    )`);
  }
}

/**
 * The organization each user last set active, so a new session starts in it (docs/adr/0053); looked up by
 * organization when one is deleted or a member leaves it.
 */
class CreateRememberedOrganization extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "session_remembered_organization" (
      "user_id" varchar(64) not null primary key,
      "organization_id" varchar(64) not null
    )`);
    this.addSql(`create index "session_remembered_organization_organization_id_index" on "session_remembered_organization" ("organization_id")`);
  }
}

/**
 * How each session was opened (docs/adr/0064-sessions-record-how-the-user-signed-in.md): nullable columns, so
 * adding them rewrites no row, and a replica of the previous release keeps inserting without them.
 */
class SessionAuthentication extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table "session" add column "auth_method" varchar(64) null`);
    this.addSql(`alter table "session" add column "second_factor" varchar(32) null`);
    this.addSql(`alter table "session" add column "authenticated_at" timestamptz null`);
  }
}

/**
 * The session's active team (docs/adr/0065-organization-teams.md): a nullable column, so adding it rewrites
 * no row; indexed for clearing a deleted team from every session.
 */
class SessionActiveTeam extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table "session" add column "active_team_id" varchar(64) null`);
    this.addSql(`create index "session_active_team_id_index" on "session" ("active_team_id")`);
  }
}

/**
 * The keys that sign session JWTs (entities.ts, JwtKeyEntity): one per rotation slot, so replicas agree
 * (docs/adr/0076-session-jwts-signed-by-the-session-service.md).
 */
class CreateJwtKey extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "session_jwt_key" (
      "kid" varchar(64) not null primary key,
      "slot" varchar(128) not null,
      "algorithm" varchar(16) not null,
      "public_jwk" text not null,
      "private_key_sealed" text not null,
      "created_at" timestamptz not null,
      "signs_from" timestamptz not null,
      "signs_until" timestamptz not null,
      "published_from" timestamptz not null,
      "published_until" timestamptz not null
    )`);
    this.addSql(`create unique index "session_jwt_key_slot_unique" on "session_jwt_key" ("slot")`);
    this.addSql(`create index "session_jwt_key_published_until_index" on "session_jwt_key" ("published_until")`);
  }
}

/**
 * The webhook event outbox (docs/adr/0077-signed-webhooks.md): session.created and session.revoked, one row
 * per event written with the change. A new table only: nothing running is locked or changed.
 */
class CreateSessionEvent extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "session_event" (
      "id" varchar(64) not null primary key,
      "user_id" varchar(64) not null,
      "type" varchar(64) not null,
      "data" text not null,
      "occurred_at" timestamptz not null,
      "attempts" integer not null default 0,
      "next_attempt_at" timestamptz not null,
      "lease_until" timestamptz null
    )`);
    this.addSql(`create index "session_event_user_id_index" on "session_event" ("user_id")`);
    this.addSql(`create index "session_event_next_attempt_at_index" on "session_event" ("next_attempt_at")`);
  }
}

/**
 * The sessions an import brought from another product, their users, and the run that last saw each in its
 * source (entities.ts, SessionImportEntity; docs/adr/0079-importing-a-better-auth-database.md). A new table only.
 */
class CreateSessionImport extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "session_import" (
      "session_id" varchar(64) not null primary key,
      "user_id" varchar(64) not null,
      "run" varchar(64) not null
    )`);
  }
}

export function sessionMigrations(vault: TokenVault): MigrationEntry[] {
  return [
    { name: "0001-create-session", class: CreateSession },
    {
      name: "0002-hash-session-tokens",
      class: hashSessionTokens(vault),
      // Older than the compatibility rule (docs/upgrades.md#history): the previous release reads "token".
      replaceTogether: "the previous release's session replicas look sessions up by the plain token this drops, and its gateways read cache records without the hash",
    },
    { name: "0003-session-user", class: CreateSessionUser },
    { name: "0005-session-active-organization", class: IndexActiveOrganization },
    { name: "0006-session-pending-forget", class: CreatePendingForget },
    { name: "0007-session-remembered-organization", class: CreateRememberedOrganization },
    { name: "0008-session-authentication", class: SessionAuthentication },
    { name: "0009-session-active-team", class: SessionActiveTeam },
    { name: "0010-session-jwt-key", class: CreateJwtKey },
    { name: "0011-session-event", class: CreateSessionEvent },
    { name: "0012-session-import", class: CreateSessionImport },
  ];
}
