/**
 * The session service's tables. A session row keeps its token only as a keyed hash (the lookup
 * key) and an encrypted copy for list-sessions (runtime/session-token.ts), so a dump of the table holds no
 * credential.
 */
import { defineEntity, p } from "@mikro-orm/core";

export const SessionEntity = defineEntity({
  name: "Session",
  tableName: "session",
  properties: {
    id: p.string().primary(),
    tokenHash: p.string().unique(),
    tokenSealed: p.text(),
    userId: p.string().index(),
    expiresAt: p.datetime(),
    ipAddress: p.string().nullable(),
    userAgent: p.text().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    impersonatedBy: p.string().nullable(),
    activeOrganizationId: p.string().nullable().index(),
    activeTeamId: p.string().nullable(),
    authMethod: p.string().nullable(),
    secondFactor: p.string().nullable(),
    authenticatedAt: p.datetime().nullable(),
  },
});

export type SessionRow = InstanceType<typeof SessionEntity.class>;

/**
 * A revocation whose cache tombstone is not yet written (Redis was unreachable). While one exists no replica
 * refreshes the cache lease, so no cached copy of a revoked session is trusted.
 */
export const PendingRevocationEntity = defineEntity({
  name: "PendingRevocation",
  tableName: "session_pending_revocation",
  properties: {
    tokenHash: p.string().primary(),
    expiresAt: p.datetime(),
    recordedAt: p.datetime(),
  },
});

export type PendingRevocationRow = InstanceType<typeof PendingRevocationEntity.class>;

/**
 * A cache entry to drop (its session or user changed) that Redis could not take. While one exists no replica
 * refreshes the cache lease, so no cached copy of the old values is trusted.
 */
export const PendingForgetEntity = defineEntity({
  name: "PendingForget",
  tableName: "session_pending_forget",
  properties: {
    tokenHash: p.string().primary(),
    recordedAt: p.datetime(),
  },
});

/**
 * The session service's copy of a user, served with their sessions on a cache miss, so the session service
 * never calls identity: identity pushes it with CreateSession and PutUserCopy (the newest by updatedAt wins).
 * `snapshot` is the CachedUser as JSON; updated_at is the user's, for the newest-wins comparison.
 */
export const SessionUserEntity = defineEntity({
  name: "SessionUser",
  tableName: "session_user",
  properties: {
    userId: p.string().primary(),
    updatedAt: p.datetime(),
    snapshot: p.text(),
  },
});

export type SessionUserRow = InstanceType<typeof SessionUserEntity.class>;

/**
 * A session an import brought (session-import.ts), its user, and the run that last saw it in the source: a
 * later run ends it here once the source no longer has it (but still has its user), and does not bring it
 * back once it ended here.
 */
export const SessionImportEntity = defineEntity({
  name: "SessionImport",
  tableName: "session_import",
  properties: {
    sessionId: p.string().primary(),
    userId: p.string(),
    run: p.string(),
  },
});

/**
 * The organization a user last set active in a session of their own; a new session starts in it
 * (docs/adr/0053-remembered-active-organization.md). Forgotten with the membership (ClearActiveOrganization).
 */
export const RememberedOrganizationEntity = defineEntity({
  name: "RememberedOrganization",
  tableName: "session_remembered_organization",
  properties: {
    userId: p.string().primary(),
    organizationId: p.string().index(),
  },
});

/**
 * A key that signs session JWTs (docs/adr/0076-session-jwts-signed-by-the-session-service.md). `slot` names
 * the rotation period it signs in (algorithm, period length and index): unique, so replicas that reach a new
 * period together agree on one key. The private key is sealed under an AUTH_SECRET-derived key, bound to the
 * kid; the public one is a JWK (JSON). The four dates are fixed when the key is made.
 */
export const JwtKeyEntity = defineEntity({
  name: "JwtKey",
  tableName: "session_jwt_key",
  properties: {
    kid: p.string().primary(),
    slot: p.string().unique(),
    algorithm: p.string(),
    publicJwk: p.text(),
    privateKeySealed: p.text(),
    createdAt: p.datetime(),
    signsFrom: p.datetime(),
    signsUntil: p.datetime(),
    publishedFrom: p.datetime(),
    publishedUntil: p.datetime().index(),
  },
});

export type JwtKeyRow = InstanceType<typeof JwtKeyEntity.class>;

/** The webhook event outbox (migration 0011, docs/adr/0077-signed-webhooks.md): session.created, session.revoked. */
export const SessionEventEntity = defineEntity({
  name: "SessionEvent",
  tableName: "session_event",
  properties: {
    id: p.string().primary(),
    userId: p.string().index(),
    type: p.string(),
    data: p.text(),
    occurredAt: p.datetime(),
    attempts: p.integer(),
    nextAttemptAt: p.datetime().index(),
    leaseUntil: p.datetime().nullable(),
  },
});

export type SessionEventRow = InstanceType<typeof SessionEventEntity.class>;
