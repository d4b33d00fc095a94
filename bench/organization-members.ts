/**
 * The first page of members of a 10,000-member organization, on PostgreSQL, through the organization
 * store (the query ListMembers and get-full-organization run: one page of 100 by age, and the count):
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/organization-members.ts
 *
 * A fresh database is created (and dropped at the end) with the service's real migrations; beside the big
 * organization sit 50 others of 200 members each, so the index has to pick one organization out. Prints the
 * median, p95 and max of BENCH_ROUNDS (200) reads after a warm-up. Figures, not a test.
 */
import { performance } from "node:perf_hooks";
import pg from "pg";
import { newId } from "@auth-platform/runtime/random";
import { openOrganizationStore } from "../services/organization/src/store/mikro-organization-store.js";

const BASE = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const PAGE = 100;

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: BASE });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Inserts members in batches of 1,000 rows, one second apart in age. */
async function insertMembers(client: pg.Client, organizationId: string, count: number): Promise<void> {
  const t0 = Date.UTC(2030, 0, 1);
  for (let start = 0; start < count; start += 1_000) {
    const rows = Array.from({ length: Math.min(1_000, count - start) }, (_, i) => [
      newId(),
      organizationId,
      newId(),
      i === 0 && start === 0 ? "owner" : "member",
      new Date(t0 + (start + i) * 1000),
    ]);
    const values = rows.map((_, i) => `($${i * 5 + 1}, $${i * 5 + 2}, $${i * 5 + 3}, $${i * 5 + 4}, $${i * 5 + 5})`).join(", ");
    await client.query(`insert into "member" ("id", "organization_id", "user_id", "role", "created_at") values ${values}`, rows.flat());
  }
}

async function main(): Promise<void> {
  const name = `auth_bench_org_${newId()
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "")
    .slice(0, 12)}`;
  await admin((c) => c.query(`create database "${name}"`));
  const url = new URL(BASE);
  url.pathname = `/${name}`;
  try {
    const store = await openOrganizationStore(url.toString());
    const big = newId();
    const db = new pg.Client({ connectionString: url.toString() });
    await db.connect();
    const seeded = performance.now();
    await db.query(`insert into "organization" ("id", "name", "slug", "created_at") values ($1, 'Big', 'big', now())`, [big]);
    await insertMembers(db, big, MEMBERS);
    for (let i = 0; i < 50; i++) {
      const other = newId();
      await db.query(`insert into "organization" ("id", "name", "slug", "created_at") values ($1, $2, $2, now())`, [other, `other-${i}`]);
      await insertMembers(db, other, 200);
    }
    await db.query("analyze");
    const plan = await db.query(`explain select * from "member" where "organization_id" = $1 order by "created_at" asc, "id" asc limit ${PAGE}`, [big]);
    await db.end();
    console.log(`seeded ${MEMBERS} members (+ 50 x 200 elsewhere) in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);
    console.log(`plan: ${plan.rows.map((r: Record<string, string>) => r["QUERY PLAN"]).join(" | ")}`);

    for (let i = 0; i < 20; i++) await store.listMembers(big, { limit: PAGE, offset: 0 });
    const times: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const started = performance.now();
      const page = await store.listMembers(big, { limit: PAGE, offset: 0 });
      times.push(performance.now() - started);
      if (page.members.length !== PAGE || page.total !== MEMBERS) throw new Error(`unexpected page: ${page.members.length} of ${page.total}`);
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(2);
    console.log(`first page of ${PAGE} of ${MEMBERS} members (page + total), ${ROUNDS} rounds: median ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${times.at(-1)!.toFixed(2)} ms`);
    await store.close();
  } finally {
    await admin((c) => c.query(`drop database if exists "${name}" with (force)`));
  }
}

await main();
