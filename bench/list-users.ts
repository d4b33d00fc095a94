/**
 * list-users at scale: seeds 100,000 users (BENCH_USERS) into a fresh PostgreSQL database with identity's
 * real migrations (0005-user-admin's indexes included), then times identity's list-users query (the store
 * call the ListUsers RPC makes: one page of 100 plus the total) for every search, filter and sort
 * combination, and prints p50 and p95 per combination.
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/list-users.ts
 *
 * (TEST_DATABASE_URL is used when BENCH_DATABASE_URL is not set.) The database is dropped at the end.
 * BENCH_COUNT_LIMIT: the count limit passed as the admin service does (default 10,000, its default;
 * 0 counts exactly). BENCH_ONLY: a regular expression on "search | filter | sort" to time only those.
 * BENCH_KEEP_DATABASE=name: seed into that database once and keep it (later runs reuse it as it is).
 */
import pg from "pg";
import { LOWER_ALPHANUMERIC, randomString } from "../services/runtime/src/random.js";
import { userQueryOf, type ListUsersInput } from "../services/identity/src/domain/admin-users.js";
import { openIdentityStore } from "../services/identity/src/store/mikro-identity-store.js";

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const USERS = Number(process.env.BENCH_USERS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const COUNT_LIMIT = Number(process.env.BENCH_COUNT_LIMIT ?? 10_000);
const ONLY = new RegExp(process.env.BENCH_ONLY ?? "");
const KEEP = process.env.BENCH_KEEP_DATABASE;
if (!ADMIN_URL) throw new Error("set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL URL");

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function main() {
  const name = KEEP ?? `bench_list_users_${randomString(8, LOWER_ALPHANUMERIC)}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  const kept = KEEP !== undefined && (await admin.query(`select 1 from pg_database where datname = $1`, [KEEP])).rowCount === 1;
  if (!kept) await admin.query(`create database "${name}"`);
  const url = new URL(ADMIN_URL!);
  url.pathname = `/${name}`;
  try {
    const store = await openIdentityStore(url.toString());
    const db = new pg.Client({ connectionString: url.toString() });
    await db.connect();
    const started = performance.now();
    if (!kept) {
      // One INSERT ... SELECT: names from a small vocabulary (so searches match realistic fractions), every
      // 10th user an editor, every 50th an admin, every 100th banned, creation spread over a year.
      await db.query(`
        insert into "user" ("id", "name", "email", "email_verified", "created_at", "updated_at", "role", "banned", "extra_fields")
        select 'u' || lpad(i::text, 8, '0'),
               (array['Ada','Grace','Alan','Edsger','Barbara','Donald','Margaret','Ken','Radia','Frances'])[1 + i % 10] || ' ' ||
               (array['Lovelace','Hopper','Turing','Dijkstra','Liskov','Knuth','Hamilton','Thompson','Perlman','Allen'])[1 + (i / 10) % 10] || ' ' || i,
               'user' || i || '@' || (array['example.com','example.org','mail.test'])[1 + i % 3],
               i % 2 = 0,
               now() - (i || ' minutes')::interval * 5,
               now() - (i || ' minutes')::interval * 3,
               case when i % 50 = 0 then 'admin' when i % 10 = 0 then 'editor' else 'user' end,
               i % 100 = 0,
               '{}'
        from generate_series(1, ${USERS}) as i`);
      // What autovacuum does to a table this size within a minute of the inserts: statistics for the planner,
      // and the visibility map, without which every index-only read visits the heap (and the first reads
      // of each row write its hint bits), so the figures would depend on when autovacuum happened to run.
      await db.query(`vacuum analyze "user"`);
      console.log(`seeded ${USERS} users in ${Math.round(performance.now() - started)} ms (database ${name})`);
    }

    const searches: Array<[string, ListUsersInput]> = [
      ["no search", {}],
      ["email contains", { searchValue: "user4242", searchField: "email", searchOperator: "contains" }],
      ["email starts_with", { searchValue: "user4242", searchField: "email", searchOperator: "starts_with" }],
      ["email ends_with", { searchValue: "mail.test", searchField: "email", searchOperator: "ends_with" }],
      ["name contains", { searchValue: "hopper", searchField: "name", searchOperator: "contains" }],
      ["name starts_with", { searchValue: "grace", searchField: "name", searchOperator: "starts_with" }],
      ["name ends_with", { searchValue: " 4242", searchField: "name", searchOperator: "ends_with" }],
    ];
    const filters: Array<[string, ListUsersInput]> = [
      ["no filter", {}],
      ["role eq admin", { filterField: "role", filterOperator: "eq", filterValue: "admin" }],
      ["banned eq true", { filterField: "banned", filterValue: "true" }],
      ["createdAt gt (1 week)", { filterField: "createdAt", filterOperator: "gt", filterValue: String(Date.now() - 7 * 86_400_000) }],
      ["emailVerified ne true", { filterField: "emailVerified", filterOperator: "ne", filterValue: "true" }],
    ];
    const sorts: Array<[string, ListUsersInput]> = [
      ["default order", {}],
      ["name asc", { sortBy: "name", sortDirection: "asc" }],
      ["createdAt desc", { sortBy: "createdAt", sortDirection: "desc" }],
      ["email asc", { sortBy: "email", sortDirection: "asc" }],
    ];
    const rows: string[] = [];
    let worst = 0;
    for (const [s, search] of searches) {
      for (const [f, filter] of filters) {
        for (const [o, sort] of sorts) {
          if (!ONLY.test(`${s} | ${f} | ${o}`)) continue;
          const query = userQueryOf({ ...search, ...filter, ...sort, limit: 100, offset: 0, countLimit: COUNT_LIMIT });
          const times: number[] = [];
          let total = "";
          for (let run = 0; run < RUNS + 3; run += 1) {
            const t = performance.now();
            const counted = await store.listUsers(query);
            total = `${counted.total}${counted.totalIsLowerBound ? "+" : ""}`;
            if (run >= 3) times.push(performance.now() - t);
          }
          times.sort((a, b) => a - b);
          const p95 = quantile(times, 0.95);
          worst = Math.max(worst, p95);
          rows.push(`| ${s} | ${f} | ${o} | ${total} | ${quantile(times, 0.5).toFixed(1)} | ${p95.toFixed(1)} |`);
        }
      }
    }
    console.log(`\n| search | filter | sort | total | p50 ms | p95 ms |\n|---|---|---|---|---|---|\n${rows.join("\n")}`);
    const under = rows.filter((row) => Number(row.split("|")[6]) < 50).length;
    console.log(`\nworst p95: ${worst.toFixed(1)} ms over ${rows.length} combinations, ${RUNS} runs each; ${under} under 50 ms at p95; count limit ${COUNT_LIMIT || "none"}`);
    await db.end();
    await store.close();
  } finally {
    if (!KEEP) await admin.query(`drop database if exists "${name}" with (force)`);
    await admin.end();
  }
}

await main();
