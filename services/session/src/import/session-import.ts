/**
 * Writes imported sessions into the session store, keyed as ours are (the token's keyed hash and its sealed
 * copy, runtime/session-token.ts), so the token a user's browser already holds finds its session here
 * (docs/adr/0079-importing-a-better-auth-database.md). With each session goes the copy of its user the
 * session service serves on a cache miss. A run again brings the delta: a newer copy of a session (extended
 * in the old app) replaces the one here, one refreshed here since stays; session_import remembers what was
 * imported, so a session ended here since is not brought back, and one the source no longer has is ended
 * (unseenSessions, endSessions) as a sign-out is, its copies everywhere dropped. A session past its expiry
 * is not imported.
 */
import type { ImportedSession, ImportedUser, ImportOutcome } from "@auth-platform/runtime/imported-rows";
import { emptyOutcome, skip } from "@auth-platform/runtime/imported-rows";
import { bulkInsert, bulkLookup } from "@auth-platform/runtime/bulk-insert";
import { randomString } from "@auth-platform/runtime/random";
import type { CachedUser } from "@auth-platform/runtime/session-cache";
import { tokenVault } from "@auth-platform/runtime/session-token";
import { openStore, type Store } from "@auth-platform/runtime/store";
import type { SessionConfig } from "../config.js";
import { PendingRevocationEntity, SessionEntity, SessionImportEntity, type SessionRow, SessionUserEntity } from "../store/entities.js";
import { sessionMigrations } from "../store/migrations.js";
import { recordPendingRevocations } from "../store/mikro-session-store.js";

export interface SessionImport {
  /** The sessions, and the users they belong to (a session whose user is not among them is skipped). */
  importSessions(sessions: ImportedSession[], users: Map<string, ImportedUser>): Promise<ImportOutcome>;
  /**
   * Once every session of the source went through importSessions: up to `limit` sessions an earlier run
   * imported that this run did not see (by session id, after `afterId`), with their users. A source that no
   * longer has one of them but still has its user ended it (signed out, revoked): endSessions ends it here.
   */
  unseenSessions(afterId: string | null, limit: number): Promise<Array<{ sessionId: string; userId: string }>>;
  /** Ends these imported sessions here (and forgets them); returns how many were still here. */
  endSessions(sessionIds: string[]): Promise<number>;
  close(): Promise<void>;
}

const SESSION_COLUMNS = [
  "id",
  "tokenHash",
  "tokenSealed",
  "userId",
  "expiresAt",
  "ipAddress",
  "userAgent",
  "createdAt",
  "updatedAt",
  "impersonatedBy",
  "activeOrganizationId",
  "activeTeamId",
  "authMethod",
  "secondFactor",
  "authenticatedAt",
] as const;

/** What a newer copy of a session here takes from it: what the old app changes in a session it keeps. */
const SESSION_UPDATES = ["expiresAt", "updatedAt", "ipAddress", "userAgent", "activeOrganizationId", "activeTeamId"] as const;

function cachedUser(user: ImportedUser): CachedUser {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    emailVerified: user.emailVerified,
    image: user.image,
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
    username: user.username,
    displayUsername: user.displayUsername,
    extraFields: user.extraFields,
    twoFactorEnabled: user.twoFactorEnabled,
    role: user.role,
    banned: user.banned,
    banReason: user.banReason,
    banExpires: user.banExpires?.toISOString() ?? null,
  };
}

