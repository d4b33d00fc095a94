/**
 * The better-auth import at scale: generates a better-auth PostgreSQL database of 1,000,000 users
 * (BENCH_USERS), each with a credential account and a live session, straight in SQL, imports it into fresh
 * identity and session PostgreSQL databases with the real command (deploy/import-better-auth/main.ts, its
 * own node process), and reports the import's wall time and its peak RSS (VmHWM, read from /proc while it
 * runs). Targets: under 10 minutes and 300 MiB for a million users (docs/adr/0079-importing-a-better-auth-database.md).
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/import-better-auth.ts
 *
 * (TEST_DATABASE_URL is used when BENCH_DATABASE_URL is not set.) The three databases are dropped at the
 * end. BENCH_BATCH_SIZE: the command's --batch-size (default its own). BENCH_IMPORT_ENTRY: a built file to
 * run on plain node instead (dist/import-better-auth.js after `npm run build`). BENCH_CPU_PROF=<dir>: the
 * command's CPU profile (summarise it with bench/profile-summary.ts).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { NODE_FLAGS, ROOT } from "../deploy/processes.js";
import { readCpuMs } from "./processes.js";
import { hashPassword } from "../services/identity/src/password.js";
import { LOWER_ALPHANUMERIC, randomString } from "../services/runtime/src/random.js";

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const USERS = Number(process.env.BENCH_USERS ?? 1_000_000);
const BATCH = process.env.BENCH_BATCH_SIZE;
const BUILT = process.env.BENCH_IMPORT_ENTRY;
if (!ADMIN_URL) throw new Error("set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL URL");

const SOURCE_SCHEMA = `
create table "user" ("id" text primary key, "name" text not null, "email" text not null unique, "emailVerified" boolean not null,
  "image" text, "createdAt" timestamp not null, "updatedAt" timestamp not null, "username" text unique, "displayUsername" text,
  "role" text, "banned" boolean, "banReason" text, "banExpires" timestamp, "twoFactorEnabled" boolean);
create table "account" ("id" text primary key, "accountId" text not null, "providerId" text not null, "userId" text not null references "user" ("id"),
  "accessToken" text, "refreshToken" text, "idToken" text, "accessTokenExpiresAt" timestamp, "refreshTokenExpiresAt" timestamp,
  "scope" text, "password" text, "createdAt" timestamp not null, "updatedAt" timestamp not null);
create table "session" ("id" text primary key, "expiresAt" timestamp not null, "token" text not null unique, "createdAt" timestamp not null,
  "updatedAt" timestamp not null, "ipAddress" text, "userAgent" text, "userId" text not null references "user" ("id"), "impersonatedBy" text);
create table "verification" ("id" text primary key, "identifier" text not null, "value" text not null, "expiresAt" timestamp not null,
  "createdAt" timestamp, "updatedAt" timestamp);`;

async function generate(url: string): Promise<void> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    await db.query(SOURCE_SCHEMA);
    const hash = await hashPassword("the same password for everyone");
    const id = (prefix: string) => `'${prefix}' || lpad(i::text, 8, '0')`;
    await db.query(
      `insert into "user" select ${id("u")}, 'User ' || i, 'user' || i || '@example.com', true, null, now() - interval '30 days', now() - interval '1 day',
        'user_' || i, 'User_' || i, 'user', false, null, null, false from generate_series(1, $1) as i`,
      [USERS],
    );
    await db.query(
      `insert into "account" select ${id("a")}, ${id("u")}, 'credential', ${id("u")}, null, null, null, null, null, null, $2,
        now() - interval '30 days', now() - interval '1 day' from generate_series(1, $1) as i`,
      [USERS, hash],
    );
    await db.query(
      `insert into "session" select ${id("s")}, now() + interval '6 days', md5(i::text || 'token'), now() - interval '1 day', now() - interval '1 day',
        '203.0.113.7', 'Bench/1.0', ${id("u")}, null from generate_series(1, $1) as i`,
      [USERS],
    );
    await db.query("analyze");
  } finally {
    await db.end();
  }
}

interface ImportRun {
  seconds: number;
  peakMiB: number;
  /** CPU seconds of the command and of the PostgreSQL backends serving the three databases: on a shared machine, steadier than the wall time. */
  commandCpu: number;
  postgresCpu: number;
  output: string;
}

