/** The codes of two-factor: backup codes and mailed one-time codes. */
import { timingSafeEqual } from "node:crypto";
import { randomString } from "@auth-platform/runtime/random";
import type { TwoFactorKeys } from "../two-factor-keys.js";
import { codeHash, codeHashCandidates } from "./secret-box.js";

/** 10 codes of 10 characters (docs/http-api/two-factor.md). */
export const BACKUP_CODE_COUNT = 10;
const BACKUP_CODE_LENGTH = 10;
const LETTERS_AND_DIGITS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
/** Mailed codes: 6 digits. */
const OTP_DIGITS = 6;

/** Fresh backup codes as shown (two groups of 5 joined by a dash), and their stored hashes. */
export function newBackupCodes(keys: TwoFactorKeys): { codes: string[]; hashes: string[] } {
  const raw = Array.from({ length: BACKUP_CODE_COUNT }, () => randomString(BACKUP_CODE_LENGTH, LETTERS_AND_DIGITS));
  return { codes: raw.map((code) => `${code.slice(0, 5)}-${code.slice(5)}`), hashes: raw.map((code) => codeHash(keys, code)) };
}

/** The stored hashes a typed backup code may have (the dash and surrounding spaces are optional); none if malformed. */
export function backupCodeCandidates(keys: TwoFactorKeys, typed: string): string[] {
  const code = typed.trim().replace(/^([A-Za-z0-9]{5})-([A-Za-z0-9]{5})$/, "$1$2");
  return /^[A-Za-z0-9]{10}$/.test(code) ? codeHashCandidates(keys, code) : [];
}

export const newOtp = (): string => randomString(OTP_DIGITS, "0123456789");

/** Whether a typed one-time code hashes to the stored hash (compared in constant time). */
export function otpMatches(keys: TwoFactorKeys, typed: string, stored: string): boolean {
  if (!/^\d{6}$/.test(typed.trim())) return false;
  const expected = Buffer.from(stored);
  return codeHashCandidates(keys, typed.trim()).some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
