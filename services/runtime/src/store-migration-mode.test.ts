/**
 * MIGRATIONS and the migrate-only start: a deployment migrates once in its hook Job (`migrate`: run, then
 * stop), and its pods (skip) refuse to start on a database with a pending migration instead of running it.
 */
import { defineEntity, p } from "@mikro-orm/core";
import { Migration } from "@mikro-orm/migrations";
import { afterEach, describe, expect, it } from "vitest";
import { backendLabel, createTestDatabase } from "../../../testing/databases.js";
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
const first = [{ name: "0001-create-gadget", class: CreateGadget }];
const both = [...first, { name: "0002-add-gadget-name", class: AddGadgetName }];

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
});
