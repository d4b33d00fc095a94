/** The session store port. Tokens cross it in the clear; the store keeps only their hash and a sealed copy. */
import { SESSION_WEBHOOK_EVENTS } from "@auth-platform/contract/webhook-events";
import type { CachedUser } from "@auth-platform/runtime/session-cache";

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
  /** The active team, of the active organization; null whenever the organization changes. */
  activeTeamId: string | null;
  /** How the user proved who they are (CreateSessionRequest.auth_method); null on sessions from before it was kept. */
  authMethod: string | null;
  /** The second factor passed at that sign-in, if any. */
  secondFactor: string | null;
  /** When the user proved it: createdAt, or the replaced session's for a rotation; null before it was kept. */
  authenticatedAt: Date | null;
}

/** A revocation whose cache tombstone is still to be written: the token's lookup hash and the session's expiry. */
export interface PendingRevocation {
  lookup: string;
  expiresAt: Date;
}

/**
 * A dropping of a session's cache entry (the session or its user changed) still to be done: the token's
 * lookup hash, and when it was last recorded (a flush clears it only if it was not recorded again since).
 */
export interface PendingForget {
  lookup: string;
  recordedAt: Date;
}

/**
 * A key that signs session JWTs. `slot` names the rotation period it was made for (one key per slot); the
 * dates are fixed when it is made: it signs in [signsFrom, signsUntil) and is published in
 * [publishedFrom, publishedUntil). The private key is sealed (PKCS#8 PEM under an AUTH_SECRET-derived key).
 */
export interface JwtKeyRecord {
  kid: string;
  slot: string;
  algorithm: string;
  /** The public JWK, as JSON. */
  publicJwk: string;
  privateKeySealed: string;
  createdAt: Date;
  signsFrom: Date;
  signsUntil: Date;
  publishedFrom: Date;
  publishedUntil: Date;
}

/**
 * The webhook events of sessions (docs/adr/0077-signed-webhooks.md), one outbox row each, written in the
 * transaction of the change they record and published to the notification service (domain/webhook-events.ts).
 */
export const SESSION_EVENT_TYPES = SESSION_WEBHOOK_EVENTS;
export type SessionEventType = (typeof SESSION_EVENT_TYPES)[number];

/** Why sessions ended, as session.revoked tells it. */
export const REVOCATION_REASONS = [
  "sign-out",
  "revoke-session",
  "revoke-sessions",
  "revoke-other-sessions",
  "banned",
  "password-changed",
  "user-deleted",
  "replaced",
  "revoked",
] as const;
export type RevocationReason = (typeof REVOCATION_REASONS)[number];

export interface SessionEventRecord {
  /** The event id: the webhook-id receivers see, the notification service's idempotency key. */
  id: string;
  userId: string;
  type: SessionEventType;
  /** The event's `data` as JSON: ids and public fields only, never a token. */
  data: string;
  occurredAt: Date;
  /** Delivery attempts started so far. */
  attempts: number;
  /** When the worker may publish it: at once for a new event, later for a retry. */
  nextAttemptAt: Date;
  /** While in the future, one deliverer holds the row. */
  leaseUntil: Date | null;
}

/** session.created's data: the session's public fields (never its token). */
export function sessionCreatedData(session: SessionRecord): string {
  return JSON.stringify({
    session: {
      id: session.id,
      userId: session.userId,
      authMethod: session.authMethod,
      secondFactor: session.secondFactor,
      impersonatedBy: session.impersonatedBy,
      createdAt: session.createdAt.toISOString(),
      expiresAt: session.expiresAt.toISOString(),
      ipAddress: session.ipAddress,
      userAgent: session.userAgent,
    },
  });
}

/** session.revoked's data: the user, the ids of the sessions that ended, and why. */
export function sessionRevokedData(userId: string, sessionIds: string[], reason: RevocationReason): string {
  return JSON.stringify({ userId, sessionIds, reason });
}

/** A new outbox row, due at once: the worker's next pass publishes it (webhook-events.ts). */
export function newSessionEvent(id: string, userId: string, type: SessionEventType, data: string, now: Date): SessionEventRecord {
  return { id, userId, type, data, occurredAt: now, attempts: 0, nextAttemptAt: now, leaseUntil: null };
}

/** One session.revoked per user among the sessions that ended (ids in the order given). */
export function revokedEvents(ended: Array<{ id: string; userId: string }>, reason: RevocationReason, newId: () => string, now: Date): SessionEventRecord[] {
  const byUser = new Map<string, string[]>();
  for (const { id, userId } of ended) byUser.set(userId, [...(byUser.get(userId) ?? []), id]);
  return [...byUser].map(([userId, ids]) => newSessionEvent(newId(), userId, "session.revoked", sessionRevokedData(userId, ids, reason), now));
}

