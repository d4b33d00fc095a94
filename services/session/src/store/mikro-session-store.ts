/** The session store on MikroORM (SQLite or PostgreSQL). Rows hold the token's keyed hash and sealed copy. */
import type { CachedUser } from "@auth-platform/runtime/session-cache";
import type { TokenVault } from "@auth-platform/runtime/session-token";
import { openStore } from "@auth-platform/runtime/store";
import {
  type JwtKeyRow,
  JwtKeyEntity,
  PendingForgetEntity,
  PendingRevocationEntity,
  RememberedOrganizationEntity,
  SessionEntity,
  SessionEventEntity,
  type SessionEventRow,
  type SessionRow,
  SessionUserEntity,
} from "./entities.js";
import { sessionMigrations } from "./migrations.js";
import { newId } from "@auth-platform/runtime/random";
import type { EntityManager } from "@mikro-orm/sql";
import {
  type JwtKeyRecord,
  newSessionEvent,
  type RevocationReason,
  revokedEvents,
  sessionCreatedData,
  type SessionEventRecord,
  type SessionEventType,
  type SessionRecord,
  type SessionStore,
} from "./session-store.js";

function toSessionEvent(row: SessionEventRow): SessionEventRecord {
  return {
    id: row.id,
    userId: row.userId,
    type: row.type as SessionEventType,
    data: row.data,
    occurredAt: row.occurredAt,
    attempts: row.attempts,
    nextAttemptAt: row.nextAttemptAt,
    leaseUntil: row.leaseUntil ?? null,
  };
}

const leaseFree = (at: Date) => ({ $or: [{ leaseUntil: null }, { leaseUntil: { $lte: at } }] });

function toJwtKey(row: JwtKeyRow): JwtKeyRecord {
  return {
    kid: row.kid,
    slot: row.slot,
    algorithm: row.algorithm,
    publicJwk: row.publicJwk,
    privateKeySealed: row.privateKeySealed,
    createdAt: row.createdAt,
    signsFrom: row.signsFrom,
    signsUntil: row.signsUntil,
    publishedFrom: row.publishedFrom,
    publishedUntil: row.publishedUntil,
  };
}

function toRecord(row: SessionRow, token: string): SessionRecord {
  return {
    id: row.id,
    token,
    userId: row.userId,
    expiresAt: row.expiresAt,
    ipAddress: row.ipAddress ?? null,
    userAgent: row.userAgent ?? null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    impersonatedBy: row.impersonatedBy ?? null,
    activeOrganizationId: row.activeOrganizationId ?? null,
    activeTeamId: row.activeTeamId ?? null,
    authMethod: row.authMethod ?? null,
    secondFactor: row.secondFactor ?? null,
    authenticatedAt: row.authenticatedAt ?? null,
  };
}

/**
 * Records revocations as pending in the transaction of their delete: the lease check pushes them to every
 * copy and tombstones the cache (domain/cache-lease.ts). One already pending is left as it is.
 */
export async function recordPendingRevocations(em: EntityManager, pending: Array<{ tokenHash: string; expiresAt: Date; recordedAt: Date }>): Promise<void> {
  if (pending.length) await em.upsertMany(PendingRevocationEntity, pending, { onConflictAction: "ignore", onConflictFields: ["tokenHash"] });
}

