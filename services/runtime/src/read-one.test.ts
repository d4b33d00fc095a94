/**
 * Store.readOne on SQLite and PostgreSQL: a lookup that reuses its compiled SQL answers what the query builder
 * answers, typed the same (dates as dates, booleans as booleans), whatever values a later call binds.
 */
import { defineEntity, p } from "@mikro-orm/core";
import { Migration } from "@mikro-orm/migrations";
import { expect, it } from "vitest";
import { onEveryBackend } from "../../../testing/databases.js";
import { openStore } from "./store.js";

const Widget = defineEntity({
  name: "Widget",
  tableName: "widget",
  properties: { id: p.string().primary(), owner: p.string(), kind: p.string(), enabled: p.boolean(), madeAt: p.datetime(), note: p.string().nullable() },
});
type WidgetRow = InstanceType<typeof Widget.class>;

class CreateWidget extends Migration {
  async up(): Promise<void> {
    this.addSql(
      `create table "widget" ("id" varchar(64) not null primary key, "owner" varchar(64) not null, "kind" varchar(64) not null, "enabled" boolean not null, "made_at" timestamptz not null, "note" text null)`,
    );
  }
}

const at = (day: number) => new Date(Date.UTC(2026, 0, day, 12, 30, 15, 123));
const widget = (id: string, owner: string, kind: string, day: number, note: string | null = null): WidgetRow => ({
  id,
  owner,
  kind,
  enabled: day % 2 === 0,
  madeAt: at(day),
  note,
});

const openWidgets = (url: string) => openStore({ url, entities: [Widget], migrations: [{ name: "0001-create-widget", class: CreateWidget }] });

onEveryBackend("read_one", { sql: openWidgets }, (_backend, open) => {
  it("answers each call with its own values, typed as the query builder types them, the same SQL reused", async () => {
    const store = await open();
    try {
      const rows = [widget("w1", "ann", "bolt", 2, "first"), widget("w2", "ann", "nut", 3), widget("w3", "bob", "bolt", 4), widget("w4", "ann", "bolt", 1)];
      const em = store.em();
      for (const row of rows) await em.insert(Widget, row);
      const byBuilder = async (where: Record<string, unknown>, orderBy?: Record<string, "asc" | "desc">) => {
        const query = store.em().createQueryBuilder(Widget).select("*").where(where).limit(1);
        if (orderBy) query.orderBy(orderBy);
        return (await query.execute("get")) ?? null;
      };

      for (const id of ["w1", "w2", "w3", "missing", "w1"]) {
        const found = await store.readOne(Widget, { id });
        expect(found).toEqual(await byBuilder({ id }));
        expect(found?.id ?? null).toBe(rows.find((row) => row.id === id)?.id ?? null);
      }
      const w1 = await store.readOne(Widget, { id: "w1" });
      expect(w1).toEqual({ id: "w1", owner: "ann", kind: "bolt", enabled: true, madeAt: at(2), note: "first" });
      expect(w1!.madeAt).toBeInstanceOf(Date);

      // Two keys, first called with equal values (no telling which parameter is which), then with others.
      await store.em().insert(Widget, widget("same", "bolt", "bolt", 6));
      expect((await store.readOne(Widget, { owner: "bolt", kind: "bolt" }))?.id).toBe("same");
      expect((await store.readOne(Widget, { owner: "bob", kind: "bolt" }))?.id).toBe("w3");
      expect((await store.readOne(Widget, { owner: "ann", kind: "nut" }))?.id).toBe("w2");
      // The same keys in the other order are their own query.
      expect((await store.readOne(Widget, { kind: "bolt", owner: "bob" }))?.id).toBe("w3");
      expect(await store.readOne(Widget, { kind: "nut", owner: "bob" })).toBeNull();

      // The order by is part of the query: the earliest and the latest of ann's bolts.
      expect((await store.readOne(Widget, { owner: "ann", kind: "bolt" }, { madeAt: "asc" }))?.id).toBe("w4");
      expect((await store.readOne(Widget, { owner: "ann", kind: "bolt" }, { madeAt: "desc" }))?.id).toBe("w1");
      expect((await store.readOne(Widget, { owner: "ann", kind: "bolt" }, { madeAt: "asc" }))?.id).toBe("w4");

      // What is not a plain value goes through the builder every time: a null, an operator, a boolean.
      expect((await store.readOne(Widget, { note: null, owner: "bob" }))?.id).toBe("w3");
      expect((await store.readOne(Widget, { madeAt: { $gt: at(3) }, owner: "ann" }))?.id ?? null).toBeNull();
      expect((await store.readOne(Widget, { madeAt: { $gt: at(3) }, owner: "bob" }))?.id).toBe("w3");
      expect((await store.readOne(Widget, { enabled: false, owner: "ann" }, { madeAt: "asc" }))?.id).toBe("w4");
      expect((await store.readOne(Widget, { enabled: true, owner: "ann" }, { madeAt: "asc" }))?.id).toBe("w1");
    } finally {
      await store.close();
    }
  });
});
