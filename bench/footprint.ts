/**
 * Start-up time and memory of every process, run from source (node + tsx loader over main.ts) and from the
 * build (plain node over dist/*.js, written first by deploy/build.ts):
 *
 *   tsx bench/footprint.ts [source|build|both]      (default both)
 *
 * Per process: milliseconds from spawn to "listening" (each started alone, so they do not share the CPU),
 * idle RSS a few seconds later, then RSS (current and peak) after a short load: sign-ups, sign-ins and
 * get-session. Memory cache, fresh SQLite files. Figures are printed, never asserted.
 *
 * BENCH_METRICS=1 gives every process a METRICS_PORT of its own, as the chart does (metrics.enabled): the
 * process then loads prom-client and its collectors, which it skips without one. BENCH_DATABASE_URL
 * (postgres://...) puts every service on a fresh PostgreSQL database of that server, as the chart does,
 * instead of SQLite (whose native libsql addon alone is about 5 MiB of resident memory).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { buildPlatform } from "../deploy/build.js";
import { ensureDevCertificates } from "../deploy/dev-certs.js";
import { BUILT_ENTRY, ENTRY_POINTS, type ProcessName } from "../deploy/processes.js";
import { freePorts } from "../testing/ports.js";
import { runLoad } from "./load.js";
import { type Child, killAllNow, startChild, stopAll } from "./processes.js";

type Mode = "source" | "build";
const ORDER: ProcessName[] = ["notification", "identity", "session", "oauth", "organization", "admin", "gateway"];
const IDLE_WAIT_MS = Number(process.env.BENCH_IDLE_WAIT_MS ?? 3_000);
const LOAD_SECONDS = Number(process.env.BENCH_DURATION ?? 5);
const PASSWORD = "bench-password-0123";
const MIB = 1024 * 1024;
const POSTGRES = process.env.BENCH_DATABASE_URL;
const DATABASE_VARIABLES = ["IDENTITY", "SESSION", "NOTIFICATION", "OAUTH", "ORGANIZATION", "ADMIN"].map((name) => `${name}_DATABASE_URL`);

/** BENCH_DATABASE_URL: a fresh database per service on that server (dropped by the returned function). */
async function postgresDatabases(env: Record<string, string>): Promise<() => Promise<void>> {
  if (!POSTGRES) return async () => undefined;
  const names = DATABASE_VARIABLES.map((variable) => `footprint_${process.pid}_${variable.split("_")[0]!.toLowerCase()}`);
  const run = async (statements: string[]) => {
    const client = new pg.Client({ connectionString: POSTGRES });
    await client.connect();
    try {
      for (const statement of statements) await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await run(names.flatMap((name) => [`drop database if exists "${name}" with (force)`, `create database "${name}"`]));
  DATABASE_VARIABLES.forEach((variable, i) => {
    const url = new URL(POSTGRES);
    url.pathname = `/${names[i]}`;
    env[variable] = url.toString();
  });
  return () => run(names.map((name) => `drop database if exists "${name}" with (force)`));
}

interface Row {
  mode: Mode;
  process: ProcessName;
  startMs: number;
  idleRss: number;
  loadedRss: number;
  peakRss: number;
}

async function measure(mode: Mode): Promise<Row[]> {
  const dataDir = mkdtempSync(join(tmpdir(), "auth-footprint-"));
  // One call, so the metrics ports differ from the others.
  const [identity, session, notification, gateway, organization, admin, oauth, ...metricsPorts] = (await freePorts(process.env.BENCH_METRICS === "1" ? 7 + ORDER.length : 7)) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    ...number[],
  ];
  const env: Record<string, string> = {
    LOG_LEVEL: "info",
    AUTH_SECRET: "bench-secret-0123456789-0123456789-0123456789",
    AUTH_BASE_URL: `http://127.0.0.1:${gateway}/api/auth`,
    PORT: String(gateway),
    IDENTITY_PORT: String(identity),
    SESSION_PORT: String(session),
    NOTIFICATION_PORT: String(notification),
    OAUTH_PORT: String(oauth),
    OAUTH_SERVICE_URL: `127.0.0.1:${oauth}`,
    OAUTH_DATABASE_URL: `file:${join(dataDir, "oauth.db")}`,
    IDENTITY_SERVICE_URL: `127.0.0.1:${identity}`,
    SESSION_SERVICE_URL: `127.0.0.1:${session}`,
    NOTIFICATION_SERVICE_URL: `127.0.0.1:${notification}`,
    IDENTITY_DATABASE_URL: `file:${join(dataDir, "identity.db")}`,
    SESSION_DATABASE_URL: `file:${join(dataDir, "session.db")}`,
    NOTIFICATION_DATABASE_URL: `file:${join(dataDir, "notification.db")}`,
    ORGANIZATION_PORT: String(organization),
    ORGANIZATION_SERVICE_URL: `127.0.0.1:${organization}`,
    ORGANIZATION_DATABASE_URL: `file:${join(dataDir, "organization.db")}`,
    ADMIN_PORT: String(admin),
    ADMIN_SERVICE_URL: `127.0.0.1:${admin}`,
    ADMIN_DATABASE_URL: `file:${join(dataDir, "admin.db")}`,
    RATE_LIMIT_ENABLED: "false",
    // BENCH_NODE_OPTIONS: node/V8 flags for every process, to compare (e.g. --max-semi-space-size=2).
    ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}),
  };
  const dropDatabases = await postgresDatabases(env);
  const ports: Partial<Record<ProcessName, number>> = { identity, session, notification, oauth, organization, admin, gateway };
  // Mutual TLS between the processes, as in production.
  const tls = await ensureDevCertificates(join(dataDir, "tls"), ORDER);
  const children = new Map<ProcessName, Child>();
  const startMs = new Map<ProcessName, number>();
  try {
    for (const name of ORDER) {
      const entry = mode === "source" ? ENTRY_POINTS[name] : BUILT_ENTRY[name];
      const started = performance.now();
      const metricsPort = metricsPorts[ORDER.indexOf(name)];
      children.set(name, await startChild(name, entry, { ...env, GRPC_TLS_DIR: tls[name]!, ...(metricsPort ? { METRICS_PORT: String(metricsPort) } : {}) }, ports[name]!));
      startMs.set(name, performance.now() - started);
    }
    await new Promise((resolve) => setTimeout(resolve, IDLE_WAIT_MS));
    const idle = new Map(ORDER.map((name) => [name, children.get(name)!.memory()?.current ?? NaN]));

    const base = env.AUTH_BASE_URL!;
    const emails = Array.from({ length: 16 }, (_, i) => `footprint-${mode}-${i}@example.com`);
    let cookie = "";
    for (const email of emails) {
      const res = await fetch(`${base}/sign-up/email`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Bench", email, password: PASSWORD }),
      });
      if (res.status !== 200) throw new Error(`sign-up: HTTP ${res.status} ${await res.text()}`);
      cookie = res.headers
        .getSetCookie()
        .map((line) => line.split(";")[0])
        .join("; ");
    }
    let next = 0;
    await runLoad({
      url: `${base}/sign-in/email`,
      method: "POST",
      connections: 16,
      duration: LOAD_SECONDS,
      headers: { "content-type": "application/json" },
      nextBody: () => JSON.stringify({ email: emails[next++ % emails.length], password: PASSWORD }),
    });
    await runLoad({ url: `${base}/get-session`, connections: 50, duration: LOAD_SECONDS, headers: { cookie } });

    return ORDER.map((name) => {
      const memory = children.get(name)!.memory();
      return { mode, process: name, startMs: startMs.get(name)!, idleRss: idle.get(name)!, loadedRss: memory?.current ?? NaN, peakRss: memory?.peak ?? NaN };
    });
  } finally {
    await stopAll();
    await dropDatabases();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function print(rows: Row[]): void {
  const mib = (bytes: number) => (bytes / MIB).toFixed(1);
  console.log(
    `\n${POSTGRES ? "PostgreSQL" : "SQLite"}; METRICS_PORT ${process.env.BENCH_METRICS === "1" ? "set (prom-client loaded)" : "unset"}; load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}`,
  );
  console.log("\n| process | run from | start to listening | idle RSS | RSS after load | peak RSS |");
  console.log("|---|---|---:|---:|---:|---:|");
  for (const row of rows) {
    console.log(`| ${row.process} | ${row.mode} | ${row.startMs.toFixed(0)} ms | ${mib(row.idleRss)} MiB | ${mib(row.loadedRss)} MiB | ${mib(row.peakRss)} MiB |`);
  }
}

const which = (process.argv[2] ?? "both") as Mode | "both";
if (!["source", "build", "both"].includes(which)) throw new Error("usage: tsx bench/footprint.ts [source|build|both]");
process.on("exit", killAllNow);
const rows: Row[] = [];
if (which !== "build") rows.push(...(await measure("source")));
if (which !== "source") {
  await buildPlatform();
  rows.push(...(await measure("build")));
}
rows.sort((a, b) => ORDER.indexOf(a.process) - ORDER.indexOf(b.process));
print(rows);
