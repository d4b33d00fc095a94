/** The identity store port: what the domain needs of persistence, nothing more. */

export interface UserRecord {
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
}

export interface AccountRecord {
  id: string;
  accountId: string;
  providerId: string;
  userId: string;
  password: string | null;
  /** Comma-separated granted scopes (social accounts). */
  scope?: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface VerificationRecord {
  id: string;
  identifier: string;
  value: string;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

export type UserPatch = Partial<Omit<UserRecord, "id" | "createdAt">>;

export const CREDENTIAL_PROVIDER = "credential";

export interface IdentityStore {
  /**
   * Creates a user and its first account atomically. A clash on email raises USER_ALREADY_EXISTS, on
   * username USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER; neither leaves a partial user behind.
   */
  createUserWithAccount(user: UserRecord, account: AccountRecord): Promise<UserRecord>;
  /** The user with this id, or null. */
  findUserById(id: string): Promise<UserRecord | null>;
  /** The user with this (already lower-cased) email, or null. */
  findUserByEmail(email: string): Promise<UserRecord | null>;
  /** The user with this (already lower-cased) username, or null. */
  findUserByUsername(username: string): Promise<UserRecord | null>;
  /** The user's account for a provider, or null. */
  findAccount(userId: string, providerId: string): Promise<AccountRecord | null>;
  /** Applies a patch and sets updatedAt; null when the user does not exist. */
  updateUser(id: string, patch: UserPatch): Promise<UserRecord | null>;
  /** Every account of the user, oldest first. */
  listAccounts(userId: string): Promise<AccountRecord[]>;
  createAccount(account: AccountRecord): Promise<void>;
  /** Sets the password hash of one account; false when the account is gone. */
  setAccountPassword(accountId: string, passwordHash: string): Promise<boolean>;
  deleteAccount(accountId: string): Promise<void>;
  /** Deletes the user's accounts, then the user, in one transaction. Deleting a missing user is not an error. */
  deleteUserAndAccounts(userId: string): Promise<void>;
  createVerification(record: VerificationRecord): Promise<void>;
  /** The newest record with this identifier (expired or not), or null. */
  findVerification(identifier: string): Promise<VerificationRecord | null>;
  /**
   * Deletes a record; true only for the one caller that deleted it, so a token is used at most once even
   * when two requests race with it.
   */
  consumeVerification(id: string): Promise<boolean>;
  close(): Promise<void>;
}
