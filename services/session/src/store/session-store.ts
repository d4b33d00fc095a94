/** The session store port. */

export interface SessionRecord {
  id: string;
  token: string;
  userId: string;
  expiresAt: Date;
  ipAddress: string | null;
  userAgent: string | null;
  createdAt: Date;
  updatedAt: Date;
  impersonatedBy: string | null;
  activeOrganizationId: string | null;
}

export interface SessionStore {
  create(session: SessionRecord): Promise<void>;
  /** The session with this token (expired or not), or null. */
  findByToken(token: string): Promise<SessionRecord | null>;
  /** Every session of a user, expired ones included, oldest first. */
  listByUser(userId: string): Promise<SessionRecord[]>;
  /** Moves expiry and updatedAt; false when the session no longer exists. */
  extend(token: string, expiresAt: Date, updatedAt: Date): Promise<boolean>;
  /** Deletes these sessions; deleting one that is gone is not an error. */
  deleteByTokens(tokens: string[]): Promise<void>;
  close(): Promise<void>;
}
