/** The identity store on MikroORM (SQLite or PostgreSQL). Unique violations become catalogue errors here. */
import { AuthError } from "@auth-platform/proto/errors";
import { languageOr } from "@auth-platform/runtime/language";
import { type Dialect, isUniqueViolation, openStore } from "@auth-platform/runtime/store";
import { type EntityManager, raw } from "@mikro-orm/sql";
import { BackupCodeEntity, TrustedDeviceEntity, TwoFactorChallengeEntity, TwoFactorEntity } from "./entities.js";
import { AccountEntity, type AccountRow, EmailCodeEntity, MailRequestEntity, type MailRequestRow, UserEntity, type UserRow, VerificationEntity } from "./entities.js";
import { SessionOutboxEntity, type SessionOutboxRow, UserEventEntity } from "./entities.js";
import { ApiKeyEntity, PasskeyChallengeEntity, PasskeyEntity } from "./entities.js";
import type {
  AccountRecord,
  IdentityStore,
  MailRequestDetails,
  MailRequestKind,
  MailRequestRecord,
  SessionOutboxRecord,
  UserRecord,
  VerificationRecord,
} from "./identity-store.js";
import { userUpdateEventType, verifiesEmail, type WebhookUserEventType, WRITER_DELIVERY_MS, webhookUserPayload } from "./identity-store.js";
import { identityMigrations } from "./migrations.js";
import { mikroPasskeyStore, PASSKEY_ENTITIES } from "./mikro-passkey-store.js";
import { API_KEY_ENTITIES, mikroApiKeyStore } from "./mikro-api-key-store.js";
import { mikroEmailCodeStore } from "./mikro-email-code-store.js";
import { mikroTwoFactorStore, TWO_FACTOR_ENTITIES } from "./mikro-two-factor-store.js";
import { listUsersInSql } from "./mikro-user-query.js";
import { queueSessionOutbox } from "./queue-session-outbox.js";
import { queueUserEvent, readAddress, toUserEvent } from "./queue-user-event.js";
import { nextUserUpdatedAtSql } from "./user-updated-at.js";

/** Queues the user's webhook event with the user as stored now, read in the write's transaction; none when the user is gone. */
async function queueWebhookUserEvent(em: EntityManager, userId: string, type: WebhookUserEventType, now: Date): Promise<void> {
  const row = await em.findOne(UserEntity, { id: userId });
  if (row) await queueUserEvent(em, userId, type, webhookUserPayload(toUser(row)), now);
}

function toUser(row: UserRow): UserRecord {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    emailVerified: Boolean(row.emailVerified),
    image: row.image ?? null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    username: row.username ?? null,
    displayUsername: row.displayUsername ?? null,
    role: row.role ?? null,
    banned: Boolean(row.banned),
    banReason: row.banReason ?? null,
    banExpires: row.banExpires ?? null,
    extraFields: JSON.parse(row.extraFields || "{}") as Record<string, unknown>,
    twoFactorEnabled: Boolean(row.twoFactorEnabled),
  };
}

function toAccount(row: AccountRow): AccountRecord {
  return {
    id: row.id,
    accountId: row.accountId,
    providerId: row.providerId,
    userId: row.userId,
    password: row.password ?? null,
    scope: row.scope ?? null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    accessToken: row.accessToken ?? null,
    refreshToken: row.refreshToken ?? null,
    idToken: row.idToken ?? null,
    accessTokenExpiresAt: row.accessTokenExpiresAt ?? null,
    refreshTokenExpiresAt: row.refreshTokenExpiresAt ?? null,
  };
}

/** An account record as a row: absent token fields are stored as null. */
const accountRow = (account: AccountRecord) => ({
  ...account,
  accessToken: account.accessToken ?? null,
  refreshToken: account.refreshToken ?? null,
  idToken: account.idToken ?? null,
  accessTokenExpiresAt: account.accessTokenExpiresAt ?? null,
  refreshTokenExpiresAt: account.refreshTokenExpiresAt ?? null,
  scope: account.scope ?? null,
});

