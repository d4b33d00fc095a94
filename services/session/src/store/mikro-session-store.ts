/** The session store on MikroORM (SQLite or PostgreSQL). */
import { openStore } from "@auth-platform/runtime/store";
import { SessionEntity, type SessionRow } from "./entities.js";
import { sessionMigrations } from "./migrations.js";
import type { SessionRecord, SessionStore } from "./session-store.js";

function toRecord(row: SessionRow): SessionRecord {
  return {
    id: row.id,
    token: row.token,
    userId: row.userId,
    expiresAt: row.expiresAt,
    ipAddress: row.ipAddress ?? null,
    userAgent: row.userAgent ?? null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    impersonatedBy: row.impersonatedBy ?? null,
    activeOrganizationId: row.activeOrganizationId ?? null,
  };
}

export async function openSessionStore(url: string): Promise<SessionStore> {
  const store = await openStore({ url, entities: [SessionEntity], migrations: sessionMigrations });
  return {
    async create(session) {
      const em = store.em();
      em.create(SessionEntity, session);
      await em.flush();
    },
    async findByToken(token) {
      const row = await store.em().findOne(SessionEntity, { token });
      return row ? toRecord(row) : null;
    },
    async listByUser(userId) {
      const rows = await store.em().find(SessionEntity, { userId }, { orderBy: { createdAt: "asc" } });
      return rows.map(toRecord);
    },
    async extend(token, expiresAt, updatedAt) {
      const changed = await store.em().nativeUpdate(SessionEntity, { token }, { expiresAt, updatedAt });
      return changed > 0;
    },
    async deleteByTokens(tokens) {
      if (tokens.length) await store.em().nativeDelete(SessionEntity, { token: { $in: tokens } });
    },
    close: () => store.close(),
  };
}
