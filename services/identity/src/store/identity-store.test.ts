/** The IdentityStore contract on SQLite (always) and PostgreSQL (when TEST_DATABASE_URL is set). */
import { describe } from "vitest";
import { createTestDatabase } from "../../../../testing/databases.js";
import { identityStoreContract } from "./identity-store.contract.js";
import type { IdentityStore } from "./identity-store.js";
import { openIdentityStore } from "./mikro-identity-store.js";

/** A store on a fresh database that drops its database when closed. */
async function freshStore(dialect: "default" | "sqlite"): Promise<IdentityStore> {
  const db = await createTestDatabase("identity_store", dialect);
  const store = await openIdentityStore(db.url);
  return {
    ...store,
    async close() {
      await store.close();
      await db.drop();
    },
  };
}

describe("sqlite", () => {
  identityStoreContract("sqlite", () => freshStore("sqlite"));
});

describe.skipIf(!process.env.TEST_DATABASE_URL)("postgresql", () => {
  identityStoreContract("postgresql", () => freshStore("default"));
});
