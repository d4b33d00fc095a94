/**
 * MIGRATIONS and the migrate-only start: a deployment migrates once in its hook Job (`migrate`: run, then
 * stop), and its pods (skip) refuse to start on a database with a pending migration instead of running it.
 * `migrate --plan` and `--check` judge a database without changing it; a release starts on a database a
 * newer one expanded (a rollback), never on one it contracted (docs/upgrades.md).
 */
import { defineEntity, p } from "@mikro-orm/core";
import { Migration } from "@mikro-orm/migrations";
import { afterEach, describe, expect, it } from "vitest";
import { backendLabel, createTestDatabase, TEST_DATABASE_URL } from "../../../testing/databases.js";
import { checkDependencies } from "./dependencies.js";
import { MigrationsDone, setMigrationMode } from "./migration-mode.js";
import { openStore } from "./store.js";

const Gadget = defineEntity({ name: "Gadget", tableName: "gadget", properties: { id: p.string().primary() } });
class CreateGadget extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "gadget" ("id" varchar(64) not null primary key)`);
  }
}
class AddGadgetName extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table "gadget" add column "name" varchar(255) null`);
  }
}
/** The rule's way to index a table in use on PostgreSQL: CONCURRENTLY, so outside a transaction. */
class IndexGadgetName extends Migration {
  isTransactional(): boolean {
    return false;
  }
  async up(): Promise<void> {
    this.addSql(`create index concurrently if not exists "gadget_name_index" on "gadget" ("name")`);
  }
}
class DropGadgetName extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table "gadget" drop column "name"`);
  }
}
const first = [{ name: "0001-create-gadget", class: CreateGadget }];
const both = [...first, { name: "0002-add-gadget-name", class: AddGadgetName }];
const contracted = [...both, { name: "0003-contract-drop-gadget-name", class: DropGadgetName }];

/** What a migrate --plan or --check start ends with: its report, and whether it failed. */
async function judged(url: string, mode: "plan" | "check", migrations: typeof first): Promise<MigrationsDone> {
  setMigrationMode(mode);
  const done = await openStore({ url, entities: [Gadget], migrations }).then(
    () => {
      throw new Error("the store opened");
    },
    (error: unknown) => error,
  );
  expect(done).toBeInstanceOf(MigrationsDone);
  return done as MigrationsDone;
}

async function migrated(url: string, migrations: typeof first): Promise<void> {
  setMigrationMode("run");
  await (await openStore({ url, entities: [Gadget], migrations })).close();
}

afterEach(() => setMigrationMode("run"));

describe(`migration modes (${backendLabel()})`, () => {
  it("migrate-only runs the migrations and stops; skip then opens the migrated database", async () => {
    const db = await createTestDatabase("migration_mode");
    try {
      setMigrationMode("only");
      await expect(openStore({ url: db.url, entities: [Gadget], migrations: first })).rejects.toBeInstanceOf(MigrationsDone);
      setMigrationMode("skip");
      const store = await openStore({ url: db.url, entities: [Gadget], migrations: first });
      const em = store.em();
      em.create(Gadget, { id: "g1" });
      await em.flush();
      await store.close();
    } finally {
      await db.drop();
    }
  });

  it("skip refuses a database with a pending migration, naming it, and runs nothing", async () => {
    const db = await createTestDatabase("migration_skip");
    try {
      setMigrationMode("skip");
      await expect(openStore({ url: db.url, entities: [Gadget], migrations: first })).rejects.toThrow(/MIGRATIONS=skip but 1 migration\(s\) are pending \(0001-create-gadget\)/);
      setMigrationMode("run");
      (await openStore({ url: db.url, entities: [Gadget], migrations: first })).close();
      // A release that ships a new migration: its pods refuse to start until the Job ran it.
      setMigrationMode("skip");
      await expect(openStore({ url: db.url, entities: [Gadget], migrations: both })).rejects.toThrow(/pending \(0002-add-gadget-name\)/);
    } finally {
      await db.drop();
    }
  });

  it("registers the open database as a dependency, and forgets it on close", async () => {
    const db = await createTestDatabase("migration_dependency");
    try {
      const store = await openStore({ url: db.url, entities: [Gadget], migrations: first });
      expect(await checkDependencies()).toEqual({ ready: true, failures: [] });
      await store.close();
      expect((await checkDependencies()).failures).toEqual([]);
    } finally {
      await db.drop();
    }
  });

  it("--plan prints each pending migration's SQL and changes nothing; --check passes a database behind by expansions", async () => {
    const db = await createTestDatabase("migration_plan");
    try {
      await migrated(db.url, first);
      const plan = await judged(db.url, "plan", both);
      expect(plan.failed).toBe(false);
      expect(plan.report).toBe(`1 applied, 1 pending, 0 applied by a newer release\n  pending 0002-add-gadget-name\n    alter table "gadget" add column "name" varchar(255) null;`);
      expect((await judged(db.url, "plan", both)).report).toContain("1 pending");
      const check = await judged(db.url, "check", both);
      expect(check.failed).toBe(false);
    } finally {
      await db.drop();
    }
  });

  it("a release starts on a database a newer release expanded (a rollback), and --check passes it", async () => {
    const db = await createTestDatabase("migration_ahead");
    try {
      await migrated(db.url, both);
      for (const mode of ["skip", "run"] as const) {
        setMigrationMode(mode);
        const store = await openStore({ url: db.url, entities: [Gadget], migrations: first });
        const em = store.em();
        em.create(Gadget, { id: `g-${mode}` });
        await em.flush();
        await store.close();
      }
      const check = await judged(db.url, "check", first);
      expect(check.failed).toBe(false);
      expect(check.report).toContain("newer 0002-add-gadget-name");
    } finally {
      await db.drop();
    }
  });

  it("refuses a database a newer release contracted, in every mode, and --check fails on it", async () => {
    const db = await createTestDatabase("migration_contracted");
    try {
      await migrated(db.url, contracted);
      for (const mode of ["skip", "run"] as const) {
        setMigrationMode(mode);
        await expect(openStore({ url: db.url, entities: [Gadget], migrations: both })).rejects.toThrow(/0003-contract-drop-gadget-name is a contract migration of a newer release/);
      }
      const check = await judged(db.url, "check", both);
      expect(check.failed).toBe(true);
      expect(check.report).toMatch(/ahead: 0003-contract-drop-gadget-name/);
    } finally {
      await db.drop();
    }
  });

  it("--check fails when a pending migration needs the processes replaced together, unless the database is new", async () => {
    const db = await createTestDatabase("migration_together");
    try {
      const together = [...first, { name: "0002-add-gadget-name", class: AddGadgetName, replaceTogether: "the previous release reads the old shape" }];
      expect((await judged(db.url, "check", together)).failed).toBe(false);
      await migrated(db.url, first);
      const check = await judged(db.url, "check", together);
      expect(check.failed).toBe(true);
      expect(check.report).toMatch(/behind: 0002-add-gadget-name cannot run under a rolling upgrade \(the previous release reads the old shape\)/);
    } finally {
      await db.drop();
    }
  });

  it.skipIf(!TEST_DATABASE_URL)("runs a migration that builds an index CONCURRENTLY after others pending with it (PostgreSQL)", async () => {
    const db = await createTestDatabase("migration_concurrently");
    try {
      const store = await openStore({ url: db.url, entities: [Gadget], migrations: [...both, { name: "0003-index-gadget-name", class: IndexGadgetName }] });
      const indexes = await store.em().getConnection().execute(`select i.indisvalid from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname = 'gadget_name_index'`);
      expect(indexes).toEqual([{ indisvalid: true }]);
      await store.close();
    } finally {
      await db.drop();
    }
  });
});
