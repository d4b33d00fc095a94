/**
 * The admin store port: the audit log, append-only, read newest first, trimmed by retention; and the lock
 * under which the admin service changes who may act as an admin.
 */

export type AuditOutcome = "success" | "failure";

export interface AuditRecord {
  /** Chosen by the reporter: recording the same id twice stores it once. */
  id: string;
  /** What happened, e.g. user.ban, session.revoke, user.impersonate.start, sign-in.failure-burst. */
  action: string;
  actorId: string | null;
  /** The admin behind an impersonation session, when the actor was being impersonated. */
  impersonatorId: string | null;
  targetId: string | null;
  at: Date;
  ipAddress: string | null;
  userAgent: string | null;
  outcome: AuditOutcome;
  /** Extra facts (reason, role, counts); never a secret. */
  details: Record<string, unknown>;
}

export interface AuditQuery {
  limit: number;
  offset: number;
  action?: string;
  actorId?: string;
  targetId?: string;
  /** Inclusive. */
  since?: Date;
  /** Exclusive. */
  until?: Date;
}

export interface AuditStore {
  /** Appends a record; a record whose id is already stored is ignored (idempotent reports). */
  append(record: AuditRecord): Promise<void>;
  /** One page of matching records, newest first (ties by id), and how many match in all. */
  list(query: AuditQuery): Promise<{ records: AuditRecord[]; total: number }>;
  /** Deletes every record older than `before`; returns how many. */
  deleteOlderThan(before: Date): Promise<number>;
  /**
   * Runs `work` while no other work given here runs, in this replica or any other sharing the database: the
   * last-admin check and the change it allows are one step (PostgreSQL: a transaction-scoped advisory lock;
   * SQLite and memory serve one replica, so in process).
   */
  withAdminChangeLock<T>(work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
