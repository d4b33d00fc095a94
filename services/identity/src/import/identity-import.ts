/**
 * Writes imported users, their accounts and their two-factor enrolments into the identity store
 * (docs/adr/0079-importing-a-better-auth-database.md). Every write is keyed by the source's ids, so a rerun
 * doubles nothing: a user or an account is replaced only by a newer copy (updatedAt), a two-factor
 * enrolment is written once. Password hashes are kept as they are: better-auth's scrypt `salt:hash` is the
 * format of password.ts. What the source encrypted with its secret is opened and sealed again as ours is.
 */
import type { ImportedAccount, ImportedTwoFactor, ImportedUser, ImportOutcome } from "@auth-platform/runtime/imported-rows";
import { emptyOutcome, skip } from "@auth-platform/runtime/imported-rows";
import { bulkInsert, bulkLookup } from "@auth-platform/runtime/bulk-insert";
import { openStore, type Store } from "@auth-platform/runtime/store";
import type { IdentityConfig } from "../config.js";
import { providerTokenVault } from "../domain/provider-token-vault.js";
import { codeHash, seal } from "../domain/secret-box.js";
import { AccountEntity, type AccountRow, BackupCodeEntity, TwoFactorEntity, UserEntity } from "../store/entities.js";
import { identityMigrations } from "../store/migrations.js";
import { TWO_FACTOR_ENTITIES } from "../store/mikro-two-factor-store.js";
import { type BetterAuthSecrets, openBetterAuthValue } from "./better-auth-cipher.js";

export interface IdentityImport {
  importUsers(users: ImportedUser[]): Promise<ImportOutcome>;
  importAccounts(accounts: ImportedAccount[]): Promise<ImportOutcome>;
  importTwoFactors(enrolments: ImportedTwoFactor[]): Promise<ImportOutcome>;
  /** Which of these users are in the store (a session is imported only for them). */
  presentUsers(ids: string[]): Promise<Set<string>>;
  close(): Promise<void>;
}

const USER_FIELDS = [
  "name",
  "email",
  "emailVerified",
  "image",
  "createdAt",
  "updatedAt",
  "username",
  "displayUsername",
  "role",
  "banned",
  "banReason",
  "banExpires",
  "extraFields",
  "twoFactorEnabled",
] as const;
const ACCOUNT_FIELDS = [
  "accountId",
  "providerId",
  "userId",
  "password",
  "accessToken",
  "refreshToken",
  "idToken",
  "accessTokenExpiresAt",
  "refreshTokenExpiresAt",
  "scope",
  "createdAt",
  "updatedAt",
] as const;

/** A backup code as better-auth shows it (`abcde-fghij`) in the form our hashes take (the dash dropped). */
const BACKUP_CODE = /^([A-Za-z0-9]{5})-?([A-Za-z0-9]{5})$/;

/** Hex of an AEAD ciphertext (nonce and tag at least), or the versioned envelope: worth trying to open. */
const LOOKS_ENCRYPTED = /^(?:\$ba\$\d+\$)?(?:[0-9a-f]{2}){40,}$/i;

