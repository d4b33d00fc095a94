/**
 * Writes imported sessions into the session store, keyed as ours are (the token's keyed hash and its sealed
 * copy, runtime/session-token.ts), so the token a user's browser already holds finds its session here
 * (docs/adr/0079-importing-a-better-auth-database.md). With each session goes the copy of its user the
 * session service serves on a cache miss. A session already present is left as it is (it may have been
 * extended or revoked here since); a session past its expiry is not imported.
 */
import type { ImportedSession, ImportedUser, ImportOutcome } from "@auth-platform/runtime/imported-rows";
import { emptyOutcome, skip } from "@auth-platform/runtime/imported-rows";
import { bulkInsert } from "@auth-platform/runtime/bulk-insert";
import type { CachedUser } from "@auth-platform/runtime/session-cache";
import { tokenVault } from "@auth-platform/runtime/session-token";
import { openStore, type Store } from "@auth-platform/runtime/store";
import type { SessionConfig } from "../config.js";
import { SessionEntity, type SessionRow, SessionUserEntity } from "../store/entities.js";
import { sessionMigrations } from "../store/migrations.js";

export interface SessionImport {
  /** The sessions, and the users they belong to (a session whose user is not among them is skipped). */
  importSessions(sessions: ImportedSession[], users: Map<string, ImportedUser>): Promise<ImportOutcome>;
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
  const store: Store = await openStore({ url: config.databaseUrl, entities: [SessionEntity, SessionUserEntity], migrations: sessionMigrations(vault) });
  return {
    async importSessions(sessions, users) {
      const outcome = emptyOutcome();
      const at = now();
      const rows: SessionRow[] = [];
      for (const session of sessions) {
        if (session.expiresAt <= at) skip(outcome, "sessions: expired");
        else if (!users.has(session.userId)) skip(outcome, "sessions: their user was not imported");
        else
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
      if (!rows.length) return outcome;
      const copies = [...new Set(rows.map((r) => r.userId))].sort().map((id) => {
        const user = cachedUser(users.get(id)!);
        return { userId: id, updatedAt: new Date(user.updatedAt), snapshot: JSON.stringify(user) };
      });
      await store.em().transactional(async (em) => {
        await bulkInsert(em, { entity: SessionEntity, properties: SESSION_COLUMNS, conflict: ["id"], onConflict: { ignore: true } }, rows);
        // Newest wins, as PutUserCopy: a copy identity pushed since (a newer user) stays.
        await bulkInsert(
          em,
          {
            entity: SessionUserEntity,
            properties: ["userId", "updatedAt", "snapshot"],
            conflict: ["userId"],
            onConflict: { merge: ["updatedAt", "snapshot"], newerBy: "updatedAt" },
          },
          copies,
        );
      });
      outcome.written = rows.length;
      return outcome;
    },
    close: () => store.close(),
  };
}