function toMailRequest(row: MailRequestRow): MailRequestRecord {
  return {
    id: row.id,
    kind: row.kind as MailRequestKind,
    email: row.email,
    callbackUrl: row.callbackUrl ?? null,
    ...(row.details ? { details: JSON.parse(row.details) as MailRequestDetails } : {}),
    // A row queued before the language was kept, or with one no longer spoken: English.
    language: row.language ? languageOr(row.language) : null,
    attempts: row.attempts,
    nextAttemptAt: row.nextAttemptAt,
    leaseUntil: row.leaseUntil ?? null,
    createdAt: row.createdAt,
  };
}

/** Extra field names as configuration allows them (config.ts): safe inside a SQLite JSON path. */
const EXTRA_FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/**
 * The extra_fields column with `changes` merged in (UserPatch): each named field replaced whole, a null
 * removing it, the others as stored, computed by the UPDATE itself from the row it writes.
 */
function mergedExtraFields(dialect: Dialect, changes: Record<string, unknown>) {
  const names = Object.keys(changes);
  const bad = names.find((name) => !EXTRA_FIELD_NAME.test(name));
  if (bad !== undefined) throw new Error(`updateUser: extra field names must be plain identifiers, not ${JSON.stringify(bad)}`);
  const stored = `coalesce(nullif("extra_fields", ''), '{}')`;
  const removed = names.filter((name) => changes[name] === null || changes[name] === undefined);
  const set = names.filter((name) => !removed.includes(name));
  if (dialect === "postgresql") {
    // jsonb || replaces top-level keys whole (no deep merge); - drops a key.
    const values = Object.fromEntries(set.map((name) => [name, changes[name]]));
    return raw(`((${stored}::jsonb${" - ?::text".repeat(removed.length)}) || ?::jsonb)::text`, [...removed, JSON.stringify(values)]);
  }
  let sql = stored;
  const params: unknown[] = [];
  if (removed.length) {
    sql = `json_remove(${sql}${", ?".repeat(removed.length)})`;
    params.push(...removed.map((name) => `$.${name}`));
  }
  if (set.length) {
    sql = `json_set(${sql}${", ?, json(?)".repeat(set.length)})`;
    params.push(...set.flatMap((name) => [`$.${name}`, JSON.stringify(changes[name])]));
  }
  return raw(sql, params);
}

function toSessionOutbox(row: SessionOutboxRow): SessionOutboxRecord {
  return {
    userId: row.userId,
    revokeSessions: Boolean(row.revokeSessions),
    version: row.version,
    attempts: row.attempts,
    nextAttemptAt: row.nextAttemptAt,
    leaseUntil: row.leaseUntil ?? null,
  };
}

/** A new request's row: its details as JSON text. */
const mailRequestRow = ({ details, ...request }: Omit<MailRequestRecord, "attempts" | "leaseUntil">) => ({
  ...request,
  details: details ? JSON.stringify(details) : null,
  attempts: 0,
  leaseUntil: null,
});

const leaseFree = (now: Date) => ({ $or: [{ leaseUntil: null }, { leaseUntil: { $lte: now } }] });