export interface SessionStore {
  /** Inserts the session and, in the same transaction, its session.created event. */
  create(session: SessionRecord): Promise<void>;
  /** The session with this token (expired or not), or null. */
  findByToken(token: string): Promise<SessionRecord | null>;
  /** The session with this id (expired or not), or null (also when its sealed token does not open). */
  findById(id: string): Promise<SessionRecord | null>;
  /** Every session of a user, expired ones included, oldest first. */
  listByUser(userId: string): Promise<SessionRecord[]>;
  /** Moves expiry and updatedAt; false when the session no longer exists. */
  extend(token: string, expiresAt: Date, updatedAt: Date): Promise<boolean>;
  /**
   * Deletes these sessions; deleting one that is gone is not an error. With a reason (a revocation, not an
   * expiry's cleanup), a session.revoked event per user of the sessions it deleted, in the same transaction.
   */
  deleteByTokens(tokens: string[], reason?: RevocationReason): Promise<void>;
  /**
   * Deletes these sessions and records their revocations as pending, with the session.revoked events of
   * those it deleted, in one transaction. Recording one already pending is not an error.
   */
  revokePending(sessions: Array<{ token: string; expiresAt: Date }>, reason: RevocationReason): Promise<void>;
  /** Pending revocations, oldest first, at most `limit`. */
  listPending(limit: number): Promise<PendingRevocation[]>;
  /** Forgets these pending revocations (their tombstones are written). Unknown ones are not an error. */
  clearPending(lookups: string[]): Promise<void>;
  /**
   * Records as pending the dropping of the cache entries of these sessions, named by their tokens' lookup
   * hashes (Redis could not take it, or the change could not be told to the other replicas). One already
   * pending is recorded again: its recordedAt moves, so a flush that listed it before does not clear it.
   */
  forgetPending(lookups: string[]): Promise<void>;
  /** Pending forgets, oldest first, at most `limit`. */
  listPendingForgets(limit: number): Promise<PendingForget[]>;
  /** Clears these pending forgets (their entries are dropped), except those recorded again since they were listed. */
  clearPendingForgets(forgets: PendingForget[]): Promise<void>;
  /**
   * Keeps this copy of a user (served with their sessions) when it is newer by updatedAt than the kept one (or
   * none is kept), so concurrent writers converge on the newest. An equal updatedAt is the same write of the
   * user (identity never gives two writes one: its store/user-updated-at.ts), so it changes nothing: a copy read
   * before a write that shared its millisecond must not replace that write's copy.
   */
  putUser(user: CachedUser): Promise<void>;
  /** The kept copy of a user, or null. */
  findUser(userId: string): Promise<CachedUser | null>;
  /** Forgets the copy of a (deleted) user and their remembered organization; an unknown one is not an error. */
  deleteUser(userId: string): Promise<void>;
  /** Ids of users who have a session but no kept copy, ascending, greater than `afterUserId`, at most `limit`. */
  usersMissingSnapshot(afterUserId: string, limit: number): Promise<string[]>;
  /**
   * Sets (or with null clears) the active organization of the session with this id; answers its token (for
   * its cache entry), or null when the session no longer exists. In the same transaction, on a session of
   * the user's own (not an impersonation), the value becomes the user's remembered organization (null
   * forgets it): the one their next session starts in (restoreActiveOrganization).
   */
  setActiveOrganization(sessionId: string, organizationId: string | null): Promise<string | null>;
  /**
   * Sets the active team of the session with this id and its organization as the active one (remembered as
   * setActiveOrganization does), or with null clears the team only; answers the token, or null when the
   * session no longer exists.
   */
  setActiveTeam(sessionId: string, team: { teamId: string; organizationId: string } | null): Promise<string | null>;
  /** Clears this active team on every session that has it (of one user when given); answers the tokens changed. */
  clearActiveTeam(teamId: string, userId?: string): Promise<string[]>;
  /**
   * Clears this active organization (and so its team) on every session that has it (of one user when userId is given) and
   * answers the tokens of the sessions changed. It is forgotten as those users' remembered organization
   * first, so a session starting meanwhile either finds it gone or is cleared with the others.
   */
  clearActiveOrganization(organizationId: string, userId?: string): Promise<string[]>;
  /**
   * Makes the user's remembered organization the active one of this new session (nothing changes when the
   * user has none, or the session is gone); answers the organization restored, or null.
   */
  restoreActiveOrganization(sessionId: string, userId: string): Promise<string | null>;
  /** Adds a signing key unless its slot has one already; answers the slot's key (this one, or the one kept). */
  addJwtKey(key: JwtKeyRecord): Promise<JwtKeyRecord>;
  /** The signing key of a slot, or null. */
  findJwtKey(slot: string): Promise<JwtKeyRecord | null>;
  /** The keys still published after `at` (publishedUntil > at), oldest signsFrom first. */
  listJwtKeys(at: Date): Promise<JwtKeyRecord[]>;
  /** Deletes the keys no longer published at `before` (publishedUntil <= before). */
  deleteJwtKeys(before: Date): Promise<void>;
  /** A user's pending webhook events, oldest first. */
  findSessionEvents(userId: string): Promise<SessionEventRecord[]>;
  /** Events due at `now` that no one holds, soonest first, at most `limit`. */
  findDueSessionEvents(now: Date, limit: number): Promise<SessionEventRecord[]>;
  /**
   * In one statement, takes the lease of each of these events that is still due at `now` and that no one
   * holds, and counts the attempt; answers the ids it took. A replica that took or retried one meanwhile
   * holds its lease or moved it past `now`, so each event goes to one caller.
   */
  claimSessionEvents(ids: readonly string[], now: Date, leaseUntil: Date): Promise<string[]>;
  /** Frees the event for another attempt at nextAttemptAt (only if its attempts are still `attempts`). */
  retrySessionEvent(id: string, attempts: number, nextAttemptAt: Date): Promise<void>;
  /** Removes delivered events, in one statement; an unknown one is not an error. */
  deleteSessionEvents(ids: readonly string[]): Promise<void>;
  close(): Promise<void>;
}
