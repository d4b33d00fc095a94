/**
 * The two-factor part of the identity store port: the TOTP enrolment, backup codes, pending sign-in
 * challenges and trusted devices. Secrets are stored sealed (the TOTP secret) or as keyed hashes (codes,
 * challenge and device tokens), so a dump of the database yields nothing that signs anyone in.
 */

/** A user's TOTP enrolment. `verified` turns true with the first code the user proves. */
export interface TwoFactorRecord {
  userId: string;
  /** The TOTP secret sealed with a two-factor key (secret-box.ts: key id + ciphertext). */
  secret: string;
  verified: boolean;
  /** The last TOTP time step accepted (each code is good once), null before any. */
  lastTotpStep: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A sign-in that waits for a second factor. Single use; its attempts are counted. */
export interface TwoFactorChallengeRecord {
  /** The keyed hash of the challenge token the browser holds. */
  id: string;
  userId: string;
  rememberMe: boolean;
  ipAddress: string | null;
  userAgent: string | null;
  /** Codes tried so far (every method counts). */
  attempts: number;
  /** The keyed hash of the mailed one-time code, and when it stops being good. */
  otpHash: string | null;
  otpExpiresAt: Date | null;
  expiresAt: Date;
  createdAt: Date;
  /** How the user proved the first factor (ports.ts SignInMethod), recorded on the session it opens; null on challenges from before it was kept. */
  method: string | null;
}

/** A browser the user let skip the second factor, until expiresAt (renewed on use). */
export interface TrustedDeviceRecord {
  id: string;
  userId: string;
  /** The keyed hash of the token the trusted-device cookie carries. */
  tokenHash: string;
  userAgent: string | null;
  ipAddress: string | null;
  createdAt: Date;
  lastUsedAt: Date;
  expiresAt: Date;
}

export interface TwoFactorStore {
  /**
   * Starts (or restarts) an enrolment: replaces the user's TOTP record and backup codes in one transaction.
   * The user's twoFactorEnabled flag is left as it is.
   */
  saveTwoFactor(record: TwoFactorRecord, backupCodeHashes: string[]): Promise<void>;
  /** The user's enrolment, or null. */
  findTwoFactor(userId: string): Promise<TwoFactorRecord | null>;
  /** Replaces the sealed secret (the same secret sealed under the current key); the rest is kept. */
  resealTwoFactor(userId: string, secret: string, at: Date): Promise<void>;
  /** Marks the enrolment verified and sets the user's twoFactorEnabled flag, in one transaction. */
  activateTwoFactor(userId: string, at: Date): Promise<void>;
  /**
   * Records a TOTP step as used, in one conditional UPDATE: true only if it is later than every step used
   * before, so a code (or an older one) is accepted at most once even when two requests race with it.
   */
  useTotpStep(userId: string, step: number): Promise<boolean>;
  /**
   * Removes the enrolment, backup codes, trusted devices and pending challenges and clears twoFactorEnabled,
   * in one transaction.
   */
  deleteTwoFactor(userId: string): Promise<void>;
  /** Replaces the user's backup codes. */
  replaceBackupCodes(userId: string, codeHashes: string[]): Promise<void>;
  /** Deletes one of the user's backup codes whose hash is among `candidates`: true for the one caller that did. */
  useBackupCode(userId: string, candidates: string[]): Promise<boolean>;
  /** How many unused backup codes the user has. */
  countBackupCodes(userId: string): Promise<number>;
  createChallenge(record: TwoFactorChallengeRecord): Promise<void>;
  /** The challenge with this id (expired or not), or null. */
  findChallenge(id: string): Promise<TwoFactorChallengeRecord | null>;
  /** Counts one attempt, in one conditional UPDATE: false once `max` attempts were made (or it is gone). */
  countChallengeAttempt(id: string, max: number): Promise<boolean>;
  /**
   * The codes tried on the user's challenges not expired at `now` (a challenge that signed someone in is
   * gone, and its attempts with it), counted up to `atMost`: enough to compare with a limit.
   */
  countUserChallengeAttempts(userId: string, now: Date, atMost: number): Promise<number>;
  /** Stores the hash of a newly mailed one-time code (replacing an earlier one). */
  setChallengeOtp(id: string, otpHash: string, otpExpiresAt: Date): Promise<void>;
  /** Deletes a challenge: true only for the one caller that deleted it (single use under races). */
  consumeChallenge(id: string): Promise<boolean>;
  /** Deletes every challenge of the user (the password that opened them changed); returns how many. */
  deleteUserChallenges(userId: string): Promise<number>;
  createTrustedDevice(record: TrustedDeviceRecord): Promise<void>;
  /** The device whose token hashes to this, or null. */
  findTrustedDevice(tokenHash: string): Promise<TrustedDeviceRecord | null>;
  /** Extends a device's trust (on use). */
  renewTrustedDevice(id: string, lastUsedAt: Date, expiresAt: Date): Promise<void>;
  /** The user's devices still trusted at `now`, most recently used first. */
  listTrustedDevices(userId: string, now: Date): Promise<TrustedDeviceRecord[]>;
  /** Forgets one of the user's devices; another user's device id is left alone. */
  deleteTrustedDevice(userId: string, id: string): Promise<void>;
  /** Forgets every device of the user; returns how many. */
  deleteTrustedDevices(userId: string): Promise<number>;
}