/** `now` stamps updatedAt on changes (the registry's clock, which domain tests move). */
export async function openIdentityStore(url: string, options: { now?: () => Date } = {}): Promise<IdentityStore> {
  const now = options.now ?? (() => new Date());
  const store = await openStore({
    url,
    entities: [
      UserEntity,
      AccountEntity,
      VerificationEntity,
      MailRequestEntity,
      SessionOutboxEntity,
      UserEventEntity,
      EmailCodeEntity,
      ...TWO_FACTOR_ENTITIES,
      ...PASSKEY_ENTITIES,
      ...API_KEY_ENTITIES,
    ],
    migrations: identityMigrations,
  });
  return {
    ...mikroTwoFactorStore(store, now),
    ...mikroEmailCodeStore(store),
    ...mikroPasskeyStore(store),
    ...mikroApiKeyStore(store),
    async createUserWithAccount(user, account, mailRequest) {
      try {
        await store.em().transactional(async (em) => {
          await em.insert(UserEntity, { ...user, extraFields: JSON.stringify(user.extraFields) });
          if (account) await em.insert(AccountEntity, accountRow(account));
          if (mailRequest) await em.insert(MailRequestEntity, mailRequestRow(mailRequest));
          if (verifiesEmail(null, user)) await queueUserEvent(em, user.id, "email-verified", { email: user.email }, now());
          await queueUserEvent(em, user.id, "user.created", webhookUserPayload(user), now());
        });
        return user;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        const message = String((error as Error).message);
        if (user.username && /username/i.test(message)) throw new AuthError("USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER");
        throw new AuthError("USER_ALREADY_EXISTS");
      }
    },
    async findUserById(id) {
      // A plain row (Store.readOne): sign-in reads the user again before its session, so this is a hot path.
      const row = await store.readOne(UserEntity, { id });
      return row ? toUser(row) : null;
    },
    async findUsers(ids, emails) {
      if (!ids.length && !emails.length) return [];
      const rows = await store.em().find(UserEntity, { $or: [{ id: { $in: ids } }, { email: { $in: emails } }] });
      return rows.map(toUser);
    },
    // A sign-in's two lookups: plain rows, no entities (store.ts, readOne).
    async findUserByEmail(email) {
      const row = await store.readOne(UserEntity, { email });
      return row ? toUser(row) : null;
    },
    async findUserByUsername(username) {
      const row = await store.readOne(UserEntity, { username });
      return row ? toUser(row) : null;
    },
    async findAccount(userId, providerId) {
      const row = await store.readOne(AccountEntity, { userId, providerId }, { createdAt: "asc" });
      return row ? toAccount(row) : null;
    },
    async recordSignIn(userId, at) {
      // One statement by primary key, touching no other column (updatedAt stays; no outbox row). Written
      // out: every sign-in runs it, and the query builder's compiling was most of its CPU.
      await store
        .em()
        .getConnection()
        .execute(`update "user" set "last_sign_in_at" = ? where "id" = ? and ("last_sign_in_at" is null or "last_sign_in_at" < ?)`, [at, userId, at], "run");
    },
    async listUsers(query) {
      const { rows, ...counted } = await listUsersInSql(store.em(), store.dialect, query);
      const signedIn = rows.filter((row) => row.lastSignInAt);
      return { users: rows.map(toUser), ...counted, lastSignInAt: Object.fromEntries(signedIn.map((row) => [row.id, row.lastSignInAt as Date])) };
    },
    async findAccountByProvider(providerId, accountId) {
      const row = await store.em().findOne(AccountEntity, { providerId, accountId });
      return row ? toAccount(row) : null;
    },
    async updateAccountTokens(id, patch) {
      const changed = await store.em().nativeUpdate(AccountEntity, { id }, { ...patch, updatedAt: now() });
      return changed > 0;
    },
    async updateUser(id, patch, options) {
      // One UPDATE with the extra fields merged by the database: no read before it whose copy a concurrent
      // update of another field could have changed meanwhile.
      const { extraFields, ...rest } = patch;
      const columns = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
      const merge = extraFields && Object.keys(extraFields).length ? { extraFields: mergedExtraFields(store.dialect, extraFields) } : {};
      // Only a patch of the address or its flag can verify one: others read nothing more.
      const mayVerify = patch.email !== undefined || patch.emailVerified === true;
      try {
        const changed = await store.em().transactional(async (em) => {
          const before = mayVerify ? await readAddress(em, store.dialect, id) : null;
          const count = await em.nativeUpdate(UserEntity, { id }, { ...columns, ...merge, updatedAt: nextUserUpdatedAtSql(store.dialect, now()) });
          if (count) await queueSessionOutbox(em, id, now(), options?.revokeSessions);
          const after = count && mayVerify ? await readAddress(em, store.dialect, id) : null;
          if (before && after && verifiesEmail(before, after)) await queueUserEvent(em, id, "email-verified", { email: after.email }, now());
          if (count) await queueWebhookUserEvent(em, id, userUpdateEventType(patch), now());
          return count;
        });
        if (!changed) return null;
      } catch (error) {
        if (isUniqueViolation(error)) throw new AuthError(/username/i.test(String(error)) ? "USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER" : "USER_ALREADY_EXISTS");
        throw error;
      }
      const row = await store.readOne(UserEntity, { id });
      return row ? toUser(row) : null;
    },
    async markEmailVerified(id, email) {
      const changed = await store.em().transactional(async (em) => {
        const count = await em.nativeUpdate(UserEntity, { id, email, emailVerified: false }, { emailVerified: true, updatedAt: nextUserUpdatedAtSql(store.dialect, now()) });
        if (count === 1) {
          await queueSessionOutbox(em, id, now());
          await queueUserEvent(em, id, "email-verified", { email }, now());
          await queueWebhookUserEvent(em, id, "user.updated", now());
        }
        return count;
      });
      if (changed !== 1) return null;
      const row = await store.readOne(UserEntity, { id });
      return row ? toUser(row) : null;
    },
    async listAccounts(userId) {
      const rows = await store.em().find(AccountEntity, { userId }, { orderBy: { createdAt: "asc" } });
      return rows.map(toAccount);
    },
    async createAccount(account, options) {
      try {
        await store.em().transactional(async (em) => {
          await em.insert(AccountEntity, accountRow(account));
          if (options?.revokeSessions) await queueSessionOutbox(em, account.userId, now(), true);
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw new AuthError("SOCIAL_ACCOUNT_ALREADY_LINKED");
        throw error;
      }
    },
    async setAccountPassword(accountId, passwordHash, options) {
      return store.em().transactional(async (em) => {
        const changed = await em.nativeUpdate(AccountEntity, { id: accountId }, { password: passwordHash, updatedAt: now() });
        if (changed && options?.revokeSessionsOf) await queueSessionOutbox(em, options.revokeSessionsOf, now(), true);
        return changed > 0;
      });
    },
    async deleteAccount(accountId) {
      await store.em().nativeDelete(AccountEntity, { id: accountId });
    },
    async deletePasskeyUnlessLast(userId, id) {
      // Counted and deleted in one statement, under the same advisory lock as deleteAccountUnlessLast on
      // PostgreSQL (see there): two deletions at once cannot both see the other's passkey.
      const remove = async (em: EntityManager) => {
        const deleted = await em
          .createQueryBuilder(PasskeyEntity)
          .delete({ id, userId })
          .andWhere(`((select count(*) from "passkey" where "user_id" = ?) > 1 or exists (select 1 from "account" where "user_id" = ?))`, [userId, userId])
          .execute("run");
        if (deleted.affectedRows === 1) return "deleted" as const;
        return (await em.count(PasskeyEntity, { id, userId })) ? ("last" as const) : ("not-found" as const);
      };
      if (store.dialect !== "postgresql") return remove(store.em());
      return store.em().transactional(async (em) => {
        await em.execute("select pg_advisory_xact_lock(hashtext(?))", [`identity-accounts:${userId}`]);
        return remove(em);
      });
    },
    async deleteAccountUnlessLast(userId, accountId) {
      // Counted and deleted in one statement (atomic on SQLite). PostgreSQL first takes a transaction-scoped
      // advisory lock on the user: there a statement counts the rows committed when it began, so two unlinks
      // at once would each count the other's account and both delete.
      const remove = async (em: EntityManager) => {
        const deleted = await em
          .createQueryBuilder(AccountEntity)
          .delete({ id: accountId, userId })
          .andWhere(`(select count(*) from "account" where "user_id" = ?) > 1`, [userId])
          .execute("run");
        return deleted.affectedRows === 1;
      };
      if (store.dialect !== "postgresql") return remove(store.em());
      return store.em().transactional(async (em) => {
        await em.execute("select pg_advisory_xact_lock(hashtext(?))", [`identity-accounts:${userId}`]);
        return remove(em);
      });
    },
    async deleteUserAndAccounts(userId) {
      await store.em().transactional(async (em) => {
        await em.nativeDelete(TwoFactorEntity, { userId });
        await em.nativeDelete(BackupCodeEntity, { userId });
        await em.nativeDelete(TwoFactorChallengeEntity, { userId });
        await em.nativeDelete(TrustedDeviceEntity, { userId });
        await em.nativeDelete(PasskeyEntity, { userId });
        await em.nativeDelete(PasskeyChallengeEntity, { userId });
        await em.nativeDelete(ApiKeyEntity, { userId });
        await em.nativeDelete(AccountEntity, { userId });
        // The user as it was, for the user.deleted webhook; read before the row goes.
        await queueWebhookUserEvent(em, userId, "user.deleted", now());
        await em.nativeDelete(UserEntity, { id: userId });
        // Delivered as a deletion: the sessions end, the copy goes, the memberships go (session-outbox.ts).
        await queueSessionOutbox(em, userId, now(), true);
      });
    },
    async createVerification(record) {
      const em = store.em();
      em.create(VerificationEntity, record);
      await em.flush();
    },
    async findVerification(identifier) {
      const row = await store.em().findOne(VerificationEntity, { identifier }, { orderBy: { createdAt: "desc" } });
      return row ? ({ ...row } as VerificationRecord) : null;
    },
    async consumeVerification(id) {
      return (await store.em().nativeDelete(VerificationEntity, { id })) > 0;
    },
    async deleteVerifications(identifierPrefix, value) {
      if (!/^[A-Za-z0-9:-]+$/.test(identifierPrefix)) throw new Error("deleteVerifications: the prefix must be plain (no LIKE wildcards)");
      return store.em().nativeDelete(VerificationEntity, { value, identifier: { $like: `${identifierPrefix}%` } });
    },
    async enqueueMailRequest(request) {
      await store.em().insert(MailRequestEntity, mailRequestRow(request));
    },
    async findDueMailRequests(now, limit) {
      const rows = await store.em().find(MailRequestEntity, { nextAttemptAt: { $lte: now }, ...leaseFree(now) }, { orderBy: { nextAttemptAt: "asc" }, limit });
      return rows.map(toMailRequest);
    },
    async claimMailRequest(id, seenAttempts, now, leaseUntil) {
      return (await store.em().nativeUpdate(MailRequestEntity, { id, attempts: seenAttempts, ...leaseFree(now) }, { attempts: seenAttempts + 1, leaseUntil })) === 1;
    },
    async retryMailRequest(id, attempts, nextAttemptAt) {
      await store.em().nativeUpdate(MailRequestEntity, { id, attempts }, { nextAttemptAt, leaseUntil: null });
    },
    async deleteMailRequest(id) {
      await store.em().nativeDelete(MailRequestEntity, { id });
    },
    async queueSessionRevocation(userId) {
      await queueSessionOutbox(store.em(), userId, now(), true);
    },
    async findSessionOutbox(userId) {
      const row = await store.readOne(SessionOutboxEntity, { userId });
      return row ? toSessionOutbox(row) : null;
    },
    async findDueSessionOutbox(at, limit) {
      const rows = await store.em().find(SessionOutboxEntity, { nextAttemptAt: { $lte: at }, ...leaseFree(at) }, { orderBy: { nextAttemptAt: "asc" }, limit });
      return rows.map(toSessionOutbox);
    },
    async claimSessionOutbox(userId, version, at, leaseUntil) {
      return (await store.em().nativeUpdate(SessionOutboxEntity, { userId, version, ...leaseFree(at) }, { attempts: raw(`"attempts" + 1`), leaseUntil })) === 1;
    },
    async retrySessionOutbox(userId, nextAttemptAt) {
      await store.em().nativeUpdate(SessionOutboxEntity, { userId }, { nextAttemptAt, leaseUntil: null });
    },
    async clearSessionOutbox(userId, version) {
      return (await store.em().nativeDelete(SessionOutboxEntity, { userId, version })) === 1;
    },
    async findUserEvents(userId) {
      const rows = await store.em().find(UserEventEntity, { userId }, { orderBy: { occurredAt: "asc", id: "asc" } });
      return rows.map(toUserEvent);
    },
    async findDueUserEvents(at, limit) {
      const rows = await store.em().find(UserEventEntity, { nextAttemptAt: { $lte: at }, ...leaseFree(at) }, { orderBy: { nextAttemptAt: "asc" }, limit });
      return rows.map(toUserEvent);
    },
    async claimUserEvent(id, seenAttempts, at, leaseUntil) {
      return (await store.em().nativeUpdate(UserEventEntity, { id, attempts: seenAttempts, ...leaseFree(at) }, { attempts: seenAttempts + 1, leaseUntil })) === 1;
    },
    async retryUserEvent(id, attempts, nextAttemptAt) {
      await store.em().nativeUpdate(UserEventEntity, { id, attempts }, { nextAttemptAt, leaseUntil: null });
    },
    async deleteUserEvent(id) {
      await store.em().nativeDelete(UserEventEntity, { id });
    },
    async addUserEvent(event) {
      const row = { ...event, payload: JSON.stringify(event.payload), attempts: 0, nextAttemptAt: new Date(event.occurredAt.getTime() + WRITER_DELIVERY_MS), leaseUntil: null };
      await store.em().createQueryBuilder(UserEventEntity).insert(row).onConflict("id").ignore().execute();
    },
    close: () => store.close(),
  };
}