export async function openIdentityImport(config: IdentityConfig, secrets: BetterAuthSecrets): Promise<IdentityImport> {
  // Opened as the service opens it: the same entities and migrations, so a fresh database is migrated first.
  const store: Store = await openStore({ url: config.databaseUrl, entities: [UserEntity, AccountEntity, ...TWO_FACTOR_ENTITIES], migrations: identityMigrations });
  const tokens = providerTokenVault(config.secret);
  const keys = config.twoFactor.keys;

  /** Ids of the batch already taken in the store by another user (the same email or username, another id). */
  async function takenBy(users: ImportedUser[]): Promise<Map<string, string>> {
    const em = store.em();
    /** Who holds each of these values of `by`. */
    const holders = async (by: "email" | "username", values: string[]) => {
      const rows = await bulkLookup(em, { entity: UserEntity, properties: ["id", "email", "username"], by }, values);
      return new Map(rows.map((row) => [row[by], row.id]));
    };
    const byEmail = await holders(
      "email",
      users.map((u) => u.email),
    );
    const byUsername = await holders(
      "username",
      users.flatMap((u) => (u.username ? [u.username] : [])),
    );
    const taken = new Map<string, string>();
    for (const user of users) {
      const emailOf = byEmail.get(user.email);
      const usernameOf = user.username === null ? undefined : byUsername.get(user.username);
      if (emailOf !== undefined && emailOf !== user.id) taken.set(user.id, "email already used by another user");
      else if (usernameOf !== undefined && usernameOf !== user.id) taken.set(user.id, "username already used by another user");
      else {
        // The batch's first user holds the value for the rest of it: two source users whose emails differ
        // only in case become one email here, and one insert of both would fail on the unique index.
        byEmail.set(user.email, user.id);
        if (user.username !== null) byUsername.set(user.username, user.id);
      }
    }
    return taken;
  }

  /** Which of these users are in the store. */
  async function usersPresent(ids: string[]): Promise<Set<string>> {
    return new Set((await bulkLookup(store.em(), { entity: UserEntity, properties: ["id"], by: "id" }, ids)).map((u) => u.id));
  }

  /** A token as we store it: opened when the source encrypted it, then sealed for this account. */
  function reseal(value: string | null, accountId: string): string | null {
    if (!value) return null;
    let clear = value;
    if (LOOKS_ENCRYPTED.test(value)) {
      try {
        clear = openBetterAuthValue(secrets, value);
      } catch {
        // Not one of the source's ciphertexts (a provider's own hex token): kept as it is.
      }
    }
    return tokens.seal(clear, accountId);
  }

  return {
    async importUsers(users) {
      const outcome = emptyOutcome();
      if (!users.length) return outcome;
      const taken = await takenBy(users);
      for (const reason of taken.values()) skip(outcome, `users: ${reason}`);
      const rows = users.filter((u) => !taken.has(u.id)).map((u) => ({ ...u, extraFields: JSON.stringify(u.extraFields), lastSignInAt: null }));
      if (!rows.length) return outcome;
      // A newer copy replaces an older one; a user changed here since the last run keeps what changed here.
      await store
        .em()
        .transactional((tx) =>
          bulkInsert(
            tx,
            { entity: UserEntity, properties: ["id", ...USER_FIELDS, "lastSignInAt"], conflict: ["id"], onConflict: { merge: USER_FIELDS, newerBy: "updatedAt" } },
            rows,
          ),
        );
      outcome.written = rows.length;
      return outcome;
    },

    async importAccounts(accounts) {
      const outcome = emptyOutcome();
      if (!accounts.length) return outcome;
      const owners = await usersPresent([...new Set(accounts.map((a) => a.userId))]);
      const rows: Array<Pick<AccountRow, "id" | (typeof ACCOUNT_FIELDS)[number]>> = [];
      for (const account of accounts) {
        if (!owners.has(account.userId)) {
          skip(outcome, "accounts: their user was not imported");
          continue;
        }
        rows.push({
          id: account.id,
          accountId: account.accountId,
          providerId: account.providerId,
          userId: account.userId,
          password: account.password,
          accessToken: reseal(account.accessToken, account.id),
          refreshToken: reseal(account.refreshToken, account.id),
          idToken: reseal(account.idToken, account.id),
          accessTokenExpiresAt: account.accessTokenExpiresAt,
          refreshTokenExpiresAt: account.refreshTokenExpiresAt,
          scope: account.scope,
          createdAt: account.createdAt,
          updatedAt: account.updatedAt,
        });
      }
      if (!rows.length) return outcome;
      await store
        .em()
        .transactional((tx) =>
          bulkInsert(tx, { entity: AccountEntity, properties: ["id", ...ACCOUNT_FIELDS], conflict: ["id"], onConflict: { merge: ACCOUNT_FIELDS, newerBy: "updatedAt" } }, rows),
        );
      outcome.written = rows.length;
      return outcome;
    },

    async importTwoFactors(enrolments) {
      const outcome = emptyOutcome();
      if (!enrolments.length) return outcome;
      const em = store.em();
      const ids = [...new Set(enrolments.map((e) => e.userId))];
      const owners = await usersPresent(ids);
      // Written once: a rerun must not bring back backup codes used here since, nor undo a new enrolment.
      const present = new Set((await bulkLookup(em, { entity: TwoFactorEntity, properties: ["userId"], by: "userId" }, ids)).map((t) => t.userId));
      const now = new Date();
      const enrolled: Array<{ userId: string; secret: string; verified: boolean; lastTotpStep: null; createdAt: Date; updatedAt: Date }> = [];
      const codes: Array<{ userId: string; codeHash: string }> = [];
      for (const enrolment of enrolments) {
        if (!owners.has(enrolment.userId)) {
          skip(outcome, "two-factor: their user was not imported");
          continue;
        }
        if (present.has(enrolment.userId)) {
          skip(outcome, "two-factor: already imported");
          continue;
        }
        let secret: string;
        let backupCodes: string[];
        try {
          secret = openBetterAuthValue(secrets, enrolment.secret);
          backupCodes = parseBackupCodes(secrets, enrolment.backupCodes);
        } catch {
          skip(outcome, "two-factor: does not open with the better-auth secret given");
          continue;
        }
        present.add(enrolment.userId);
        // better-auth's TOTP key is the secret's text itself (its bytes), as the authenticator app holds it.
        enrolled.push({
          userId: enrolment.userId,
          secret: seal(keys, Buffer.from(secret, "utf8")),
          verified: enrolment.verified,
          lastTotpStep: null,
          createdAt: now,
          updatedAt: now,
        });
        for (const code of backupCodes) {
          const parts = BACKUP_CODE.exec(code.trim());
          if (parts) codes.push({ userId: enrolment.userId, codeHash: codeHash(keys, `${parts[1]}${parts[2]}`) });
          else skip(outcome, "two-factor: backup codes of an unknown form");
        }
      }
      if (enrolled.length) {
        await em.transactional(async (tx) => {
          await bulkInsert(
            tx,
            { entity: TwoFactorEntity, properties: ["userId", "secret", "verified", "lastTotpStep", "createdAt", "updatedAt"], conflict: ["userId"], onConflict: { ignore: true } },
            enrolled,
          );
          await bulkInsert(tx, { entity: BackupCodeEntity, properties: ["userId", "codeHash"], conflict: ["userId", "codeHash"], onConflict: { ignore: true } }, codes);
        });
      }
      outcome.written = enrolled.length;
      return outcome;
    },

    presentUsers: usersPresent,

    close: () => store.close(),
  };
}

/** The backup codes: better-auth stores them encrypted (its default) or as plain JSON. */
function parseBackupCodes(secrets: BetterAuthSecrets, stored: string): string[] {
  const text = stored.trim().startsWith("[") ? stored : openBetterAuthValue(secrets, stored);
  const codes = JSON.parse(text) as unknown;
  if (!Array.isArray(codes) || !codes.every((c) => typeof c === "string")) throw new Error("backup codes are not a list of strings");
  return codes;
}
