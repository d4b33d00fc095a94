/** Bulk writes and lookups (an import's pages) on SQLite and PostgreSQL: conflicts as asked, values bound, none cut. */
import { defineEntity, p } from "@mikro-orm/core";
import { Migration } from "@mikro-orm/migrations";
import { describe, expect, it } from "vitest";
import { createTestDatabase, onEveryBackend, TEST_DATABASE_URL } from "../../../testing/databases.js";
import { bulkInsert, bulkLookup, type OnConflict } from "./bulk-insert.js";
import { openStore, type Store } from "./store.js";

const Gadget = defineEntity({
  name: "Gadget",
  tableName: "gadget",
  properties: { id: p.string().primary(), label: p.string(), note: p.string().nullable(), updatedAt: p.datetime() },
});
type GadgetRow = InstanceType<typeof Gadget.class>;

class CreateGadget extends Migration {
  async up(): Promise<void> {
    // The entity says varchar(255) for both: label is shorter in the table (a longer value is refused, not
    // cut), note is text (a longer value is kept whole).
    this.addSql(`create table "gadget" ("id" varchar(64) not null primary key, "label" varchar(8) not null, "note" text null, "updated_at" timestamptz not null)`);
  }
}

const at = (day: number) => new Date(Date.UTC(2026, 0, day, 12, 30, 15, 123));
const gadget = (id: string, label: string, day: number, note: string | null = null): GadgetRow => ({ id, label, note, updatedAt: at(day) });
const write = (store: Store, rows: GadgetRow[], onConflict: OnConflict) =>
  store.em().transactional((tx) => bulkInsert(tx, { entity: Gadget, properties: ["id", "label", "note", "updatedAt"], conflict: ["id"], onConflict }, rows));
const read = async (store: Store, ids: string[]) =>
  (await bulkLookup(store.em(), { entity: Gadget, properties: ["id", "label", "note"], by: "id" }, ids)).sort((a, b) => a.id.localeCompare(b.id));

const openGadgets = (url: string) => openStore({ url, entities: [Gadget], migrations: [{ name: "0001-create-gadget", class: CreateGadget }] });

onEveryBackend("bulk_insert", { sql: openGadgets }, (_backend, open) => {
  it("writes a page, leaves, merges or replaces what is there as asked, and finds rows by a column", async () => {
    const store = await open();
    try {
      // Quotes, backslashes, braces and commas go through as they are (no value is written into the SQL).
      const odd = `it's "quoted", {braced} \\ back`;
      await write(store, [gadget("a", "one", 2, odd), gadget("b", "two", 2), gadget("c", "three", 2)], { ignore: true });
      expect(await read(store, ["a", "b", "c", "missing"])).toEqual([
        { id: "a", label: "one", note: odd },
        { id: "b", label: "two", note: null },
        { id: "c", label: "three", note: null },
      ]);
      expect(await bulkLookup(store.em(), { entity: Gadget, properties: ["id"], by: "label" }, ["two", "nine"])).toEqual([{ id: "b" }]);
      expect(await bulkLookup(store.em(), { entity: Gadget, properties: ["id"], by: "label" }, [])).toEqual([]);

      const long = "x".repeat(300);
      await write(store, [gadget("d", "four", 2, long)], { ignore: true });
      expect((await read(store, ["d"]))[0]!.note).toBe(long);

      await write(store, [gadget("a", "left", 9)], { ignore: true });
      // Newer wins: an older copy of b leaves it, a newer copy of c replaces it.
      await write(store, [gadget("b", "older", 1), gadget("c", "newer", 3)], { merge: ["label", "updatedAt"], newerBy: "updatedAt" });
      expect((await read(store, ["a", "b", "c"])).map((g) => g.label)).toEqual(["one", "two", "newer"]);
      await write(store, [gadget("b", "always", 1)], { merge: ["label"] });
      expect((await read(store, ["b"]))[0]!.label).toBe("always");
      const [stored] = await store.em().find(Gadget, { id: "c" });
      expect(stored!.updatedAt.getTime()).toBe(at(3).getTime());
    } finally {
      await store.close();
    }
  });
});

describe.skipIf(!TEST_DATABASE_URL)("bulk insert on PostgreSQL", () => {
  it("refuses a value too long for its column instead of cutting it", async () => {
    const db = await createTestDatabase("bulk_insert_long");
    const store = await openGadgets(db.url);
    try {
      await expect(write(store, [gadget("a", "nine-long", 1)], { ignore: true })).rejects.toThrow(/too long/);
      expect(await read(store, ["a"])).toEqual([]);
    } finally {
      await store.close();
      await db.drop();
    }
  });
});