/**
 * Runs the command; resolves with its wall time, the highest VmHWM seen and the CPU time used. The
 * backends' CPU is read from /proc (PostgreSQL on this machine; 0 otherwise), their pids from
 * pg_stat_activity while the command runs.
 */
function runImport(env: Record<string, string>, from: string, admin: pg.Client, databases: string[]): Promise<ImportRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const entry = BUILT ? [BUILT] : ["--import", "tsx", join(ROOT, "deploy/import-better-auth/main.ts")];
    // BENCH_CPU_PROF=<dir>: the command's V8 CPU profile, written when it exits (bench/profile-summary.ts reads it).
    const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`, `--cpu-prof-name=import-better-auth-\${pid}.cpuprofile`] : [];
    // The flags the command runs with in the image and the chart.
    const args = [...NODE_FLAGS["import-better-auth"], ...profile, ...entry, "--from", from, ...(BATCH ? ["--batch-size", BATCH] : [])];
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    let peakKiB = 0;
    let commandCpuMs = 0;
    const backendCpuMs = new Map<number, number>();
    const sample = () => {
      try {
        const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
        if (hwm) peakKiB = Math.max(peakKiB, Number(hwm[1]));
      } catch {
        // The process has just ended.
      }
      commandCpuMs = readCpuMs(child.pid!) ?? commandCpuMs;
      for (const pid of backendCpuMs.keys()) backendCpuMs.set(pid, readCpuMs(pid) ?? backendCpuMs.get(pid)!);
    };
    const backends = () =>
      admin
        .query<{ pid: number }>("select pid from pg_stat_activity where datname = any($1)", [databases])
        .then(({ rows }) => {
          for (const { pid } of rows) if (!backendCpuMs.has(pid)) backendCpuMs.set(pid, 0);
        })
        .catch(() => undefined);
    const timer = setInterval(() => {
      sample();
      void backends();
    }, 200);
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk;
      sample();
    });
    child.stderr.on("data", (chunk: Buffer) => process.stderr.write(chunk));
    child.on("error", reject);
    child.on("exit", (code) => {
      clearInterval(timer);
      if (code !== 0) reject(new Error(`import exited with ${code}\n${output}`));
      else {
        const postgresCpuMs = [...backendCpuMs.values()].reduce((a, b) => a + b, 0);
        resolve({ seconds: (performance.now() - started) / 1000, peakMiB: peakKiB / 1024, commandCpu: commandCpuMs / 1000, postgresCpu: postgresCpuMs / 1000, output });
      }
    });
  });
}

async function main() {
  const suffix = randomString(8, LOWER_ALPHANUMERIC);
  const names = { source: `bench_ba_source_${suffix}`, identity: `bench_ba_identity_${suffix}`, session: `bench_ba_session_${suffix}` };
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  const urlOf = (name: string) => {
    const url = new URL(ADMIN_URL!);
    url.pathname = `/${name}`;
    return url.toString();
  };
  try {
    for (const name of Object.values(names)) await admin.query(`create database "${name}"`);
    let started = performance.now();
    await generate(urlOf(names.source));
    process.stdout.write(`generated ${USERS} users, accounts and sessions in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    started = performance.now();
    const result = await runImport(
      {
        IDENTITY_DATABASE_URL: urlOf(names.identity),
        SESSION_DATABASE_URL: urlOf(names.session),
        AUTH_SECRET: "bench-secret-0123456789-0123456789-0123456789",
        BETTER_AUTH_SECRET: "bench-better-auth-secret-0123456789",
        LOG_LEVEL: "error",
      },
      urlOf(names.source),
      admin,
      Object.values(names),
    );
    process.stdout.write(result.output);
    const load = readFileSync("/proc/loadavg", "utf8").trim();
    process.stdout.write(
      `import of ${USERS} users: ${result.seconds.toFixed(1)} s, peak RSS ${result.peakMiB.toFixed(0)} MiB, CPU ${result.commandCpu.toFixed(1)} s in the command and ${result.postgresCpu.toFixed(1)} s in PostgreSQL (loadavg ${load})\n`,
    );
  } finally {
    for (const name of Object.values(names)) await admin.query(`drop database if exists "${name}" with (force)`);
    await admin.end();
  }
}

await main();
