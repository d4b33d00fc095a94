/**
 * Where the SAML sign-in keeps its state between the redirect and the ACS, shared by every replica: the
 * pending AuthnRequests (by RelayState hash) and the assertions already accepted (docs/adr/0069-saml-service-provider.md).
 * Tables of the sso service's database; `samlStateMigration` follows the service's own migrations.
 */
import { defineEntity, p } from "@mikro-orm/core";
import { Migration } from "@mikro-orm/migrations";
import { isUniqueViolation, openStore, type Store } from "@auth-platform/runtime/store";
import { memoryReplayStore, type SamlReplayStore } from "./replay.js";
import { memorySamlRequestStore, type SamlHandoff, type SamlRequestStore } from "./sign-in.js";

export type SamlStateStore = SamlRequestStore & SamlReplayStore;

export const SamlRequestEntity = defineEntity({
  name: "SsoSamlRequest",
  tableName: "sso_saml_request",
  properties: {
    relayStateHash: p.string().primary(),
    providerId: p.string(),
    requestId: p.string(),
    callbackUrl: p.text(),
    errorCallbackUrl: p.text().nullable(),
    newUserCallbackUrl: p.text().nullable(),
    expiresAt: p.datetime(),
  },
});

export const SamlAssertionEntity = defineEntity({
  name: "SsoSamlAssertion",
  tableName: "sso_saml_assertion",
  properties: {
    providerId: p.string().primary(),
    assertionId: p.string().primary(),
    expiresAt: p.datetime(),
  },
});

export const SamlHandoffEntity = defineEntity({
  name: "SsoSamlHandoff",
  tableName: "sso_saml_handoff",
  properties: {
    handoffHash: p.string().primary(),
    providerId: p.string(),
    relayStateHash: p.string().nullable(),
    profile: p.text(),
    callbackUrl: p.text().nullable(),
    errorCallbackUrl: p.text().nullable(),
    newUserCallbackUrl: p.text().nullable(),
    expiresAt: p.datetime(),
  },
});

class CreateSamlState extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "sso_saml_request" (
      "relay_state_hash" varchar(64) not null primary key,
      "provider_id" varchar(64) not null,
      "request_id" varchar(128) not null,
      "callback_url" text not null,
      "error_callback_url" text null,
      "new_user_callback_url" text null,
      "expires_at" timestamptz not null
    )`);
    this.addSql(`create index "sso_saml_request_expires_index" on "sso_saml_request" ("expires_at")`);
    // The primary key is the one-time claim: a second insert of the pair is a replay.
    this.addSql(`create table "sso_saml_assertion" (
      "provider_id" varchar(64) not null,
      "assertion_id" varchar(256) not null,
      "expires_at" timestamptz not null,
      primary key ("provider_id", "assertion_id")
    )`);
    this.addSql(`create index "sso_saml_assertion_expires_index" on "sso_saml_assertion" ("expires_at")`);
  }
}

class CreateSamlHandoff extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "sso_saml_handoff" (
      "handoff_hash" varchar(64) not null primary key,
      "provider_id" varchar(64) not null,
      "relay_state_hash" varchar(64) null,
      "profile" text not null,
      "callback_url" text null,
      "error_callback_url" text null,
      "new_user_callback_url" text null,
      "expires_at" timestamptz not null
    )`);
    this.addSql(`create index "sso_saml_handoff_expires_index" on "sso_saml_handoff" ("expires_at")`);
  }
}

export const samlStateMigration = { name: "0004-saml-state", class: CreateSamlState };
export const samlHandoffMigration = { name: "0006-saml-handoff", class: CreateSamlHandoff };
export const samlStateEntities = [SamlRequestEntity, SamlAssertionEntity, SamlHandoffEntity];

/** The state on a store opened with `samlStateEntities` and `samlStateMigration`. */
export function samlStateOn(store: Store): SamlStateStore {
  return {
    async put(request) {
      await store.em().insert(SamlRequestEntity, { ...request });
    },
    async take(relayStateHash, now) {
      const row = await store.readOne(SamlRequestEntity, { relayStateHash });
      if (!row) return null;
      // Whoever deletes the row owns it: two ACS posts with one RelayState cannot both take it.
      if ((await store.em().nativeDelete(SamlRequestEntity, { relayStateHash })) !== 1) return null;
      await store.em().nativeDelete(SamlRequestEntity, { expiresAt: { $lte: now } });
      return row.expiresAt > now ? { ...row, errorCallbackUrl: row.errorCallbackUrl ?? null, newUserCallbackUrl: row.newUserCallbackUrl ?? null } : null;
    },
    async putHandoff(handoff) {
      await store.em().insert(SamlHandoffEntity, { ...handoff, profile: JSON.stringify(handoff.profile) });
    },
    async takeHandoff(handoffHash, now) {
      const row = await store.readOne(SamlHandoffEntity, { handoffHash });
      if (!row) return null;
      if ((await store.em().nativeDelete(SamlHandoffEntity, { handoffHash })) !== 1) return null;
      await store.em().nativeDelete(SamlHandoffEntity, { expiresAt: { $lte: now } });
      if (row.expiresAt <= now) return null;
      return {
        handoffHash: row.handoffHash,
        providerId: row.providerId,
        relayStateHash: row.relayStateHash ?? null,
        profile: JSON.parse(row.profile) as SamlHandoff["profile"],
        callbackUrl: row.callbackUrl ?? null,
        errorCallbackUrl: row.errorCallbackUrl ?? null,
        newUserCallbackUrl: row.newUserCallbackUrl ?? null,
        expiresAt: row.expiresAt,
      };
    },
    async claim(providerId, assertionId, until, now) {
      await store.em().nativeDelete(SamlAssertionEntity, { expiresAt: { $lte: now } });
      try {
        await store.em().insert(SamlAssertionEntity, { providerId, assertionId, expiresAt: until });
        return true;
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },
  };
}

/** A store of its own (the state's contract suite); the service opens the tables with its others. */
export async function openSamlStateStore(url: string): Promise<SamlStateStore & { close(): Promise<void> }> {
  const store = await openStore({ url, entities: samlStateEntities, migrations: [samlStateMigration, samlHandoffMigration] });
  return { ...samlStateOn(store), close: () => store.close() };
}

export function memorySamlStateStore(): SamlStateStore & { close(): Promise<void> } {
  return { ...memorySamlRequestStore(), ...memoryReplayStore(), close: async () => {} };
}
