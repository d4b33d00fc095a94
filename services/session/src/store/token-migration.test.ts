/**
 * Migration 0002 on a database written by the previous release (plain tokens): every session is still found
 * by its token, listed with it, and the table then holds only keyed hashes and sealed copies. Runs on SQLite
 * and, when TEST_DATABASE_URL is set, on PostgreSQL.
 */
import { afterAll, describe, expect, it } from "vitest";
import { defineEntity, p } from "@mikro-orm/core";
import { newId, randomString } from "@auth-platform/runtime/random";
import { tokenVault } from "@auth-platform/runtime/session-token";
import { openStore } from "@auth-platform/runtime/store";
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from "../../../../testing/databases.js";
import { dumpTable, stringsIn } from "../../../../testing/dumps.js";
import { openSessionStore } from "./mikro-session-store.js";
import { sessionMigrations } from "./migrations.js";
import type { SessionRecord } from "./session-store.js";

/** The session table as release 0001 mapped it. */
const ReleasedSession = defineEntity({
  name: "ReleasedSession",
  tableName: "session",
  properties: {
    id: p.string().primary(),
    token: p.string().unique(),
    userId: p.string().index(),
    expiresAt: p.datetime(),
    ipAddress: p.string().nullable(),
    userAgent: p.text().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    impersonatedBy: p.string().nullable(),
    activeOrganizationId: p.string().nullable(),
  },
});

const vault = tokenVault("migration-secret-0123456789-0123456789");

/** A session as the first release kept it: nothing of how it was opened. */
type ReleasedRecord = Omit<SessionRecord, "authMethod" | "secondFactor" | "authenticatedAt" | "activeTeamId">;
/** The same session as this release reads it. */
const asRead = (session: ReleasedRecord): SessionRecord => ({ ...session, activeTeamId: null, authMethod: null, secondFactor: null, authenticatedAt: null });

function aReleasedSession(userId: string, offsetMs: number): ReleasedRecord {
  const createdAt = new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678) + offsetMs);
  return {
    id: newId(),
    token: randomString(32),
    userId,
    expiresAt: new Date(createdAt.getTime() + 7 * 86_400_000 + 1),
    ipAddress: offsetMs % 2 ? null : "203.0.113.7",
    userAgent: "released client",
    createdAt,
    updatedAt: new Date(createdAt.getTime() + 17),
    impersonatedBy: null,
    activeOrganizationId: offsetMs % 2 ? newId() : null,
  };
}

function suite(backend: "sqlite" | "default") {
  const databases: TestDatabase[] = [];
  afterAll(async () => {
    for (const db of databases) await db.drop();
  });

  it("converts released rows: found and listed by token, no token left in the table", async () => {
    const db = await createTestDatabase("session_migration", backend);
    databases.push(db);
    const released = await openStore({ url: db.url, entities: [ReleasedSession], migrations: sessionMigrations(vault).slice(0, 1) });
    const userId = newId();
    const sessions = [0, 1, 2].map((i) => aReleasedSession(userId, i * 1000));
    const em = released.em();
    for (const session of sessions) em.create(ReleasedSession, session);
    await em.flush();
    await released.close();

    const store = await openSessionStore(db.url, vault);
    try {
      for (const session of sessions) expect(await store.findByToken(session.token)).toEqual(asRead(session));
      expect(await store.listByUser(userId)).toEqual(sessions.map(asRead));
      const rows = await dumpTable(db.url, "session");
      expect(rows).toHaveLength(3);
      expect(Object.keys(rows[0]!)).not.toContain("token");
      const dumped = stringsIn(rows);
      for (const session of sessions) {
        expect(dumped.has(session.token)).toBe(false);
        expect([...dumped].some((value) => value.includes(session.token))).toBe(false);
      }
      // New sessions and revocations work on the converted table.
      const fresh = aReleasedSession(userId, 5000);
      await store.create(asRead(fresh));
      await store.deleteByTokens([sessions[0]!.token]);
      expect((await store.listByUser(userId)).map((s) => s.token)).toEqual([sessions[1]!.token, sessions[2]!.token, fresh.token]);
    } finally {
      await store.close();
    }
    // Opening again runs nothing twice.
    const again = await openSessionStore(db.url, vault);
    expect((await again.listByUser(userId)).length).toBe(3);
    await again.close();
  });

  it("a store opened under another AUTH_SECRET finds and lists none of the sessions", async () => {
    const db = await createTestDatabase("session_migration", backend);
    databases.push(db);
    const store = await openSessionStore(db.url, vault);
    const session = aReleasedSession(newId(), 0);
    await store.create(asRead(session));
    await store.close();
    const other = await openSessionStore(db.url, tokenVault("another-secret-0123456789-0123456789"));
    try {
      expect(await other.findByToken(session.token)).toBeNull();
      expect(await other.listByUser(session.userId)).toEqual([]);
    } finally {
      await other.close();
    }
  });
}

describe("session token migration (sqlite)", () => suite("sqlite"));
describe.skipIf(!TEST_DATABASE_URL)("session token migration (postgresql)", () => suite("default"));
