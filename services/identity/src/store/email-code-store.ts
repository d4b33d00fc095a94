/** The mailed codes (email OTP) part of the identity store: one live code per purpose and address. */

/** What a mailed code is for (better-auth's email-OTP types, change-email aside). */
export type EmailCodePurpose = "sign-in" | "email-verification" | "forget-password";

export interface EmailCodeRecord {
  id: string;
  purpose: EmailCodePurpose;
  /** Normalised (trimmed, lower-case). */
  email: string;
  /** A keyed hash of the code (domain/mail-sign-in.ts): a dump of the table gives no one a code. */
  codeHash: string;
  /** Tries counted so far, right or wrong. */
  attempts: number;
  expiresAt: Date;
  createdAt: Date;
}

export interface EmailCodeStore {
  /** Stores a code, replacing the address's code of the same purpose (a newer code voids the older). */
  putEmailCode(record: EmailCodeRecord): Promise<void>;
  /** The address's code of this purpose (expired or not), or null. */
  findEmailCode(purpose: EmailCodePurpose, email: string): Promise<EmailCodeRecord | null>;
  /**
   * Counts one try of the code unless `allowed` are counted already, in one conditional write: true when
   * counted. Of racing tries at the last allowed one, one is counted; a code gone (used, replaced) counts none.
   */
  countEmailCodeAttempt(id: string, allowed: number): Promise<boolean>;
  /** Gives back one counted try (a right code checked without being used). */
  uncountEmailCodeAttempt(id: string): Promise<void>;
  /** Deletes the code: true only for the one caller that deleted it (a code is used at most once). */
  deleteEmailCode(id: string): Promise<boolean>;
}
