/** The store bootstrap: real migrations on SQLite and PostgreSQL, and replicas migrating at once. */
import { once } from "node:events";
import { defineEntity, p } from "@mikro-orm/core";
import { Migration } from "@mikro-orm/migrations";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { createTestDatabase, TEST_DATABASE_URL } from "../../../testing/databases.js";
import { eventually } from "../../../testing/eventually.js";
import { openStore } from "./store.js";

/** Waits until PostgreSQL runs `query` (pg_stat_activity), seen from a connection of its own. */
async function untilRunning(url: string, query: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await eventually(async () => {
      const { rows } = await client.query("select 1 from pg_stat_activity where query = $1 and state = 'active'", [query]);
      expect(rows).toHaveLength(1);
    });
  } finally {
    await client.end();
  }
}

const Widget = defineEntity({
  name: "Widget",
  tableName: "widget",
  properties: { id: p.string().primary(), name: p.string() },
});

class CreateWidget extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "widget" ("id" varchar(64) not null primary key, "name" varchar(255) not null)`);
  }
}
class AddWidgetIndex extends Migration {
  async up(): Promise<void> {
    this.addSql(`create index "widget_name_index" on "widget" ("name")`);
  }
}
const migrations = [
  { name: "0001-create-widget", class: CreateWidget },
  { name: "0002-add-widget-index", class: AddWidgetIndex },
];

describe("openStore", () => {
  it("runs the migrations once: reopening the same database applies nothing twice", async () => {
    const db = await createTestDatabase("store_sqlite", "sqlite");
    try {
      const first = await openStore({ url: db.url, entities: [Widget], migrations });
      const em = first.em();
      em.create(Widget, { id: "w1", name: "one" });
      await em.flush();
      await first.close();
      const second = await openStore({ url: db.url, entities: [Widget], migrations });
      expect((await second.em().findOneOrFail(Widget, { id: "w1" })).name).toBe("one");
      await second.close();
    } finally {
      await db.drop();
    }
  });

  it("keeps a SQLite file in WAL mode with synchronous=NORMAL, also on the connection a transaction uses", async () => {
    const db = await createTestDatabase("store_sqlite_pragmas", "sqlite");
    try {
      const store = await openStore({ url: db.url, entities: [Widget], migrations });
      const pragma = async (execute: (sql: string) => Promise<unknown>, name: string) =>
        Object.values(((await execute(`pragma ${name}`)) as Array<Record<string, unknown>>)[0]!)[0];
      const connection = store.em().getConnection();
      expect(await pragma((sql) => connection.execute(sql), "journal_mode")).toBe("wal");
      expect(await pragma((sql) => connection.execute(sql), "synchronous")).toBe(1); // NORMAL
      await store.em().transactional(async (em) => {
        em.create(Widget, { id: "w1", name: "one" });
        expect(await pragma((sql) => em.getConnection().execute(sql, [], "all", em.getTransactionContext()), "synchronous")).toBe(1);
      });
      await store.close();
    } finally {
      await db.drop();
    }
  });

  it.skipIf(!TEST_DATABASE_URL)("lets PostgreSQL replicas that start together migrate in turn, each migration once", async () => {
    const db = await createTestDatabase("store_race");
    try {
      const stores = await Promise.all(Array.from({ length: 4 }, () => openStore({ url: db.url, entities: [Widget], migrations })));
      const applied = (await stores[0]!.em().getConnection().execute(`select name from mikro_orm_migrations order by id`)) as Array<{ name: string }>;
      expect(applied.map((row) => row.name)).toEqual(["0001-create-widget", "0002-add-widget-index"]);
      await Promise.all(stores.map((store) => store.close()));
    } finally {
      await db.drop();
    }
  });

  it.skipIf(!TEST_DATABASE_URL)("closes while queries are still opening PostgreSQL connections: each runs or is refused, and close finishes", async () => {
    const db = await createTestDatabase("store_close");
    try {
      for (let round = 0; round < 5; round++) {
        const store = await openStore({ url: db.url, entities: [Widget], migrations });
        // More queries than the pool holds idle connections, so some are still connecting when close starts
        // (a readiness check or a late handler at shutdown).
        const queries = Array.from({ length: 8 }, () =>
          store
            .em()
            .getConnection()
            .execute("select 1")
            .then(
              () => "ran",
              () => "refused",
            ),
        );
        const deadline = AbortSignal.timeout(5_000);
        const closed = await Promise.race([store.close().then(() => "closed"), once(deadline, "abort").then(() => "still closing")]);
        expect(closed).toBe("closed");
        for (const outcome of await Promise.all(queries)) expect(["ran", "refused"]).toContain(outcome);
      }
    } finally {
      await db.drop();
    }
  });

  it.skipIf(!TEST_DATABASE_URL)("fails a query that waits longer than connectTimeoutMs for a PostgreSQL connection, instead of waiting without limit", async () => {
    const db = await createTestDatabase("store_connect_timeout");
    const store = await openStore({ url: db.url, entities: [Widget], migrations, poolMax: 1, connectTimeoutMs: 200 });
    try {
      // The pool's one connection is busy for a second; the next query cannot get one in 200 ms.
      const busy = store.em().getConnection().execute("select pg_sleep(1)");
      await untilRunning(db.url, "select pg_sleep(1)");
      const started = performance.now();
      await expect(store.em().getConnection().execute("select 1")).rejects.toThrow(/timeout/i);
      expect(performance.now() - started).toBeLessThan(900);
      await busy;
      // The pool is usable again once the connection is free.
      await expect(store.em().getConnection().execute("select 1 as one")).resolves.toEqual([{ one: 1 }]);
    } finally {
      await store.close();
      await db.drop();
    }
  });
});
