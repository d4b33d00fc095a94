/**
 * The rows an import hands each service's import module (services/<svc>/src/import/), already read from the
 * source and normalised (dates as Date, flags as booleans), so every service takes the same shapes and no
 * service reads another product's schema (docs/adr/0079-importing-a-better-auth-database.md).
 */

export interface ImportedUser {
  id: string;
  name: string;
  email: string;
  emailVerified: boolean;
  image: string | null;
  createdAt: Date;
  updatedAt: Date;
  username: string | null;
  displayUsername: string | null;
  role: string | null;
  banned: boolean;
  banReason: string | null;
  banExpires: Date | null;
  extraFields: Record<string, unknown>;
  twoFactorEnabled: boolean;
}

export interface ImportedAccount {
  id: string;
  accountId: string;
  providerId: string;
  userId: string;
  password: string | null;
  /** As the source stored them: in the clear, or encrypted with its secret (account.encryptOAuthTokens). */
  accessToken: string | null;
  refreshToken: string | null;
  idToken: string | null;
  accessTokenExpiresAt: Date | null;
  refreshTokenExpiresAt: Date | null;
  scope: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface ImportedSession {
  id: string;
  /** The raw token the source stored (its users' cookies carry it, signed). */
  token: string;
  userId: string;
  expiresAt: Date;
  ipAddress: string | null;
  userAgent: string | null;
  createdAt: Date;
  updatedAt: Date;
  impersonatedBy: string | null;
  activeOrganizationId: string | null;
  activeTeamId: string | null;
}

export interface ImportedTwoFactor {
  userId: string;
  /** The TOTP secret and the backup codes as the source stored them (encrypted with its secret, or plain JSON). */
  secret: string;
  backupCodes: string;
  /** Whether the enrolment was confirmed with a first code (releases without the column: it was). */
  verified: boolean;
}

/** What one batch came to: rows written, and rows left out by reason. */
export interface ImportOutcome {
  written: number;
  skipped: Record<string, number>;
}

export const emptyOutcome = (): ImportOutcome => ({ written: 0, skipped: {} });

export function skip(outcome: ImportOutcome, reason: string, count = 1): void {
  if (count > 0) outcome.skipped[reason] = (outcome.skipped[reason] ?? 0) + count;
}
