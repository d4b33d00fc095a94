/**
 * The session store in process memory: for unit tests of the domain, and the contract's reference backend.
 * Like the SQL store it keys sessions, pending revocations and pending forgets by the token's keyed hash.
 */
import type { CachedUser } from "@auth-platform/runtime/session-cache";
import type { TokenVault } from "@auth-platform/runtime/session-token";
import { newId } from "@auth-platform/runtime/random";
import {
  type JwtKeyRecord,
  newSessionEvent,
  type RevocationReason,
  revokedEvents,
  sessionCreatedData,
  type SessionEventRecord,
  type SessionRecord,
  type SessionStore,
} from "./session-store.js";

/** Pending records (revocations, forgets) in the order they were recorded, at most `limit`. */
function oldestFirst<T extends { recordedAt: Date; order: number }>(records: Map<string, T>, limit: number): Array<[string, T]> {
  return [...records.entries()].sort(([, a], [, b]) => a.recordedAt.getTime() - b.recordedAt.getTime() || a.order - b.order).slice(0, limit);
}

export function createMemorySessionStore(vault: Pick<TokenVault, "lookup">, options: { now?: () => Date } = {}): SessionStore {
  const now = options.now ?? (() => new Date());
  const sessions = new Map<string, SessionRecord>();
  const pending = new Map<string, { expiresAt: Date; recordedAt: Date; order: number }>();
  const forgets = new Map<string, { recordedAt: Date; order: number }>();
  const users = new Map<string, CachedUser>();
  /** User id -> the organization they last set active. */
  const remembered = new Map<string, string>();
  /** Signing keys by slot. */
  const jwtKeys = new Map<string, JwtKeyRecord>();
  /** The webhook event outbox by event id. */
  const events = new Map<string, SessionEventRecord>();
  let recorded = 0;
  const copy = (session: SessionRecord): SessionRecord => ({ ...session });
  const leaseFree = (event: SessionEventRecord, at: Date) => event.leaseUntil === null || event.leaseUntil <= at;
  /** Deletes the sessions of these lookups; with a reason, queues session.revoked for those that existed. */
  const remove = (lookups: string[], reason?: RevocationReason) => {
    const ended: SessionRecord[] = [];
    for (const lookup of lookups) {
      const session = sessions.get(lookup);
      if (session && sessions.delete(lookup)) ended.push(session);
    }
    if (reason) for (const event of revokedEvents(ended, reason, newId, now())) events.set(event.id, event);
  };
  return {
    async create(session) {
      const lookup = vault.lookup(session.token);
      if (sessions.has(lookup)) throw new Error("session token already exists");
      sessions.set(lookup, copy(session));
      const event = newSessionEvent(newId(), session.userId, "session.created", sessionCreatedData(session), now());
      events.set(event.id, event);
    },
    async findByToken(token) {
      const session = sessions.get(vault.lookup(token));
      return session ? copy(session) : null;
    },
    async findById(id) {
      const session = [...sessions.values()].find((s) => s.id === id);
      return session ? copy(session) : null;
    },
    async listByUser(userId) {
      return [...sessions.values()]
        .filter((s) => s.userId === userId)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
        .map(copy);
    },
    async extend(token, expiresAt, updatedAt) {
      const session = sessions.get(vault.lookup(token));
      if (!session) return false;
      Object.assign(session, { expiresAt, updatedAt });
      return true;
    },
    async deleteByTokens(tokens, reason) {
      remove(
        tokens.map((token) => vault.lookup(token)),
        reason,
      );
    },
    async revokePending(revoked, reason) {
      const recordedAt = now();
      remove(
        revoked.map(({ token }) => vault.lookup(token)),
        reason,
      );
      for (const { token, expiresAt } of revoked) {
        const lookup = vault.lookup(token);
        if (!pending.has(lookup)) pending.set(lookup, { expiresAt, recordedAt, order: recorded++ });
      }
    },
    async listPending(limit) {
      return oldestFirst(pending, limit).map(([lookup, { expiresAt }]) => ({ lookup, expiresAt }));
    },
    async clearPending(lookups) {
      for (const lookup of lookups) pending.delete(lookup);
    },
    async forgetPending(lookups) {
      const recordedAt = now();
      for (const lookup of lookups) forgets.set(lookup, { recordedAt, order: recorded++ });
    },
    async listPendingForgets(limit) {
      return oldestFirst(forgets, limit).map(([lookup, { recordedAt }]) => ({ lookup, recordedAt }));
    },
    async clearPendingForgets(listed) {
      for (const { lookup, recordedAt } of listed) {
        if (forgets.get(lookup)?.recordedAt.getTime() === recordedAt.getTime()) forgets.delete(lookup);
      }
    },
    async putUser(user) {
      const kept = users.get(user.id);
      if (!kept || Date.parse(kept.updatedAt) < Date.parse(user.updatedAt)) users.set(user.id, structuredClone(user));
    },
    async findUser(userId) {
      const user = users.get(userId);
      return user ? structuredClone(user) : null;
    },
    async deleteUser(userId) {
      users.delete(userId);
      remembered.delete(userId);
    },
    async usersMissingSnapshot(afterUserId, limit) {
      const missing = new Set([...sessions.values()].map((s) => s.userId).filter((id) => id > afterUserId && !users.has(id)));
      return [...missing].sort().slice(0, limit);
    },
    async setActiveOrganization(sessionId, organizationId) {
      const session = [...sessions.values()].find((s) => s.id === sessionId);
      if (!session) return null;
      if (session.activeOrganizationId !== organizationId) session.activeTeamId = null;
      session.activeOrganizationId = organizationId;
      if (!session.impersonatedBy) {
        if (organizationId) remembered.set(session.userId, organizationId);
        else remembered.delete(session.userId);
      }
      return session.token;
    },
    async clearActiveOrganization(organizationId, userId) {
      for (const [user, organization] of remembered) if (organization === organizationId && (!userId || user === userId)) remembered.delete(user);
      const changed = [...sessions.values()].filter((s) => s.activeOrganizationId === organizationId && (!userId || s.userId === userId));
      for (const session of changed) Object.assign(session, { activeOrganizationId: null, activeTeamId: null });
      return changed.map((s) => s.token);
    },
    async setActiveTeam(sessionId, team) {
      const session = [...sessions.values()].find((s) => s.id === sessionId);
      if (!session) return null;
      session.activeTeamId = team?.teamId ?? null;
      if (team) {
        session.activeOrganizationId = team.organizationId;
        if (!session.impersonatedBy) remembered.set(session.userId, team.organizationId);
      }
      return session.token;
    },
    async clearActiveTeam(teamId, userId) {
      const changed = [...sessions.values()].filter((s) => s.activeTeamId === teamId && (!userId || s.userId === userId));
      for (const session of changed) session.activeTeamId = null;
      return changed.map((s) => s.token);
    },
    async restoreActiveOrganization(sessionId, userId) {
      const session = [...sessions.values()].find((s) => s.id === sessionId);
      const organizationId = remembered.get(userId);
      if (!session || !organizationId) return null;
      session.activeOrganizationId = organizationId;
      return organizationId;
    },
    async addJwtKey(key) {
      const kept = jwtKeys.get(key.slot);
      if (kept) return { ...kept };
      jwtKeys.set(key.slot, { ...key });
      return { ...key };
    },
    async findJwtKey(slot) {
      const key = jwtKeys.get(slot);
      return key ? { ...key } : null;
    },
    async listJwtKeys(at) {
      return [...jwtKeys.values()]
        .filter((k) => k.publishedUntil > at)
        .sort((a, b) => a.signsFrom.getTime() - b.signsFrom.getTime() || (a.kid < b.kid ? -1 : 1))
        .map((k) => ({ ...k }));
    },
    async deleteJwtKeys(before) {
      for (const [slot, key] of jwtKeys) if (key.publishedUntil <= before) jwtKeys.delete(slot);
    },
    async findSessionEvents(userId) {
      return [...events.values()]
        .filter((event) => event.userId === userId)
        .sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime())
        .map((event) => ({ ...event }));
    },
    async findDueSessionEvents(at, limit) {
      return [...events.values()]
        .filter((event) => event.nextAttemptAt <= at && leaseFree(event, at))
        .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime())
        .slice(0, limit)
        .map((event) => ({ ...event }));
    },
    async claimSessionEvents(ids, at, leaseUntil) {
      const taken = ids.flatMap((id) => {
        const event = events.get(id);
        return event && event.nextAttemptAt <= at && leaseFree(event, at) ? [event] : [];
      });
      for (const event of taken) Object.assign(event, { attempts: event.attempts + 1, leaseUntil });
      return taken.map((event) => event.id);
    },
    async retrySessionEvent(id, attempts, nextAttemptAt) {
      const event = events.get(id);
      if (event && event.attempts === attempts) Object.assign(event, { nextAttemptAt, leaseUntil: null });
    },
    async deleteSessionEvents(ids) {
      for (const id of ids) events.delete(id);
    },
    async close() {
      jwtKeys.clear();
      sessions.clear();
      pending.clear();
      forgets.clear();
      users.clear();
      remembered.clear();
    },
  };
}
