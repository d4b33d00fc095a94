/** The SessionStore contract on SQLite (always) and PostgreSQL (when TEST_DATABASE_URL is set). */
import { describe } from "vitest";
import { createTestDatabase } from "../../../../testing/databases.js";
import { openSessionStore } from "./mikro-session-store.js";
import { sessionStoreContract } from "./session-store.contract.js";
import type { SessionStore } from "./session-store.js";

/** A store on a fresh database that drops its database when closed. */
async function freshStore(dialect: "default" | "sqlite"): Promise<SessionStore> {
  const db = await createTestDatabase("session_store", dialect);
  const store = await openSessionStore(db.url);
  return {
    ...store,
    async close() {
      await store.close();
      await db.drop();
    },
  };
}

describe("sqlite", () => {
  sessionStoreContract("sqlite", () => freshStore("sqlite"));
});

describe.skipIf(!process.env.TEST_DATABASE_URL)("postgresql", () => {
  sessionStoreContract("postgresql", () => freshStore("default"));
});
