/** The two-factor part of the memory identity store. */
import type { TrustedDeviceRecord, TwoFactorChallengeRecord, TwoFactorRecord, TwoFactorStore } from "./two-factor-store.js";

const copy = <T extends object>(record: T): T => ({ ...record });

/** `setUserFlag` sets the user's twoFactorEnabled flag (the users live in the identity store's own map). */
export function memoryTwoFactorStore(setUserFlag: (userId: string, enabled: boolean) => void): TwoFactorStore & { clear(): void } {
  const enrolments = new Map<string, TwoFactorRecord>();
  const backupCodes = new Map<string, Set<string>>();
  const challenges = new Map<string, TwoFactorChallengeRecord>();
  const devices = new Map<string, TrustedDeviceRecord>();
  const deleteDevices = (userId: string) => {
    let deleted = 0;
    for (const [id, device] of devices) if (device.userId === userId) deleted += Number(devices.delete(id));
    return deleted;
  };
  const deleteChallenges = (userId: string) => {
    let deleted = 0;
    for (const [id, challenge] of challenges) if (challenge.userId === userId) deleted += Number(challenges.delete(id));
    return deleted;
  };
  return {
    async saveTwoFactor(record, codeHashes) {
      enrolments.set(record.userId, copy(record));
      backupCodes.set(record.userId, new Set(codeHashes));
    },
    async findTwoFactor(userId) {
      const found = enrolments.get(userId);
      return found ? copy(found) : null;
    },
    async resealTwoFactor(userId, secret, at) {
      const found = enrolments.get(userId);
      if (found) Object.assign(found, { secret, updatedAt: at });
    },
    async activateTwoFactor(userId, at) {
      const found = enrolments.get(userId);
      if (!found) return;
      Object.assign(found, { verified: true, updatedAt: at });
      setUserFlag(userId, true);
    },
    async useTotpStep(userId, step) {
      const found = enrolments.get(userId);
      if (!found || (found.lastTotpStep !== null && found.lastTotpStep >= step)) return false;
      found.lastTotpStep = step;
      return true;
    },
    async deleteTwoFactor(userId) {
      enrolments.delete(userId);
      backupCodes.delete(userId);
      deleteDevices(userId);
      deleteChallenges(userId);
      setUserFlag(userId, false);
    },
    async replaceBackupCodes(userId, codeHashes) {
      backupCodes.set(userId, new Set(codeHashes));
    },
    async useBackupCode(userId, candidates) {
      const codes = backupCodes.get(userId);
      return candidates.some((hash) => codes?.delete(hash) ?? false);
    },
    countBackupCodes: async (userId) => backupCodes.get(userId)?.size ?? 0,
    async createChallenge(record) {
      challenges.set(record.id, copy(record));
    },
    async findChallenge(id) {
      const found = challenges.get(id);
      return found ? copy(found) : null;
    },
    async countChallengeAttempt(id, max) {
      const found = challenges.get(id);
      if (!found || found.attempts >= max) return false;
      found.attempts += 1;
      return true;
    },
    async countUserChallengeAttempts(userId, now, atMost) {
      let sum = 0;
      for (const challenge of challenges.values()) if (challenge.userId === userId && challenge.expiresAt > now) sum += challenge.attempts;
      return Math.min(atMost, sum);
    },
    async setChallengeOtp(id, otpHash, otpExpiresAt) {
      const found = challenges.get(id);
      if (found) Object.assign(found, { otpHash, otpExpiresAt });
    },
    consumeChallenge: async (id) => challenges.delete(id),
    deleteUserChallenges: async (userId) => deleteChallenges(userId),
    async createTrustedDevice(record) {
      devices.set(record.id, copy(record));
    },
    async findTrustedDevice(tokenHash) {
      for (const device of devices.values()) if (device.tokenHash === tokenHash) return copy(device);
      return null;
    },
    async renewTrustedDevice(id, lastUsedAt, expiresAt) {
      const found = devices.get(id);
      if (found) Object.assign(found, { lastUsedAt, expiresAt });
    },
    async listTrustedDevices(userId, now) {
      return [...devices.values()]
        .filter((d) => d.userId === userId && d.expiresAt > now)
        .sort((a, b) => b.lastUsedAt.getTime() - a.lastUsedAt.getTime())
        .map(copy);
    },
    async deleteTrustedDevice(userId, id) {
      if (devices.get(id)?.userId === userId) devices.delete(id);
    },
    deleteTrustedDevices: async (userId) => deleteDevices(userId),
    clear() {
      for (const map of [enrolments, backupCodes, challenges, devices]) map.clear();
    },
  };
}