export async function openSessionImport(config: SessionConfig, now: () => Date = () => new Date()): Promise<SessionImport> {
  const vault = tokenVault(config.secret);
  const store: Store = await openStore({
    url: config.databaseUrl,
    entities: [SessionEntity, SessionUserEntity, SessionImportEntity, PendingRevocationEntity],
    migrations: sessionMigrations(vault),
  });
  // This run's mark on the sessions it sees in the source (session_import.run).
  const run = randomString(16);
  return {
    async importSessions(sessions, users) {
      const outcome = emptyOutcome();
      const at = now();
      const em = store.em();
      const ids = sessions.map((s) => s.id);
      const imported = new Set((await bulkLookup(em, { entity: SessionImportEntity, properties: ["sessionId"], by: "sessionId" }, ids)).map((r) => r.sessionId));
      const here = new Set((await bulkLookup(em, { entity: SessionEntity, properties: ["id"], by: "id" }, [...imported])).map((r) => r.id));
      const rows: SessionRow[] = [];
      const written = new Set<string>();
      for (const session of sessions) {
        if (imported.has(session.id) && !here.has(session.id)) skip(outcome, "sessions: ended here since an earlier import");
        else if (session.expiresAt <= at) skip(outcome, "sessions: expired");
        else if (!users.has(session.userId)) skip(outcome, "sessions: their user was not imported");
        else {
          written.add(session.id);
          rows.push({
            id: session.id,
            tokenHash: vault.lookup(session.token),
            tokenSealed: vault.seal(session.token, session.id),
            userId: session.userId,
            expiresAt: session.expiresAt,
            ipAddress: session.ipAddress,
            userAgent: session.userAgent,
            createdAt: session.createdAt,
            updatedAt: session.updatedAt,
            impersonatedBy: session.impersonatedBy,
            activeOrganizationId: session.activeOrganizationId,
            activeTeamId: session.activeTeamId,
            authMethod: null,
            secondFactor: null,
            authenticatedAt: session.createdAt,
          });
        }
      }
      // Seen in the source: every session imported before, and every one written now.
      const seen = sessions.filter((s) => imported.has(s.id) || written.has(s.id)).map((s) => ({ sessionId: s.id, userId: s.userId, run }));
      // In the same order on every page: two pages written at once lock the copies they share in one order (no deadlock).
      const copies = [...new Set(rows.map((r) => r.userId))].sort().map((id) => {
        const user = cachedUser(users.get(id)!);
        return { userId: id, updatedAt: new Date(user.updatedAt), snapshot: JSON.stringify(user) };
      });
      await em.transactional(async (tx) => {
        // A newer copy (the old app extended it, or changed its organization) replaces the one here; one
        // refreshed here since is newer and stays.
        await bulkInsert(tx, { entity: SessionEntity, properties: SESSION_COLUMNS, conflict: ["id"], onConflict: { merge: SESSION_UPDATES, newerBy: "updatedAt" } }, rows);
        // Newest wins, as PutUserCopy: a copy identity pushed since (a newer user) stays.
        await bulkInsert(
          tx,
          {
            entity: SessionUserEntity,
            properties: ["userId", "updatedAt", "snapshot"],
            conflict: ["userId"],
            onConflict: { merge: ["updatedAt", "snapshot"], newerBy: "updatedAt" },
          },
          copies,
        );
        await bulkInsert(tx, { entity: SessionImportEntity, properties: ["sessionId", "userId", "run"], conflict: ["sessionId"], onConflict: { merge: ["run"] } }, seen);
      });
      outcome.written = rows.length;
      return outcome;
    },

    async unseenSessions(afterId, limit) {
      const after = afterId === null ? "" : ` and "session_id" > ?`;
      const rows = (await store
        .em()
        .execute(
          `select "session_id", "user_id" from "session_import" where "run" <> ?${after} order by "session_id" limit ?`,
          afterId === null ? [run, limit] : [run, afterId, limit],
        )) as Array<{ session_id: string; user_id: string }>;
      return rows.map((row) => ({ sessionId: row.session_id, userId: row.user_id }));
    },

    async endSessions(sessionIds) {
      if (!sessionIds.length) return 0;
      // Ended as a sign-out is: the row goes, and its revocation is recorded as pending in the same
      // transaction, so the running session service tells every gateway and watcher holding a copy, and
      // tombstones the shared cache, at its next lease check (domain/cache-lease.ts).
      return store.em().transactional(async (tx) => {
        const ending = await tx.find(SessionEntity, { id: { $in: sessionIds } }, { fields: ["tokenHash", "expiresAt"] });
        const recordedAt = now();
        const pending = ending.map((row) => ({ tokenHash: row.tokenHash, expiresAt: row.expiresAt, recordedAt }));
        await recordPendingRevocations(tx, pending);
        const ended = await tx.nativeDelete(SessionEntity, { id: { $in: sessionIds } });
        await tx.nativeDelete(SessionImportEntity, { sessionId: { $in: sessionIds } });
        return ended;
      });
    },

    close: () => store.close(),
  };
}
