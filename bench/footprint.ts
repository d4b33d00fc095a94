/**
 * Start-up time and memory of every process, run from source (node + tsx loader over main.ts) and from the
 * build (plain node over dist/*.js, written first by deploy/build.ts):
 *
 *   tsx bench/footprint.ts [source|build|both]      (default both)
 *
 * Per process: milliseconds from spawn to "listening" (each started alone, so they do not share the CPU),
 * idle RSS a few seconds later (and how much of it is anonymous memory, the rest being mapped files: mostly
 * node's own binary), then the peak RSS of each load in turn (sign-ins at 16, 50 and 200 connections, then
 * get-session at 50; Linux's peak is reset between them through /proc/<pid>/clear_refs) and the RSS after
 * them all. Memory cache, fresh SQLite files. Figures are printed, never asserted.
 *
 * BENCH_METRICS=1 gives every process a METRICS_PORT of its own, as the chart does (metrics.enabled): the
 * process then loads prom-client and its collectors, which it skips without one. BENCH_DATABASE_URL
 * (postgres://...) puts every service on a fresh PostgreSQL database of that server, as the chart does,
 * instead of SQLite (whose native libsql addon alone is about 5 MiB of resident memory).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { buildPlatform } from "../deploy/build.js";
import { ensureDevCertificates } from "../deploy/dev-certs.js";
import { BUILT_ENTRY, ENTRY_POINTS, type ProcessName } from "../deploy/processes.js";
import { freePorts } from "../testing/ports.js";
import { runLoad } from "./load.js";
import { freshDatabases } from "./postgres.js";
import { type Child, killAllNow, startChild, stopAll, untilIdle } from "./processes.js";

type Mode = "source" | "build";
const ORDER: ProcessName[] = ["notification", "identity", "session", "oauth", "organization", "admin", "gateway"];
const IDLE_WAIT_MS = Number(process.env.BENCH_IDLE_WAIT_MS ?? 3_000);
const LOAD_SECONDS = Number(process.env.BENCH_DURATION ?? 5);
const PASSWORD = "bench-password-0123";
const MIB = 1024 * 1024;
const POSTGRES = process.env.BENCH_DATABASE_URL;
const DATABASE_SERVICES = ["identity", "session", "notification", "oauth", "organization", "admin"];

/** BENCH_DATABASE_URL: a fresh database per service on that server (dropped by the returned function). */
async function postgresDatabases(env: Record<string, string>): Promise<() => Promise<void>> {
  if (!POSTGRES) return async () => undefined;
  const databases = await freshDatabases(POSTGRES, "footprint", DATABASE_SERVICES);
  Object.assign(env, databases.env);
  return databases.drop;
}

/** The loads, in the order they run: a process's peak RSS is read and reset after each. */
const LOADS = [
  { name: "sign-in 16", connections: 16 },
  { name: "sign-in 50", connections: 50 },
  { name: "sign-in 200", connections: 200 },
  { name: "get-session 50", connections: 50 },
] as const;

interface Row {
  mode: Mode;
  process: ProcessName;
  startMs: number;
  idleRss: number;
  idleAnon: number;
  /** Peak RSS during each of LOADS. */
  peaks: number[];
  loadedRss: number;
}

/** Anonymous resident memory (the heap, malloc, stacks) in bytes, from /proc: RSS less mapped files. */
function anonymousRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/^RssAnon:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? NaN) * 1024;
}

/** Resets Linux's peak RSS (VmHWM) of `pid` to its current RSS, so the next peak is the next load's. */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
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
    const idleAnon = new Map(ORDER.map((name) => [name, anonymousRss(children.get(name)!.pid)]));

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
    const signIn = () => JSON.stringify({ email: emails[next++ % emails.length], password: PASSWORD });
    const peaks = new Map<ProcessName, number[]>(ORDER.map((name) => [name, []]));
    for (const load of LOADS) {
      for (const child of children.values()) resetPeak(child.pid);
      // Beyond identity's hashing capacity sign-in answers 503 at once: the processes still hold what the load brings.
      await runLoad(
        load.name.startsWith("sign-in")
          ? {
              url: `${base}/sign-in/email`,
              method: "POST",
              connections: load.connections,
              duration: LOAD_SECONDS,
              headers: { "content-type": "application/json" },
              nextBody: signIn,
            }
          : { url: `${base}/get-session`, connections: load.connections, duration: LOAD_SECONDS, headers: { cookie } },
      );
      for (const name of ORDER) peaks.get(name)!.push(children.get(name)!.memory()?.peak ?? NaN);
      // Sign-ins still queued behind the hashing finish before the next load's peak starts.
      await untilIdle(ORDER.map((name) => children.get(name)!.pid));
    }

    return ORDER.map((name) => {
      const memory = children.get(name)!.memory();
      return {
        mode,
        process: name,
        startMs: startMs.get(name)!,
        idleRss: idle.get(name)!,
        idleAnon: idleAnon.get(name)!,
        peaks: peaks.get(name)!,
        loadedRss: memory?.current ?? NaN,
      };
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
  console.log(`\nMiB; peak RSS during each load (${LOAD_SECONDS} s each, in this order), then RSS after them all`);
  console.log(`\n| process | run from | start to listening | idle RSS (anonymous) | ${LOADS.map((load) => `peak ${load.name}`).join(" | ")} | RSS after load |`);
  console.log(`|---|---|---:|---:|${LOADS.map(() => "---:|").join("")}---:|`);
  for (const row of rows) {
    const peaks = row.peaks.map(mib).join(" | ");
    console.log(`| ${row.process} | ${row.mode} | ${row.startMs.toFixed(0)} ms | ${mib(row.idleRss)} (${mib(row.idleAnon)}) | ${peaks} | ${mib(row.loadedRss)} |`);
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
