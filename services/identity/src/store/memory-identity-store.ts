/** The identity store in process memory: for unit tests of the domain, and the contract's reference backend. */
import { AuthError } from "@auth-platform/proto/errors";
import { compareUsers, matchesUserQuery } from "./user-query.js";
import {
  type AccountRecord,
  type IdentityStore,
  type MailRequestRecord,
  mergeExtraFields,
  type SessionOutboxRecord,
  type UserEventRecord,
  type UserRecord,
  userUpdateEventType,
  type WebhookUserEventType,
  webhookUserPayload,
  type VerificationRecord,
  verifiesEmail,
  WRITER_DELIVERY_MS,
} from "./identity-store.js";
import { newId } from "@auth-platform/runtime/random";
import { memoryEmailCodeStore } from "./memory-email-code-store.js";
import { memoryApiKeyStore } from "./memory-api-key-store.js";
import { memoryPasskeyStore } from "./memory-passkey-store.js";
import { memoryTwoFactorStore } from "./memory-two-factor-store.js";
import { nextUserUpdatedAt } from "./user-updated-at.js";

/** Copies out, so a caller never holds a record the store keeps (as with rows read from a database). */
const copyUser = (user: UserRecord): UserRecord => structuredClone(user);
const copy = <T extends object>(record: T): T => ({ ...record });
/** An account as the SQL stores keep it: absent token fields are null. */
const stored = (account: AccountRecord): AccountRecord => ({
  ...account,
  scope: account.scope ?? null,
  accessToken: account.accessToken ?? null,
  refreshToken: account.refreshToken ?? null,
  idToken: account.idToken ?? null,
  accessTokenExpiresAt: account.accessTokenExpiresAt ?? null,
  refreshTokenExpiresAt: account.refreshTokenExpiresAt ?? null,
});

