/**
 * The two-factor part of the IdentityStore contract, run on memory, SQLite and PostgreSQL: single use under
 * races (TOTP steps, backup codes, challenges), counted attempts, and what disabling and deleting remove.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@auth-platform/runtime/random";
import type { IdentityStore } from "./identity-store.js";
import { aUser, anAccount } from "./identity-store.contract.js";
import type { TrustedDeviceRecord, TwoFactorChallengeRecord, TwoFactorRecord } from "./two-factor-store.js";

const AT = new Date(Date.UTC(2031, 0, 1, 12, 0, 0, 123));
const later = (ms: number) => new Date(AT.getTime() + ms);

const anEnrolment = (userId: string, overrides: Partial<TwoFactorRecord> = {}): TwoFactorRecord => ({
  userId,
  secret: "k1.iv.ciphertext.tag",
  verified: false,
  lastTotpStep: null,
  createdAt: AT,
  updatedAt: AT,
  ...overrides,
});

const aChallenge = (userId: string, overrides: Partial<TwoFactorChallengeRecord> = {}): TwoFactorChallengeRecord => ({
  id: newId(),
  userId,
  rememberMe: true,
  ipAddress: "203.0.113.7",
  userAgent: "Firefox",
  attempts: 0,
  otpHash: null,
  otpExpiresAt: null,
  expiresAt: later(600_000),
  createdAt: AT,
  method: "social:github",
  ...overrides,
});

const aDevice = (userId: string, overrides: Partial<TrustedDeviceRecord> = {}): TrustedDeviceRecord => ({
  id: newId(),
  userId,
  tokenHash: newId(),
  userAgent: "Firefox",
  ipAddress: null,
  createdAt: AT,
  lastUsedAt: AT,
  expiresAt: later(30 * 86_400_000),
  ...overrides,
});

export function twoFactorStoreContract(backend: string, open: () => Promise<IdentityStore>): void {
  describe(`IdentityStore two-factor contract (${backend})`, () => {
    let store: IdentityStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    async function aUserId() {
      const user = aUser();
      await store.createUserWithAccount(user, anAccount(user));
      return user.id;
    }

    it("saves an enrolment with its backup codes; activation sets the user's twoFactorEnabled; a new save replaces both", async () => {
      const userId = await aUserId();
      expect(await store.findTwoFactor(userId)).toBeNull();
      await store.saveTwoFactor(anEnrolment(userId), ["h1", "h2", "h3"]);
      expect(await store.findTwoFactor(userId)).toEqual(anEnrolment(userId));
      expect(await store.countBackupCodes(userId)).toBe(3);
      expect((await store.findUserById(userId))!.twoFactorEnabled).toBe(false);

      await store.activateTwoFactor(userId, later(1_000));
      expect(await store.findTwoFactor(userId)).toMatchObject({ verified: true, updatedAt: later(1_000) });
      expect((await store.findUserById(userId))!.twoFactorEnabled).toBe(true);

      await store.resealTwoFactor(userId, "k2.resealed", later(2_000));
      expect(await store.findTwoFactor(userId)).toMatchObject({ secret: "k2.resealed", verified: true, updatedAt: later(2_000) });

      await store.saveTwoFactor(anEnrolment(userId, { secret: "k1.other" }), ["h4"]);
      expect(await store.findTwoFactor(userId)).toMatchObject({ secret: "k1.other", verified: false });
      expect(await store.countBackupCodes(userId)).toBe(1);
    });

    it("a TOTP step is used once, and never an older one after a newer one, even under a race", async () => {
      const userId = await aUserId();
      await store.saveTwoFactor(anEnrolment(userId), []);
      const raced = await Promise.all([store.useTotpStep(userId, 100), store.useTotpStep(userId, 100), store.useTotpStep(userId, 100)]);
      expect(raced.filter(Boolean)).toHaveLength(1);
      expect(await store.useTotpStep(userId, 99)).toBe(false);
      expect(await store.useTotpStep(userId, 101)).toBe(true);
      expect((await store.findTwoFactor(userId))!.lastTotpStep).toBe(101);
      expect(await store.useTotpStep(await aUserId(), 5)).toBe(false);
    });

    it("a backup code is used once (under a race), only by its user; replacing the codes voids the old ones", async () => {
      const userId = await aUserId();
      const other = await aUserId();
      await store.saveTwoFactor(anEnrolment(userId), ["a", "b"]);
      expect(await store.useBackupCode(other, ["a"])).toBe(false);
      const raced = await Promise.all([store.useBackupCode(userId, ["x", "a"]), store.useBackupCode(userId, ["a"])]);
      expect(raced.filter(Boolean)).toHaveLength(1);
      expect(await store.useBackupCode(userId, ["a"])).toBe(false);
      expect(await store.useBackupCode(userId, [])).toBe(false);
      await store.replaceBackupCodes(userId, ["c"]);
      expect(await store.useBackupCode(userId, ["b"])).toBe(false);
      expect(await store.useBackupCode(userId, ["c"])).toBe(true);
      expect(await store.countBackupCodes(userId)).toBe(0);
    });

    it("a challenge counts its attempts up to the limit, keeps its mailed code's hash, and is consumed once", async () => {
      const userId = await aUserId();
      const challenge = aChallenge(userId);
      await store.createChallenge(challenge);
      expect(await store.findChallenge(challenge.id)).toEqual(challenge);
      const unknown = aChallenge(userId, { method: null });
      await store.createChallenge(unknown);
      expect(await store.findChallenge(unknown.id)).toEqual(unknown);
      const counted = await Promise.all(Array.from({ length: 5 }, () => store.countChallengeAttempt(challenge.id, 3)));
      expect(counted.filter(Boolean)).toHaveLength(3);
      expect((await store.findChallenge(challenge.id))!.attempts).toBe(3);

      await store.setChallengeOtp(challenge.id, "otp-hash", later(300_000));
      expect(await store.findChallenge(challenge.id)).toMatchObject({ otpHash: "otp-hash", otpExpiresAt: later(300_000) });

      const consumed = await Promise.all([store.consumeChallenge(challenge.id), store.consumeChallenge(challenge.id)]);
      expect(consumed.filter(Boolean)).toHaveLength(1);
      expect(await store.findChallenge(challenge.id)).toBeNull();
      expect(await store.countChallengeAttempt(challenge.id, 3)).toBe(false);
    });

    it("deletes every challenge of one user, and only that user's", async () => {
      const userId = await aUserId();
      const other = await aUserId();
      const mine = [aChallenge(userId), aChallenge(userId, { expiresAt: later(-1) })];
      const theirs = aChallenge(other);
      for (const challenge of [...mine, theirs]) await store.createChallenge(challenge);
      expect(await store.deleteUserChallenges(userId)).toBe(2);
      for (const challenge of mine) expect(await store.findChallenge(challenge.id)).toBeNull();
      expect(await store.countChallengeAttempt(mine[0]!.id, 5)).toBe(false);
      expect(await store.findChallenge(theirs.id)).toEqual(theirs);
      expect(await store.deleteUserChallenges(userId)).toBe(0);
    });

    it("trusted devices: found by token hash, renewed, listed live and newest use first, deleted only by their user", async () => {
      const userId = await aUserId();
      const other = await aUserId();
      const first = aDevice(userId);
      const second = aDevice(userId, { lastUsedAt: later(1_000) });
      const expired = aDevice(userId, { expiresAt: later(-1) });
      for (const device of [first, second, expired, aDevice(other)]) await store.createTrustedDevice(device);
      expect(await store.findTrustedDevice(first.tokenHash)).toEqual(first);
      expect(await store.findTrustedDevice("no-such-hash")).toBeNull();
      expect((await store.listTrustedDevices(userId, AT)).map((d) => d.id)).toEqual([second.id, first.id]);

      await store.renewTrustedDevice(first.id, later(5_000), later(40 * 86_400_000));
      expect(await store.findTrustedDevice(first.tokenHash)).toMatchObject({ lastUsedAt: later(5_000), expiresAt: later(40 * 86_400_000) });
      expect((await store.listTrustedDevices(userId, AT)).map((d) => d.id)).toEqual([first.id, second.id]);

      await store.deleteTrustedDevice(other, first.id);
      expect(await store.findTrustedDevice(first.tokenHash)).not.toBeNull();
      await store.deleteTrustedDevice(userId, first.id);
      expect(await store.findTrustedDevice(first.tokenHash)).toBeNull();
      expect(await store.deleteTrustedDevices(userId)).toBe(2);
      expect(await store.listTrustedDevices(other, AT)).toHaveLength(1);
    });

    it("counts the codes tried on a user's unexpired challenges, up to a bound", async () => {
      const userId = await aUserId();
      const other = await aUserId();
      const challenges = [aChallenge(userId), aChallenge(userId), aChallenge(userId, { expiresAt: later(1_000) }), aChallenge(userId), aChallenge(other)];
      for (const challenge of challenges) await store.createChallenge(challenge);
      for (const [index, attempts] of [
        [0, 3],
        [1, 2],
        [2, 4],
        [4, 5],
      ] as const) {
        for (let i = 0; i < attempts; i++) await store.countChallengeAttempt(challenges[index]!.id, 5);
      }
      expect(await store.countUserChallengeAttempts(userId, AT, 100)).toBe(9);
      expect(await store.countUserChallengeAttempts(userId, later(1_000), 100)).toBe(5);
      expect(await store.countUserChallengeAttempts(userId, AT, 4)).toBe(4);
      expect(await store.countUserChallengeAttempts(userId, later(600_000), 100)).toBe(0);
    });

    it("disabling removes the enrolment, codes, devices and challenges and clears twoFactorEnabled; deleting the user does too", async () => {
      for (const remove of ["disable", "delete-user"] as const) {
        const userId = await aUserId();
        const challenge = aChallenge(userId);
        const device = aDevice(userId);
        await store.saveTwoFactor(anEnrolment(userId), ["a"]);
        await store.activateTwoFactor(userId, AT);
        await store.createChallenge(challenge);
        await store.createTrustedDevice(device);
        if (remove === "disable") await store.deleteTwoFactor(userId);
        else await store.deleteUserAndAccounts(userId);
        expect(await store.findTwoFactor(userId), remove).toBeNull();
        expect(await store.countBackupCodes(userId), remove).toBe(0);
        expect(await store.findChallenge(challenge.id), remove).toBeNull();
        expect(await store.findTrustedDevice(device.tokenHash), remove).toBeNull();
        if (remove === "disable") expect((await store.findUserById(userId))!.twoFactorEnabled).toBe(false);
      }
    });
  });
}
