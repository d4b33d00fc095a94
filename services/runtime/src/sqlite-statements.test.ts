/** SQLite with bound parameters: what is stored is what MikroORM's written-out SQL stored, and statements are compiled once. */
import { DatabaseSync } from "node:sqlite";
import { defineEntity, p } from "@mikro-orm/core";
import { Migration } from "@mikro-orm/migrations";
import { raw, SqlitePlatform } from "@mikro-orm/sql";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createTestDatabase } from "../../../testing/databases.js";
import { bindParameters } from "./sqlite-statements.js";
import { openStore, type Store } from "./store.js";

const Gadget = defineEntity({
  name: "Gadget",
  tableName: "gadget",
  properties: {
    id: p.string().primary(),
    label: p.string(),
    count: p.integer(),
    ratio: p.double(),
    active: p.boolean(),
    madeAt: p.datetime(),
    extra: p.json<Record<string, unknown>>().nullable(),
  },
});

class CreateGadget extends Migration {
  async up(): Promise<void> {
    this.addSql(
      `create table "gadget" ("id" text not null primary key, "label" text not null, "count" integer not null, "ratio" real not null, ` +
        `"active" integer not null, "made_at" datetime not null, "extra" json null)`,
    );
  }
}

describe("bindParameters", () => {
  const platform = new SqlitePlatform();

  it("binds each value as SQLite would read it written out, and one parameter per element of an array", () => {
    const when = new Date("2026-11-24T01:00:00.000Z");
    const bound = bindParameters(platform, "select * from t where a = ? and b in (?) and c = ? and d = ? and e = ? and f = ? and g = ? and h is ?", [
      "it's",
      [1, 2.5, "x"],
      true,
      when,
      { k: "v" },
      7n,
      Buffer.from("ab"),
      null,
    ]);
    expect(bound).toEqual({
      sql: "select * from t where a = ? and b in (?, ?, ?) and c = ? and d = ? and e = ? and f = ? and g = ? and h is ?",
      parameters: ["it's", 1n, 2.5, "x", 1n, BigInt(when.getTime()), '{"k":"v"}', 7n, Buffer.from("ab"), null],
    });
  });

  it("writes identifiers (??) and raw fragments into the text, and leaves a query with an escaped \\? to MikroORM", () => {
    expect(bindParameters(platform, "select ?? from t where x = ? and y = ?", ["t.name", raw("lower(?)", ["A"]), 3])).toEqual({
      sql: "select `t`.`name` from t where x = lower('A') and y = ?",
      parameters: [3n],
    });
    expect(bindParameters(platform, "select '\\?' where a = ?", [1])).toBeUndefined();
  });
});

describe("a SQLite store", () => {
  let store: Store | undefined;
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await store?.close();
    await drop?.();
    store = drop = undefined;
  });

  async function open(): Promise<Store> {
    const db = await createTestDatabase("sqlite_statements", "sqlite");
    drop = db.drop;
    store = await openStore({ url: db.url, entities: [Gadget], migrations: [{ name: "0001-create-gadget", class: CreateGadget }] });
    return store;
  }

  it("stores integers, booleans and dates as integers, and finds rows by each kind of value", async () => {
    const s = await open();
    const madeAt = new Date("2026-11-24T01:02:03.456Z");
    const em = s.em();
    em.create(Gadget, { id: "g1", label: "5", count: 5, ratio: 0.5, active: true, madeAt, extra: { colour: "red" } });
    em.create(Gadget, { id: "g2", label: "it's", count: -3, ratio: 2, active: false, madeAt: new Date(0), extra: null });
    await em.flush();

    const types = await s
      .em()
      .getConnection()
      .execute(`select id, typeof(label) label, typeof(count) count, typeof(ratio) ratio, typeof(active) active, typeof(made_at) made_at from gadget order by id`);
    expect(types).toEqual([
      { id: "g1", label: "text", count: "integer", ratio: "real", active: "integer", made_at: "integer" },
      { id: "g2", label: "text", count: "integer", ratio: "real", active: "integer", made_at: "integer" },
    ]);
    const read = s.em();
    expect((await read.findOneOrFail(Gadget, { label: "it's" })).id).toBe("g2");
    expect((await read.findOneOrFail(Gadget, { madeAt })).id).toBe("g1");
    expect((await read.find(Gadget, { active: false })).map((g) => g.id)).toEqual(["g2"]);
    expect((await read.find(Gadget, { count: { $gt: 0 }, ratio: { $lt: 1 } })).map((g) => g.id)).toEqual(["g1"]);
    expect((await read.find(Gadget, { id: { $in: ["g1", "g2", "nope"] } }, { orderBy: { id: "asc" } })).map((g) => g.id)).toEqual(["g1", "g2"]);
    // A query it cannot bind (an escaped \?) still runs, as MikroORM writes it.
    expect(await s.em().getConnection().execute("select '\\?' as mark, ? as n", [5])).toEqual([{ mark: "?", n: 5 }]);
    const g1 = await s.em().findOneOrFail(Gadget, { id: "g1" });
    expect(g1).toMatchObject({ label: "5", count: 5, ratio: 0.5, active: true, madeAt, extra: { colour: "red" } });
  });

  it("compiles a query's statement once however many values it runs with", async () => {
    const s = await open();
    const em = s.em();
    for (let i = 0; i < 5; i++) em.create(Gadget, { id: `g${i}`, label: `label ${i}`, count: i, ratio: i / 2, active: i % 2 === 0, madeAt: new Date(i) });
    await em.flush();
    const prepare = vi.spyOn(DatabaseSync.prototype, "prepare");
    for (let i = 0; i < 20; i++) await s.em().findOne(Gadget, { id: `g${i % 5}` });
    await s.em().transactional(async (tx) => {
      tx.create(Gadget, { id: "h1", label: "one", count: 1, ratio: 1, active: true, madeAt: new Date(1) });
    });
    await s.em().transactional(async (tx) => {
      tx.create(Gadget, { id: "h2", label: "two", count: 2, ratio: 2, active: false, madeAt: new Date(2) });
    });
    const compiled = prepare.mock.calls.map(([sql]) => sql);
    expect(compiled.filter((sql) => sql.startsWith("select"))).toHaveLength(1);
    expect(compiled.filter((sql) => sql.startsWith("insert"))).toHaveLength(1);
    expect(await s.em().count(Gadget)).toBe(7);
  });
});
