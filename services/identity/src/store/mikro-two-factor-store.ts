/** The two-factor part of the identity store on MikroORM (SQLite or PostgreSQL). */
import type { Store } from "@auth-platform/runtime/store";
import {
  BackupCodeEntity,
  TrustedDeviceEntity,
  type TrustedDeviceRow,
  TwoFactorChallengeEntity,
  type TwoFactorChallengeRow,
  TwoFactorEntity,
  type TwoFactorRow,
  UserEntity,
} from "./entities.js";
import type { TrustedDeviceRecord, TwoFactorChallengeRecord, TwoFactorRecord, TwoFactorStore } from "./two-factor-store.js";
import { queueSessionOutbox } from "./queue-session-outbox.js";
import { nextUserUpdatedAtSql } from "./user-updated-at.js";

export const TWO_FACTOR_ENTITIES = [TwoFactorEntity, BackupCodeEntity, TwoFactorChallengeEntity, TrustedDeviceEntity];

const toTwoFactor = (row: TwoFactorRow): TwoFactorRecord => ({
  userId: row.userId,
  secret: row.secret,
  verified: Boolean(row.verified),
  lastTotpStep: row.lastTotpStep ?? null,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

const toChallenge = (row: TwoFactorChallengeRow): TwoFactorChallengeRecord => ({
  id: row.id,
  userId: row.userId,
  rememberMe: Boolean(row.rememberMe),
  ipAddress: row.ipAddress ?? null,
  userAgent: row.userAgent ?? null,
  attempts: row.attempts,
  otpHash: row.otpHash ?? null,
  otpExpiresAt: row.otpExpiresAt ?? null,
  expiresAt: row.expiresAt,
  createdAt: row.createdAt,
  method: row.method ?? null,
});

const toDevice = (row: TrustedDeviceRow): TrustedDeviceRecord => ({
  id: row.id,
  userId: row.userId,
  tokenHash: row.tokenHash,
  userAgent: row.userAgent ?? null,
  ipAddress: row.ipAddress ?? null,
  createdAt: row.createdAt,
  lastUsedAt: row.lastUsedAt,
  expiresAt: row.expiresAt,
});

export function mikroTwoFactorStore(store: Store, now: () => Date = () => new Date()): TwoFactorStore {
  return {
    async saveTwoFactor(record, codeHashes) {
      await store.em().transactional(async (em) => {
        await em.nativeDelete(TwoFactorEntity, { userId: record.userId });
        await em.nativeDelete(BackupCodeEntity, { userId: record.userId });
        await em.insert(TwoFactorEntity, record);
        if (codeHashes.length)
          await em.insertMany(
            BackupCodeEntity,
            codeHashes.map((codeHash) => ({ userId: record.userId, codeHash })),
          );
      });
    },
    async findTwoFactor(userId) {
      const row = await store.em().findOne(TwoFactorEntity, { userId });
      return row ? toTwoFactor(row) : null;
    },
    async resealTwoFactor(userId, secret, at) {
      await store.em().nativeUpdate(TwoFactorEntity, { userId }, { secret, updatedAt: at });
    },
    async activateTwoFactor(userId, at) {
      await store.em().transactional(async (em) => {
        await em.nativeUpdate(TwoFactorEntity, { userId }, { verified: true, updatedAt: at });
        await em.nativeUpdate(UserEntity, { id: userId }, { twoFactorEnabled: true, updatedAt: nextUserUpdatedAtSql(store.dialect, at) });
        await queueSessionOutbox(em, userId, now());
      });
    },
    async useTotpStep(userId, step) {
      const updated = await store.em().nativeUpdate(TwoFactorEntity, { userId, $or: [{ lastTotpStep: null }, { lastTotpStep: { $lt: step } }] }, { lastTotpStep: step });
      return updated === 1;
    },
    async deleteTwoFactor(userId) {
      await store.em().transactional(async (em) => {
        await em.nativeDelete(TwoFactorEntity, { userId });
        await em.nativeDelete(BackupCodeEntity, { userId });
        await em.nativeDelete(TrustedDeviceEntity, { userId });
        await em.nativeDelete(TwoFactorChallengeEntity, { userId });
        await em.nativeUpdate(UserEntity, { id: userId }, { twoFactorEnabled: false, updatedAt: nextUserUpdatedAtSql(store.dialect, now()) });
        await queueSessionOutbox(em, userId, now());
      });
    },
    async replaceBackupCodes(userId, codeHashes) {
      await store.em().transactional(async (em) => {
        await em.nativeDelete(BackupCodeEntity, { userId });
        if (codeHashes.length)
          await em.insertMany(
            BackupCodeEntity,
            codeHashes.map((codeHash) => ({ userId, codeHash })),
          );
      });
    },
    async useBackupCode(userId, candidates) {
      if (!candidates.length) return false;
      // One DELETE of one row: of two requests racing with the same code, only one deletes it.
      for (const codeHash of candidates) {
        if ((await store.em().nativeDelete(BackupCodeEntity, { userId, codeHash })) > 0) return true;
      }
      return false;
    },
    countBackupCodes: (userId) => store.em().count(BackupCodeEntity, { userId }),
    async createChallenge(record) {
      await store.em().insert(TwoFactorChallengeEntity, record);
    },
    async findChallenge(id) {
      const row = await store.em().findOne(TwoFactorChallengeEntity, { id });
      return row ? toChallenge(row) : null;
    },
    async countChallengeAttempt(id, max) {
      const em = store.em();
      const row = await em.findOne(TwoFactorChallengeEntity, { id });
      if (!row || row.attempts >= max) return false;
      // Conditional on the count read: of racing attempts at the same count only one is counted, the others retry.
      const updated = await em.nativeUpdate(TwoFactorChallengeEntity, { id, attempts: row.attempts }, { attempts: row.attempts + 1 });
      return updated === 1 ? true : this.countChallengeAttempt(id, max);
    },
    async countUserChallengeAttempts(userId, now, atMost) {
      // Each row read holds at least one attempt, so `atMost` rows always reach `atMost`.
      const rows = await store.em().find(TwoFactorChallengeEntity, { userId, expiresAt: { $gt: now }, attempts: { $gt: 0 } }, { limit: atMost });
      return Math.min(
        atMost,
        rows.reduce((sum, row) => sum + row.attempts, 0),
      );
    },
    async setChallengeOtp(id, otpHash, otpExpiresAt) {
      await store.em().nativeUpdate(TwoFactorChallengeEntity, { id }, { otpHash, otpExpiresAt });
    },
    async consumeChallenge(id) {
      return (await store.em().nativeDelete(TwoFactorChallengeEntity, { id })) > 0;
    },
    deleteUserChallenges: (userId) => store.em().nativeDelete(TwoFactorChallengeEntity, { userId }),
    async createTrustedDevice(record) {
      await store.em().insert(TrustedDeviceEntity, record);
    },
    async findTrustedDevice(tokenHash) {
      const row = await store.em().findOne(TrustedDeviceEntity, { tokenHash });
      return row ? toDevice(row) : null;
    },
    async renewTrustedDevice(id, lastUsedAt, expiresAt) {
      await store.em().nativeUpdate(TrustedDeviceEntity, { id }, { lastUsedAt, expiresAt });
    },
    async listTrustedDevices(userId, now) {
      const rows = await store.em().find(TrustedDeviceEntity, { userId, expiresAt: { $gt: now } }, { orderBy: { lastUsedAt: "desc" } });
      return rows.map(toDevice);
    },
    async deleteTrustedDevice(userId, id) {
      await store.em().nativeDelete(TrustedDeviceEntity, { id, userId });
    },
    deleteTrustedDevices: (userId) => store.em().nativeDelete(TrustedDeviceEntity, { userId }),
  };
}