export async function openSessionStore(url: string, vault: TokenVault, options: { now?: () => Date } = {}): Promise<SessionStore> {
  const now = options.now ?? (() => new Date());
  const store = await openStore({
    url,
    entities: [SessionEntity, PendingRevocationEntity, PendingForgetEntity, SessionUserEntity, RememberedOrganizationEntity, JwtKeyEntity, SessionEventEntity],
    migrations: sessionMigrations(vault),
  });
  const hashes = (tokens: string[]) => tokens.map((token) => vault.lookup(token));
  /** The token of a row, or null when its sealed copy does not open (sealed under another AUTH_SECRET). */
  const opened = (row: SessionRow): string | null => {
    try {
      return vault.open(row.tokenSealed, row.id);
    } catch {
      return null;
    }
  };
  /**
   * Deletes the sessions of these token hashes in the transaction `em` belongs to; with a reason, queues
   * session.revoked for those it deleted (read first: a session already gone ends nothing and tells nothing).
   */
  const remove = async (em: EntityManager, tokenHashes: string[], reason?: RevocationReason) => {
    if (!reason) {
      await em.nativeDelete(SessionEntity, { tokenHash: { $in: tokenHashes } });
      return;
    }
    const rows = await em.find(SessionEntity, { tokenHash: { $in: tokenHashes } }, { fields: ["id", "userId"], orderBy: { createdAt: "asc" } });
    if (!rows.length) return;
    const deleted = await em.nativeDelete(SessionEntity, { id: { $in: rows.map((row) => row.id) } });
    if (!deleted) return;
    const events = revokedEvents(rows, reason, newId, now());
    if (events.length) await em.insertMany(SessionEventEntity, events);
  };
  return {
    async create(session) {
      const { token, ...fields } = session;
      const event = newSessionEvent(newId(), session.userId, "session.created", sessionCreatedData(session), now());
      // Native inserts, the event in the session's transaction (docs/adr/0077-signed-webhooks.md).
      await store.em().transactional(async (em) => {
        await em.insert(SessionEntity, { ...fields, tokenHash: vault.lookup(token), tokenSealed: vault.seal(token, session.id) });
        await em.insert(SessionEventEntity, event);
      });
    },
    // get-session's reads on a cache miss: plain rows, no entities (store.ts, readOne).
    async findByToken(token) {
      const row = await store.readOne(SessionEntity, { tokenHash: vault.lookup(token) });
      return row ? toRecord(row, token) : null;
    },
    async findById(id) {
      const row = await store.readOne(SessionEntity, { id });
      const token = row ? opened(row) : null;
      return row && token !== null ? toRecord(row, token) : null;
    },
    async listByUser(userId) {
      const rows = await store.em().find(SessionEntity, { userId }, { orderBy: { createdAt: "asc" } });
      return rows.flatMap((row) => {
        const token = opened(row);
        return token === null ? [] : [toRecord(row, token)];
      });
    },
    async extend(token, expiresAt, updatedAt) {
      const changed = await store.em().nativeUpdate(SessionEntity, { tokenHash: vault.lookup(token) }, { expiresAt, updatedAt });
      return changed > 0;
    },
    async deleteByTokens(tokens, reason) {
      if (!tokens.length) return;
      if (!reason) await remove(store.em(), hashes(tokens));
      else await store.em().transactional((em) => remove(em, hashes(tokens), reason));
    },
    async revokePending(sessions, reason) {
      if (!sessions.length) return;
      const recordedAt = now();
      const pending = sessions.map((s) => ({ tokenHash: vault.lookup(s.token), expiresAt: s.expiresAt, recordedAt }));
      await store.em().transactional(async (em) => {
        await remove(
          em,
          pending.map((p) => p.tokenHash),
          reason,
        );
        await recordPendingRevocations(em, pending);
      });
    },
    async listPending(limit) {
      const rows = await store.em().find(PendingRevocationEntity, {}, { orderBy: { recordedAt: "asc" }, limit });
      return rows.map((row) => ({ lookup: row.tokenHash, expiresAt: row.expiresAt }));
    },
    async clearPending(lookups) {
      if (lookups.length) await store.em().nativeDelete(PendingRevocationEntity, { tokenHash: { $in: lookups } });
    },
    async forgetPending(lookups) {
      if (!lookups.length) return;
      const recordedAt = now();
      const rows = [...new Set(lookups)].map((tokenHash) => ({ tokenHash, recordedAt }));
      await store.em().upsertMany(PendingForgetEntity, rows, { onConflictFields: ["tokenHash"], onConflictAction: "merge", onConflictMergeFields: ["recordedAt"] });
    },
    async listPendingForgets(limit) {
      const rows = await store.em().find(PendingForgetEntity, {}, { orderBy: { recordedAt: "asc" }, limit });
      return rows.map((row) => ({ lookup: row.tokenHash, recordedAt: row.recordedAt }));
    },
    async clearPendingForgets(forgets) {
      // Each only as listed: one recorded again since (a later change) stays for the next flush.
      if (forgets.length) await store.em().nativeDelete(PendingForgetEntity, { $or: forgets.map((f) => ({ tokenHash: f.lookup, recordedAt: f.recordedAt })) });
    },
    async putUser(user) {
      const updatedAt = new Date(user.updatedAt);
      // One atomic statement, so concurrent writers need no lock: it inserts the row, or replaces the one
      // there only with a strictly newer copy. Written out: every sign-in runs it, and the query builder's
      // compiling was most of its CPU.
      await store
        .em()
        .getConnection()
        .execute(
          `insert into "session_user" ("user_id", "updated_at", "snapshot") values (?, ?, ?)
           on conflict ("user_id") do update set "updated_at" = excluded."updated_at", "snapshot" = excluded."snapshot"
           where "session_user"."updated_at" < excluded."updated_at"`,
          [user.id, updatedAt, JSON.stringify(user)],
          "run",
        );
    },
    async findUser(userId) {
      const row = await store.readOne(SessionUserEntity, { userId });
      return row ? (JSON.parse(row.snapshot) as CachedUser) : null;
    },
    async deleteUser(userId) {
      await store.em().transactional(async (em) => {
        await em.nativeDelete(SessionUserEntity, { userId });
        await em.nativeDelete(RememberedOrganizationEntity, { userId });
      });
    },
    async usersMissingSnapshot(afterUserId, limit) {
      const rows = (await store
        .em()
        .getConnection()
        .execute(
          `select distinct s."user_id" from "session" s left join "session_user" u on u."user_id" = s."user_id"
         where u."user_id" is null and s."user_id" > ? order by s."user_id" limit ?`,
          [afterUserId, limit],
        )) as Array<{ user_id: string }>;
      return rows.map((row) => row.user_id);
    },
    async setActiveOrganization(sessionId, organizationId) {
      return store.em().transactional(async (em) => {
        const row = await em.findOne(SessionEntity, { id: sessionId });
        if (!row) return null;
        // A team belongs to one organization: changing the organization leaves no team active.
        const team = row.activeOrganizationId === organizationId ? {} : { activeTeamId: null };
        const changed = await em.nativeUpdate(SessionEntity, { id: sessionId }, { activeOrganizationId: organizationId, ...team });
        if (changed === 0) return null;
        // An admin acting as the user chooses for this session only.
        if (!row.impersonatedBy) {
          if (organizationId) {
            await em.upsertMany(RememberedOrganizationEntity, [{ userId: row.userId, organizationId }], {
              onConflictFields: ["userId"],
              onConflictAction: "merge",
              onConflictMergeFields: ["organizationId"],
            });
          } else {
            await em.nativeDelete(RememberedOrganizationEntity, { userId: row.userId });
          }
        }
        return opened(row);
      });
    },
    async clearActiveOrganization(organizationId, userId) {
      const where = userId ? { activeOrganizationId: organizationId, userId } : { activeOrganizationId: organizationId };
      return store.em().transactional(async (em) => {
        // Forgotten before the sessions are read: restoreActiveOrganization holds the remembered row (for
        // share) while it writes, so a session starting meanwhile is either written before this delete (and
        // read below) or finds the row gone.
        await em.nativeDelete(RememberedOrganizationEntity, userId ? { organizationId, userId } : { organizationId });
        const rows = await em.find(SessionEntity, where);
        if (!rows.length) return [];
        await em.nativeUpdate(SessionEntity, { id: { $in: rows.map((row) => row.id) }, activeOrganizationId: organizationId }, { activeOrganizationId: null, activeTeamId: null });
        return rows.flatMap((row) => {
          const token = opened(row);
          return token === null ? [] : [token];
        });
      });
    },
    async setActiveTeam(sessionId, team) {
      return store.em().transactional(async (em) => {
        const row = await em.findOne(SessionEntity, { id: sessionId });
        if (!row) return null;
        const changes = team ? { activeTeamId: team.teamId, activeOrganizationId: team.organizationId } : { activeTeamId: null };
        if ((await em.nativeUpdate(SessionEntity, { id: sessionId }, changes)) === 0) return null;
        if (team && !row.impersonatedBy) {
          await em.upsertMany(RememberedOrganizationEntity, [{ userId: row.userId, organizationId: team.organizationId }], {
            onConflictFields: ["userId"],
            onConflictAction: "merge",
            onConflictMergeFields: ["organizationId"],
          });
        }
        return opened(row);
      });
    },
    async clearActiveTeam(teamId, userId) {
      const where = userId ? { activeTeamId: teamId, userId } : { activeTeamId: teamId };
      return store.em().transactional(async (em) => {
        const rows = await em.find(SessionEntity, where);
        if (!rows.length) return [];
        await em.nativeUpdate(SessionEntity, { id: { $in: rows.map((row) => row.id) }, activeTeamId: teamId }, { activeTeamId: null });
        return rows.flatMap((row) => {
          const token = opened(row);
          return token === null ? [] : [token];
        });
      });
    },
    async restoreActiveOrganization(sessionId, userId) {
      // One statement; on PostgreSQL it holds the remembered row until it commits (see clearActiveOrganization).
      // SQLite runs one writer at a time.
      const lock = store.dialect === "postgresql" ? " for share" : "";
      const rows = (await store
        .em()
        .getConnection()
        .execute(
          `update "session" set "active_organization_id" = (select "organization_id" from "session_remembered_organization" where "user_id" = ?${lock})
           where "id" = ? and exists (select 1 from "session_remembered_organization" where "user_id" = ?) returning "active_organization_id"`,
          [userId, sessionId, userId],
        )) as Array<{ active_organization_id: string | null }>;
      return rows[0]?.active_organization_id ?? null;
    },
    async addJwtKey(key) {
      // One statement: of replicas making a key for the same slot at once, one row wins (the slot is unique);
      // every one of them then reads that row.
      await store
        .em()
        .createQueryBuilder(JwtKeyEntity)
        .insert({ ...key })
        .onConflict("slot")
        .ignore()
        .execute();
      const row = await store.readOne(JwtKeyEntity, { slot: key.slot });
      if (!row) throw new Error(`no signing key for slot ${key.slot} after adding one`);
      return toJwtKey(row);
    },
    async findJwtKey(slot) {
      const row = await store.readOne(JwtKeyEntity, { slot });
      return row ? toJwtKey(row) : null;
    },
    async listJwtKeys(at) {
      const rows = await store.em().find(JwtKeyEntity, { publishedUntil: { $gt: at } }, { orderBy: { signsFrom: "asc", kid: "asc" } });
      return rows.map(toJwtKey);
    },
    async deleteJwtKeys(before) {
      await store.em().nativeDelete(JwtKeyEntity, { publishedUntil: { $lte: before } });
    },
    async findSessionEvents(userId) {
      const rows = await store.em().find(SessionEventEntity, { userId }, { orderBy: { occurredAt: "asc", id: "asc" } });
      return rows.map(toSessionEvent);
    },
    async findDueSessionEvents(at, limit) {
      const rows = await store.em().find(SessionEventEntity, { nextAttemptAt: { $lte: at }, ...leaseFree(at) }, { orderBy: { nextAttemptAt: "asc" }, limit });
      return rows.map(toSessionEvent);
    },
    async claimSessionEvents(ids, at, leaseUntil) {
      if (ids.length === 0) return [];
      // One statement for the batch; on PostgreSQL a row another replica is claiming is read again once
      // that one commits, and its lease then keeps it out.
      const rows = (await store
        .em()
        .getConnection()
        .execute(
          `update "session_event" set "attempts" = "attempts" + 1, "lease_until" = ?
           where "id" in (${ids.map(() => "?").join(", ")}) and "next_attempt_at" <= ? and ("lease_until" is null or "lease_until" <= ?)
           returning "id"`,
          [leaseUntil, ...ids, at, at],
        )) as Array<{ id: string }>;
      return rows.map((row) => row.id);
    },
    async retrySessionEvent(id, attempts, nextAttemptAt) {
      await store.em().nativeUpdate(SessionEventEntity, { id, attempts }, { nextAttemptAt, leaseUntil: null });
    },
    async deleteSessionEvents(ids) {
      if (ids.length) await store.em().nativeDelete(SessionEventEntity, { id: { $in: [...ids] } });
    },
    close: () => store.close(),
  };
}
