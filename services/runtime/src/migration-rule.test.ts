import { Migration } from "@mikro-orm/migrations";
import { describe, expect, it } from "vitest";
import { isContract, type MigrationEntry, POSTGRESQL_CONFIG, ruleBreaches, statementsOf } from "./migration-rule.js";

function entry(name: string, statements: string[], transactional = true): MigrationEntry {
  return {
    name,
    class: class extends Migration {
      isTransactional(): boolean {
        return transactional;
      }
      async up(): Promise<void> {
        for (const sql of statements) this.addSql(sql);
      }
    },
  };
}
const breaches = async (e: MigrationEntry) => ruleBreaches(e, await statementsOf(e, POSTGRESQL_CONFIG));

describe("the compatibility rule on one migration", () => {
  it("accepts what only expands: new tables and their indexes, nullable or defaulted columns", async () => {
    const expand = entry("0012-widget", [
      `create table "widget" ("id" varchar(64) not null primary key, "owner" varchar(64) not null)`,
      `create index "widget_owner_index" on "widget" ("owner")`,
      `alter table "session" add column "device" varchar(64) null`,
      `alter table "session" add column "tries" integer not null default 0`,
      `insert into "widget" ("id", "owner") values ('w', 'o')`,
    ]);
    expect(await breaches(expand)).toEqual([]);
  });

  it("refuses what breaks the release still serving, naming each statement", async () => {
    const unsafe = entry("0013-unsafe", [
      `alter table "session" drop column "token"`,
      `drop table "session_user"`,
      `alter table "session" rename column "user_id" to "owner_id"`,
      `alter table "session" add column "device" varchar(64) not null`,
      `alter table "session" alter column "device" set not null`,
      `create index "session_device_index" on "session" ("device")`,
      `update "session" set "device" = 'unknown'`,
    ]);
    const found = await breaches(unsafe);
    expect(found.map((b) => b.split(":")[0])).toEqual([
      "drops in a migration not named contract (release N may still read it)",
      "drops in a migration not named contract (release N may still read it)",
      "renames (release N reads the old name)",
      "adds a NOT NULL column without a default (release N's inserts fail)",
      "changes a column in place (locks and rewrites, release N writes the old shape)",
      "indexes an existing table without CONCURRENTLY (blocks its writes while it builds)",
      "rewrites rows of a table in use (a backfill runs in the background, not in a migration)",
    ]);
    expect(found[0]).toContain(`alter table "session" drop column "token"`);
  });

  it("lets a contract migration drop, never rename", async () => {
    expect(isContract("0014-contract-drop-session-token")).toBe(true);
    expect(isContract("0014-drop-session-token")).toBe(false);
    expect(await breaches(entry("0014-contract-drop-session-token", [`alter table "session" drop column "token"`]))).toEqual([]);
    expect(await breaches(entry("0015-contract-rename", [`alter table "session" rename to "sessions"`]))).toHaveLength(1);
  });

  it("builds an index on a table in use only CONCURRENTLY, outside a transaction", async () => {
    const index = `create index concurrently if not exists "session_device_index" on "session" ("device")`;
    expect(await breaches(entry("0016-index", [index], false))).toEqual([]);
    expect(await breaches(entry("0016-index", [index], true))).toEqual([expect.stringMatching(/^CREATE INDEX CONCURRENTLY cannot run in a transaction/)]);
  });

  it("refuses a migration that runs statements itself: they cannot be read before they run", async () => {
    const code: MigrationEntry = {
      name: "0017-code",
      class: class extends Migration {
        async up(): Promise<void> {
          await this.execute(`update "session" set "device" = null`);
        }
      },
    };
    expect(await statementsOf(code, POSTGRESQL_CONFIG)).toBeNull();
    expect(await breaches(code)).toEqual([expect.stringMatching(/^runs code instead of plain SQL/)]);
  });
});
