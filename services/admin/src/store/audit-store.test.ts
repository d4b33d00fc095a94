/** The AuditStore contract on memory, SQLite, and PostgreSQL (when TEST_DATABASE_URL is set). */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { createTestDatabase, onEveryBackend, TEST_DATABASE_URL } from "../../../../testing/databases.js";
import { eventually } from "../../../../testing/eventually.js";
import { auditStoreContract } from "./audit-store.contract.js";
import { createMemoryAuditStore } from "./memory-audit-store.js";
import { openAuditStore } from "./mikro-audit-store.js";

onEveryBackend("admin_store", { memory: () => createMemoryAuditStore(), sql: (url) => openAuditStore(url) }, auditStoreContract);

describe.skipIf(!TEST_DATABASE_URL)("the admin change lock across replicas (postgresql)", () => {
  it("a second replica's change waits for the first's to end", async () => {
    const db = await createTestDatabase("admin_lock");
    const [one, two] = [await openAuditStore(db.url), await openAuditStore(db.url)];
    const probe = new pg.Client({ connectionString: db.url });
    await probe.connect();
    try {
      const ran: string[] = [];
      let started!: () => void;
      const firstStarted = new Promise<void>((resolve) => (started = resolve));
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const first = one.withAdminChangeLock(async () => {
        ran.push("one");
        started();
        await held;
        ran.push("one done");
      });
      await firstStarted;
      const second = two.withAdminChangeLock(async () => void ran.push("two"));
      // The second replica is waiting on the lock in PostgreSQL, not running beside the first.
      await eventually(async () => {
        const { rows } = await probe.query("select count(*)::int as waiting from pg_locks where locktype = 'advisory' and not granted");
        expect(rows[0].waiting).toBe(1);
      }, 5_000);
      expect(ran).toEqual(["one"]);
      release();
      await Promise.all([first, second]);
      expect(ran).toEqual(["one", "one done", "two"]);
    } finally {
      await probe.end();
      await Promise.all([one.close(), two.close()]);
      await db.drop();
    }
  });
});