export function createMemoryIdentityStore(options: { now?: () => Date } = {}): IdentityStore {
  const now = options.now ?? (() => new Date());
  const users = new Map<string, UserRecord>();
  const accounts = new Map<string, AccountRecord>();
  const verifications = new Map<string, VerificationRecord>();
  const mailRequests = new Map<string, MailRequestRecord>();
  const sessionOutbox = new Map<string, SessionOutboxRecord>();
  /** recordSignIn's column, kept beside the user records as the SQL stores keep it out of them. */
  const lastSignIns = new Map<string, Date>();
  /** The session outbox row of a user write (USER_WRITES), as the SQL stores' upsert writes it. */
  const queueSessionOutbox = (userId: string, revokeSessions = false) => {
    const row = sessionOutbox.get(userId);
    const nextAttemptAt = new Date(now().getTime() + WRITER_DELIVERY_MS);
    if (!row) sessionOutbox.set(userId, { userId, revokeSessions, version: 1, attempts: 0, nextAttemptAt, leaseUntil: null });
    else Object.assign(row, { version: row.version + 1, attempts: 0, nextAttemptAt, revokeSessions: row.revokeSessions || revokeSessions });
  };
  const userEvents = new Map<string, UserEventRecord>();
  /** A user's `email-verified` event, when the write took the user from `before` to a newly verified address. */
  const queueEmailVerified = (before: Pick<UserRecord, "email" | "emailVerified"> | null, after: UserRecord) => {
    if (!verifiesEmail(before, after)) return;
    const at = now();
    const event: UserEventRecord = {
      id: newId(),
      userId: after.id,
      type: "email-verified",
      payload: { email: after.email },
      occurredAt: at,
      attempts: 0,
      nextAttemptAt: new Date(at.getTime() + WRITER_DELIVERY_MS),
      leaseUntil: null,
    };
    userEvents.set(event.id, event);
  };
  /** A user's webhook event (user.created, ...): the user as the write left it. */
  const queueWebhookEvent = (type: WebhookUserEventType, user: UserRecord) => {
    const at = now();
    const event: UserEventRecord = {
      id: newId(),
      userId: user.id,
      type,
      payload: webhookUserPayload(user),
      occurredAt: at,
      attempts: 0,
      nextAttemptAt: new Date(at.getTime() + WRITER_DELIVERY_MS),
      leaseUntil: null,
    };
    userEvents.set(event.id, event);
  };
  const copyEvent = (event: UserEventRecord): UserEventRecord => ({ ...event, payload: { ...event.payload } });
  const eventLeaseFree = (event: UserEventRecord, at: Date) => event.leaseUntil === null || event.leaseUntil <= at;
  const outboxLeaseFree = (row: SessionOutboxRecord, at: Date) => row.leaseUntil === null || row.leaseUntil <= at;
  const byCreation = (a: { createdAt: Date }, b: { createdAt: Date }) => a.createdAt.getTime() - b.createdAt.getTime();
  const leaseFree = (request: MailRequestRecord, at: Date) => request.leaseUntil === null || request.leaseUntil <= at;
  /** The unique indexes of the user table: email, and username when set. */
  const clash = (candidate: UserRecord): AuthError | null => {
    for (const user of users.values()) {
      if (user.id === candidate.id) continue;
      if (user.email === candidate.email) return new AuthError("USER_ALREADY_EXISTS");
      if (candidate.username !== null && user.username === candidate.username) return new AuthError("USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER");
    }
    return null;
  };
  /** The unique index on (providerId, accountId). */
  const linked = (account: AccountRecord) => [...accounts.values()].some((a) => a.providerId === account.providerId && a.accountId === account.accountId);
  const twoFactor = memoryTwoFactorStore((userId, enabled) => {
    const user = users.get(userId);
    if (user) Object.assign(user, { twoFactorEnabled: enabled, updatedAt: nextUserUpdatedAt(user.updatedAt, now()) });
    queueSessionOutbox(userId);
  });
  const { clear: clearTwoFactor, ...twoFactorMethods } = twoFactor;
  const { clear: clearEmailCodes, ...emailCodeMethods } = memoryEmailCodeStore();
  const { clear: clearPasskeys, deleteUserPasskeys, deletePasskeyUnless, ...passkeyMethods } = memoryPasskeyStore();
  const { clear: clearApiKeys, deleteUserApiKeys, ...apiKeyMethods } = memoryApiKeyStore();
  const find = (predicate: (user: UserRecord) => boolean) => {
    for (const user of users.values()) if (predicate(user)) return copyUser(user);
    return null;
  };
  return {
    ...twoFactorMethods,
    ...emailCodeMethods,
    ...passkeyMethods,
    ...apiKeyMethods,
    async deletePasskeyUnlessLast(userId, id) {
      const hasAccount = [...accounts.values()].some((account) => account.userId === userId);
      return deletePasskeyUnless(userId, id, (owned) => owned <= 1 && !hasAccount);
    },
    async createUserWithAccount(user, account, mailRequest) {
      const error = clash(user);
      if (error) throw error;
      if (account && linked(account)) throw new AuthError("SOCIAL_ACCOUNT_ALREADY_LINKED");
      users.set(user.id, copyUser(user));
      if (account) accounts.set(account.id, stored(account));
      if (mailRequest) mailRequests.set(mailRequest.id, { ...mailRequest, attempts: 0, leaseUntil: null });
      queueEmailVerified(null, user);
      queueWebhookEvent("user.created", user);
      return user;
    },
    findUserById: async (id) => find((user) => user.id === id),
    findUsers: async (ids, emails) => [...users.values()].filter((user) => ids.includes(user.id) || emails.includes(user.email)).map(copyUser),
    findUserByEmail: async (email) => find((user) => user.email === email),
    findUserByUsername: async (username) => find((user) => user.username === username),
    async findAccount(userId, providerId) {
      const found = [...accounts.values()].filter((a) => a.userId === userId && a.providerId === providerId).sort(byCreation)[0];
      return found ? copy(found) : null;
    },
    async recordSignIn(userId, at) {
      const noted = lastSignIns.get(userId);
      if (users.has(userId) && (!noted || noted < at)) lastSignIns.set(userId, new Date(at));
    },
    async listUsers(query) {
      const matching = [...users.values()].filter((user) => matchesUserQuery(user, query)).sort(compareUsers(query));
      const totalIsLowerBound = query.countLimit > 0 && matching.length > query.countLimit;
      const page = matching.slice(query.offset, query.offset + query.limit);
      const lastSignInAt = Object.fromEntries(page.flatMap((user) => (lastSignIns.has(user.id) ? [[user.id, new Date(lastSignIns.get(user.id)!)]] : [])));
      return { users: page.map(copyUser), total: totalIsLowerBound ? query.countLimit : matching.length, totalIsLowerBound, lastSignInAt };
    },
    async findAccountByProvider(providerId, accountId) {
      const found = [...accounts.values()].find((a) => a.providerId === providerId && a.accountId === accountId);
      return found ? copy(found) : null;
    },
    async updateAccountTokens(id, patch) {
      const account = accounts.get(id);
      if (!account) return false;
      Object.assign(account, patch, { updatedAt: now() });
      return true;
    },
    async updateUser(id, patch, options) {
      const user = users.get(id);
      if (!user) return null;
      const { extraFields, ...columns } = structuredClone(patch);
      const updated: UserRecord = {
        ...user,
        ...columns,
        extraFields: extraFields ? mergeExtraFields(user.extraFields, extraFields) : user.extraFields,
        updatedAt: nextUserUpdatedAt(user.updatedAt, now()),
      };
      const error = clash(updated);
      if (error) throw error;
      users.set(id, updated);
      queueSessionOutbox(id, options?.revokeSessions);
      queueEmailVerified(user, updated);
      queueWebhookEvent(userUpdateEventType(patch), updated);
      return copyUser(updated);
    },
    async markEmailVerified(id, email) {
      const user = users.get(id);
      if (!user || user.email !== email || user.emailVerified) return null;
      const updated: UserRecord = { ...user, emailVerified: true, updatedAt: nextUserUpdatedAt(user.updatedAt, now()) };
      users.set(id, updated);
      queueSessionOutbox(id);
      queueEmailVerified(user, updated);
      queueWebhookEvent("user.updated", updated);
      return copyUser(updated);
    },
    async listAccounts(userId) {
      return [...accounts.values()]
        .filter((a) => a.userId === userId)
        .sort(byCreation)
        .map(copy);
    },
    async createAccount(account, options) {
      // The database's unique index on (providerId, accountId) refuses a second link of a social account.
      if (linked(account)) throw new AuthError("SOCIAL_ACCOUNT_ALREADY_LINKED");
      accounts.set(account.id, stored(account));
      if (options?.revokeSessions) queueSessionOutbox(account.userId, true);
    },
    async setAccountPassword(accountId, passwordHash, options) {
      const account = accounts.get(accountId);
      if (!account) return false;
      Object.assign(account, { password: passwordHash, updatedAt: now() });
      if (options?.revokeSessionsOf) queueSessionOutbox(options.revokeSessionsOf, true);
      return true;
    },
    async deleteAccount(accountId) {
      accounts.delete(accountId);
    },
    async deleteAccountUnlessLast(userId, accountId) {
      const owned = [...accounts.values()].filter((a) => a.userId === userId);
      if (owned.length <= 1 || !owned.some((a) => a.id === accountId)) return false;
      return accounts.delete(accountId);
    },
    async deleteUserAndAccounts(userId) {
      await twoFactorMethods.deleteTwoFactor(userId);
      deleteUserPasskeys(userId);
      deleteUserApiKeys(userId);
      for (const [id, account] of accounts) if (account.userId === userId) accounts.delete(id);
      const deleted = users.get(userId);
      if (deleted) queueWebhookEvent("user.deleted", deleted);
      users.delete(userId);
      lastSignIns.delete(userId);
      queueSessionOutbox(userId, true);
    },
    async createVerification(record) {
      verifications.set(record.id, copy(record));
    },
    async findVerification(identifier) {
      const found = [...verifications.values()].filter((v) => v.identifier === identifier).sort((a, b) => byCreation(b, a))[0];
      return found ? copy(found) : null;
    },
    async consumeVerification(id) {
      return verifications.delete(id);
    },
    async deleteVerifications(identifierPrefix, value) {
      if (!/^[A-Za-z0-9:-]+$/.test(identifierPrefix)) throw new Error("deleteVerifications: the prefix must be plain (no LIKE wildcards)");
      let deleted = 0;
      for (const [id, record] of verifications) {
        if (record.value === value && record.identifier.startsWith(identifierPrefix)) deleted += Number(verifications.delete(id));
      }
      return deleted;
    },
    async enqueueMailRequest(request) {
      mailRequests.set(request.id, { ...request, attempts: 0, leaseUntil: null });
    },
    async findDueMailRequests(at, limit) {
      return [...mailRequests.values()]
        .filter((r) => r.nextAttemptAt <= at && leaseFree(r, at))
        .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime())
        .slice(0, limit)
        .map(copy);
    },
    async claimMailRequest(id, seenAttempts, at, leaseUntil) {
      const request = mailRequests.get(id);
      if (!request || request.attempts !== seenAttempts || !leaseFree(request, at)) return false;
      Object.assign(request, { attempts: seenAttempts + 1, leaseUntil });
      return true;
    },
    async retryMailRequest(id, attempts, nextAttemptAt) {
      const request = mailRequests.get(id);
      if (request && request.attempts === attempts) Object.assign(request, { nextAttemptAt, leaseUntil: null });
    },
    async deleteMailRequest(id) {
      mailRequests.delete(id);
    },
    async queueSessionRevocation(userId) {
      queueSessionOutbox(userId, true);
    },
    findSessionOutbox: async (userId) => {
      const row = sessionOutbox.get(userId);
      return row ? copy(row) : null;
    },
    async findDueSessionOutbox(at, limit) {
      return [...sessionOutbox.values()]
        .filter((row) => row.nextAttemptAt <= at && outboxLeaseFree(row, at))
        .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime())
        .slice(0, limit)
        .map(copy);
    },
    async claimSessionOutbox(userId, version, at, leaseUntil) {
      const row = sessionOutbox.get(userId);
      if (!row || row.version !== version || !outboxLeaseFree(row, at)) return false;
      Object.assign(row, { attempts: row.attempts + 1, leaseUntil });
      return true;
    },
    async retrySessionOutbox(userId, nextAttemptAt) {
      const row = sessionOutbox.get(userId);
      if (row) Object.assign(row, { nextAttemptAt, leaseUntil: null });
    },
    async clearSessionOutbox(userId, version) {
      if (sessionOutbox.get(userId)?.version !== version) return false;
      return sessionOutbox.delete(userId);
    },
    async findUserEvents(userId) {
      return [...userEvents.values()]
        .filter((event) => event.userId === userId)
        .sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime())
        .map(copyEvent);
    },
    async findDueUserEvents(at, limit) {
      return [...userEvents.values()]
        .filter((event) => event.nextAttemptAt <= at && eventLeaseFree(event, at))
        .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime())
        .slice(0, limit)
        .map(copyEvent);
    },
    async claimUserEvent(id, seenAttempts, at, leaseUntil) {
      const event = userEvents.get(id);
      if (!event || event.attempts !== seenAttempts || !eventLeaseFree(event, at)) return false;
      Object.assign(event, { attempts: seenAttempts + 1, leaseUntil });
      return true;
    },
    async retryUserEvent(id, attempts, nextAttemptAt) {
      const event = userEvents.get(id);
      if (event && event.attempts === attempts) Object.assign(event, { nextAttemptAt, leaseUntil: null });
    },
    async addUserEvent(event) {
      if (userEvents.has(event.id)) return;
      userEvents.set(event.id, {
        ...event,
        payload: { ...event.payload },
        attempts: 0,
        nextAttemptAt: new Date(event.occurredAt.getTime() + WRITER_DELIVERY_MS),
        leaseUntil: null,
      });
    },
    async deleteUserEvent(id) {
      userEvents.delete(id);
    },
    async close() {
      for (const map of [users, accounts, verifications, mailRequests, sessionOutbox, userEvents]) map.clear();
      clearTwoFactor();
      clearEmailCodes();
      clearPasskeys();
      clearApiKeys();
    },
  };
}
