/**
 * `make bench-peer`: better-auth 1.7 (bench/peer/better-auth-server.ts) and this platform from the build
 * (bench/whole-platform.ts), on the same storage, under the same load, in one table of ratios:
 *
 *   tsx bench/peer.ts [sqlite|redis|both]      (default both; Redis needs redis-server on PATH)
 *
 * Storage pairs: better-auth on SQLite against ours on the embedded default (SQLite, no Redis); better-auth
 * with Redis as its secondaryStorage against ours with REDIS_URL, both on one redis-server of the run's
 * own (no other work on it, so its CPU counts to the side loading it). Both sides run side by side, each
 * idle while the other is measured; every measurement loads them one after the other, in alternating
 * order, with the same warm-up, connections and load generator (autocannon in this process). Figures are
 * printed and written to bench/results/ (bench/README.md), never asserted.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { BUILT_ENTRY } from "../deploy/processes.js";
import { freePorts } from "../testing/ports.js";
import { REDIS_SERVER_INSTALLED, startRedisServer, type TestRedisServer } from "../testing/redis-server.js";
import { envNumber, SIGN_IN_WARMUP } from "./env.js";
import { cookieHeader, eachLimited, expectOk, get, post, signUp } from "./http.js";
import { type Measurement, runLoad, runPacedLoadApart } from "./load.js";
import { type Child, killAllNow, REPO_ROOT, readCpuMs, startChild, stopAll, untilIdle } from "./processes.js";
import { meanScrypt, measureRawScrypt, type ScryptResult } from "./scrypt.js";
import { startWholePlatform } from "./whole-platform.js";

type Storage = "sqlite" | "redis";
type SideName = "better-auth" | "ours";

const DURATION = envNumber("BENCH_DURATION", 10);
const WARMUP = envNumber("BENCH_WARMUP", 2);
const CONNECTIONS = envNumber("BENCH_CONNECTIONS", 50);
const SIGN_IN_CONNECTIONS = (process.env.BENCH_SIGN_IN_CONNECTIONS || "16,50,200").split(",").map((c) => positiveInteger("BENCH_SIGN_IN_CONNECTIONS", c));
/** Sign-in connections while get-session is paced beside them, and raw scrypt's derivations in flight. */
const AUTH_CONNECTIONS = envNumber("BENCH_AUTH_CONNECTIONS", 16);
const USERS = envNumber("BENCH_USERS", 64);
const MIXED_SESSION_RATE = envNumber("BENCH_MIXED_SESSION_RATE", 200);
const MIXED_SESSION_CONNECTIONS = envNumber("BENCH_MIXED_SESSION_CONNECTIONS", 10);
const SCRYPT_DURATION = envNumber("BENCH_SCRYPT_DURATION", DURATION);
const IDLE_WAIT_MS = envNumber("BENCH_IDLE_WAIT_MS", 3_000);
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL || "warn";
const SETUP_CONNECTIONS = 4;
const PASSWORD = "bench-password-0123";
const SECRET = randomBytes(32).toString("base64url");
const RUN_ID = randomBytes(4).toString("hex");

function positiveInteger(name: string, raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must list positive integers, comma-separated (got ${raw})`);
  return value;
}

const log = (line: string) => process.stdout.write(`${line}\n`);
const load1 = () => loadavg()[0]!;

// ------------------------------------------------------------------------------------------------- sides

interface Side {
  name: SideName;
  baseURL: string;
  children: Child[];
  /** The Cookie header of a signed-up user, as each side set it. */
  cookie: string;
}

/** Temporary folders and the run's redis-server, removed at the end, on error and on Ctrl-C. */
const tempDirs = new Set<string>();
let redis: TestRedisServer | undefined;

async function cleanUp(): Promise<void> {
  await stopAll();
  await redis?.close();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
}

async function startBetterAuth(storage: Storage, dataDir: string): Promise<Omit<Side, "cookie">> {
  const [port] = (await freePorts(1)) as [number];
  const env: Record<string, string> = {
    PORT: String(port),
    // The same NODE_ENV as ours gets from the launcher.
    NODE_ENV: "development",
    BA_SECRET: SECRET,
    BA_DATABASE_FILE: join(dataDir, "better-auth.db"),
    ...(storage === "redis" ? { BA_REDIS_URL: redis!.url, BA_REDIS_PREFIX: `bench:${RUN_ID}:better-auth:` } : {}),
  };
  const child = await startChild("better-auth", "bench/peer/better-auth-server.ts", env, port);
  return { name: "better-auth", baseURL: `http://127.0.0.1:${port}/api/auth`, children: [child] };
}

async function startOurs(storage: Storage, dataDir: string): Promise<Omit<Side, "cookie">> {
  const env: Record<string, string> = {
    LOG_LEVEL,
    AUTH_SECRET: SECRET,
    ...(storage === "redis" ? { REDIS_URL: redis!.url, REDIS_KEY_PREFIX: `bench:${RUN_ID}:ours:` } : {}),
  };
  const platform = await startWholePlatform({ from: "build", dataDir, env });
  return { name: "ours", ...platform };
}

/** CPU used so far by every process of a side, and by the run's redis-server (which only the side under load uses). */
function cpuNow(side: Side): Record<string, number> {
  const used: Record<string, number> = {};
  for (const child of side.children) used[child.name] = child.cpuMs() ?? Number.NaN;
  const redisPid = redis?.pid();
  if (redisPid !== undefined) used["redis-server"] = readCpuMs(redisPid) ?? Number.NaN;
  return used;
}

/** Waits until a side (with redis-server) is idle, so what a load left queued does not run into the next measurement, of either side. */
async function settle(side: Side): Promise<void> {
  const pids = [...side.children.map((child) => child.pid), ...(redis?.pid() === undefined ? [] : [redis.pid()!])];
  if (!(await untilIdle(pids))) log(`  !! ${side.name} was still busy 60 s after the load`);
}

// ---------------------------------------------------------------------------------------------- measuring

interface SideResult<T> {
  result: T;
  /** CPU per response in ms, per process and summed over all of them (redis-server included). */
  cpuMsPerResponse: Record<string, number> & { total: number };
  /** The 1-minute load average when the measured load started and ended. */
  loadAverage: [number, number];
}

interface Comparison<T> {
  "better-auth": SideResult<T>;
  ours: SideResult<T>;
}

let turn = 0;

/** Runs `load` against both sides (warm-up first, then measured), in alternating order from one comparison to the next. */
async function compare<T extends { total: number }>(label: string, sides: Side[], load: (side: Side, seconds: number) => Promise<T>): Promise<Comparison<T>> {
  const ordered = turn++ % 2 ? [...sides].reverse() : sides;
  const results: Partial<Comparison<T>> = {};
  for (const side of ordered) {
    if (WARMUP > 0) {
      await load(side, WARMUP);
      await settle(side);
    }
    const before = cpuNow(side);
    const loadBefore = load1();
    const result = await load(side, DURATION);
    const loadAfter = load1();
    const after = cpuNow(side);
    await settle(side);
    const perProcess: Record<string, number> = {};
    for (const name of Object.keys(before)) perProcess[name] = result.total ? (after[name]! - before[name]!) / result.total : Number.NaN;
    const total = Object.values(perProcess).reduce((sum, ms) => sum + ms, 0);
    results[side.name] = { result, cpuMsPerResponse: { ...perProcess, total }, loadAverage: [loadBefore, loadAfter] };
    log(`  ${label.padEnd(34)} ${side.name.padEnd(11)} ${summary(result)}  CPU ${total.toFixed(3)} ms/response  load ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)}`);
  }
  return results as Comparison<T>;
}

function summary(result: unknown): string {
  const m = ((result as { session?: Measurement }).session ?? result) as Measurement;
  return `${m.rps.toFixed(1)} 2xx/s  p50 ${m.p50} p99 ${m.p99} ms  ${m.non2xx} non-2xx ${JSON.stringify(m.statusCodes)}  ${m.errors} errors`;
}

/** Sign-ins as fast as `connections` clients send them, rotating through the users; a 503 is answered at once by the next request. */
function signInLoad(side: Side, emails: string[], connections: number, duration: number): Promise<Measurement> {
  let next = 0;
  const nextBody = () => JSON.stringify({ email: emails[next++ % emails.length], password: PASSWORD });
  return runLoad({ url: `${side.baseURL}/sign-in/email`, method: "POST", connections, duration, headers: { "content-type": "application/json" }, nextBody });
}

interface Mixed {
  session: Measurement;
  signIn: Measurement;
  total: number;
}

interface PairResult {
  storage: Storage;
  ok: Comparison<Measurement>;
  getSession: Comparison<Measurement>;
  signIn: Array<{ connections: number; comparison: Comparison<Measurement> }>;
  mixed: Comparison<Mixed>;
  scrypt: ScryptResult;
  /** RSS in bytes per process: after start-up settled, and the peak (VmHWM) at the end. */
  memory: Record<SideName, Record<string, { idle: number; peak: number }>>;
}

async function measurePair(storage: Storage): Promise<PairResult> {
  const dataDir = mkdtempSync(join(tmpdir(), "auth-bench-peer-"));
  tempDirs.add(dataDir);
  if (storage === "redis") redis = await startRedisServer();
  const started = [await startBetterAuth(storage, dataDir), await startOurs(storage, dataDir)];
  log(
    `${storage}: ${started.map((side) => `${side.name} (${side.children.map((c) => `${c.name} pid ${c.pid}`).join(", ")})`).join("; ")}${redis ? `; redis-server pid ${redis.pid()}` : ""}`,
  );
  await new Promise((resolve) => setTimeout(resolve, IDLE_WAIT_MS));
  const idle = started.map((side) => Object.fromEntries(side.children.map((child) => [child.name, child.memory()?.current ?? Number.NaN])));

  // The same users with the same password on both sides, and one signed-up user's cookies on each.
  const emails = Array.from({ length: Math.max(1, USERS) }, (_, i) => `bench-${RUN_ID}-${i}@example.com`);
  const sides: Side[] = [];
  for (const side of started) {
    // fetch sends Sec-Fetch-Mode, after which better-auth's CSRF check wants an Origin; ours checks one only
    // beside cookies. The measured loads send neither.
    const origin = { origin: new URL(side.baseURL).origin };
    await eachLimited(emails, SETUP_CONNECTIONS, async (email) => void (await signUp(side.baseURL, email, PASSWORD, origin)));
    const cookie = cookieHeader((await signUp(side.baseURL, `bench-${RUN_ID}-session@example.com`, PASSWORD, origin)).setCookie);
    expectSession(side.name, await get(`${side.baseURL}/get-session`, { cookie }));
    expectOk(`${side.name} sign-in`, await post(`${side.baseURL}/sign-in/email`, { email: emails[0], password: PASSWORD }, origin));
    expectOk(`${side.name} ok`, await get(`${side.baseURL}/ok`));
    sides.push({ ...side, cookie });
  }

  const ok = await compare("ok", sides, (side, duration) => runLoad({ url: `${side.baseURL}/ok`, connections: CONNECTIONS, duration }));
  const getSession = await compare("get-session", sides, (side, duration) =>
    runLoad({ url: `${side.baseURL}/get-session`, connections: CONNECTIONS, duration, headers: { cookie: side.cookie } }),
  );
  for (const side of sides) expectSession(`${side.name} after the load`, await get(`${side.baseURL}/get-session`, { cookie: side.cookie }));

  if (SIGN_IN_WARMUP > 0) {
    for (const side of sides) {
      const warm = await signInLoad(side, emails, AUTH_CONNECTIONS, SIGN_IN_WARMUP);
      log(`  sign-in warm-up ${SIGN_IN_WARMUP} s     ${side.name.padEnd(11)} ${summary(warm)}`);
      await settle(side);
    }
  }
  const scryptBefore = await rawScrypt();
  const signIn: PairResult["signIn"] = [];
  for (const connections of SIGN_IN_CONNECTIONS) {
    const comparison = await compare(`sign-in, ${connections} connections`, sides, (side, duration) => signInLoad(side, emails, connections, duration));
    signIn.push({ connections, comparison });
  }
  const mixed = await compare(`get-session paced, sign-ins beside`, sides, async (side, duration) => {
    const [session, signIns] = await Promise.all([
      runPacedLoadApart({ url: `${side.baseURL}/get-session`, connections: MIXED_SESSION_CONNECTIONS, rate: MIXED_SESSION_RATE, duration, headers: { cookie: side.cookie } }),
      signInLoad(side, emails, AUTH_CONNECTIONS, duration),
    ]);
    return { session, signIn: signIns, total: session.total + signIns.total };
  });
  const scrypt = meanScrypt(scryptBefore, await rawScrypt());

  const memory = { "better-auth": {}, ours: {} } as PairResult["memory"];
  started.forEach((side, i) => {
    for (const child of side.children) memory[side.name][child.name] = { idle: idle[i]![child.name]!, peak: child.memory()?.peak ?? Number.NaN };
  });
  for (const side of sides) for (const child of side.children) await child.stop();
  await redis?.close();
  redis = undefined;
  rmSync(dataDir, { recursive: true, force: true });
  tempDirs.delete(dataDir);
  return { storage, ok, getSession, signIn, mixed, scrypt, memory };
}

function expectSession(what: string, response: { status: number; body: string }): void {
  const body = response.status === 200 ? (JSON.parse(response.body) as { session?: unknown } | null) : null;
  if (!body?.session) throw new Error(`${what}: get-session answered no session: HTTP ${response.status} ${response.body.slice(0, 200)}`);
}

async function rawScrypt(): Promise<ScryptResult> {
  const result = await measureRawScrypt(SCRYPT_DURATION, AUTH_CONNECTIONS);
  log(`  raw scrypt ${result.hashesPerSecond.toFixed(1)} hashes/s (${result.hashes} in ${result.seconds.toFixed(1)} s, ${result.cpuMsPerHash.toFixed(1)} ms CPU per hash)`);
  return result;
}

// -------------------------------------------------------------------------------------------------- report

const STORAGE_LABEL: Record<Storage, string> = { sqlite: "SQLite", redis: "SQLite + Redis" };
const MIB = 1024 * 1024;

interface TableRow {
  measurement: string;
  storage: Storage;
  theirs: string;
  ours: string;
  /** ours / theirs of the row's headline figure. */
  ratio: number;
  load: string;
}

const fmt = (value: number, digits = 0) => value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
const ms = (value: number) => (Number.isFinite(value) ? `${value < 1 ? value.toFixed(3) : value.toFixed(2)} ms` : "n/a");
const loads = <T>(c: Comparison<T>) => `${c["better-auth"].loadAverage.map((l) => l.toFixed(1)).join("→")}; ${c.ours.loadAverage.map((l) => l.toFixed(1)).join("→")}`;
/** A measurement's failures, when it has any: a side answering errors is reported, not hidden. */
const failures = (m: Measurement) => (m.non2xx || m.errors ? ` (${m.non2xx} non-2xx ${JSON.stringify(m.statusCodes)}, ${m.errors} errors)` : "");

function rowsOf(pair: PairResult): TableRow[] {
  const rows: TableRow[] = [];
  const add = <T>(measurement: string, c: Comparison<T>, cell: (r: SideResult<T>) => string, figure: (r: SideResult<T>) => number) =>
    rows.push({ measurement, storage: pair.storage, theirs: cell(c["better-auth"]), ours: cell(c.ours), ratio: figure(c.ours) / figure(c["better-auth"]), load: loads(c) });
  const rate = (r: SideResult<Measurement>) => `${fmt(r.result.rps)} req/s${failures(r.result)}`;
  add(`\`GET /ok\`, ${CONNECTIONS} connections: req/s`, pair.ok, rate, (r) => r.result.rps);
  add(
    "`GET /ok`: CPU per request, all processes",
    pair.ok,
    (r) => ms(r.cpuMsPerResponse.total),
    (r) => r.cpuMsPerResponse.total,
  );
  add(`get-session warm, ${CONNECTIONS} connections: req/s`, pair.getSession, rate, (r) => r.result.rps);
  add(
    "get-session: p50 / p99 (ratio of p99)",
    pair.getSession,
    (r) => `${r.result.p50} / ${r.result.p99} ms`,
    (r) => r.result.p99,
  );
  add(
    "get-session: CPU per request, all processes",
    pair.getSession,
    (r) => ms(r.cpuMsPerResponse.total),
    (r) => r.cpuMsPerResponse.total,
  );
  for (const { connections, comparison } of pair.signIn) {
    // No answer at all in the window (every request still queued) says so instead of a p99 of 0 ms.
    const none = (r: SideResult<Measurement>) => (r.result.total ? "" : ` (no answer in ${fmt(r.result.seconds, 1)} s)`);
    const share = (r: SideResult<Measurement>) => `${fmt(r.result.rps, 1)}/s (${fmt((r.result.rps / pair.scrypt.hashesPerSecond) * 100)} %)${none(r)}`;
    add(`sign-in, ${connections} connections: sign-ins/s (% of our raw scrypt)`, comparison, share, (r) => r.result.rps);
    add(
      `sign-in, ${connections} connections: non-2xx/s; p99 (ratio of p99)`,
      comparison,
      (r) => `${fmt(r.result.non2xx / r.result.seconds, 1)}/s${r.result.errors ? ` + ${r.result.errors} errors` : ""}; ${r.result.total ? `${fmt(r.result.p99)} ms` : "n/a"}`,
      (r) => r.result.p99,
    );
  }
  // Beyond capacity: how fast the 503s came, and what each cost the process that answers them (its CPU at
  // that load less what the sign-ins took, at its CPU per sign-in in the first load that refused nothing).
  const calm = pair.signIn.find(({ comparison }) => comparison.ours.result.total && !comparison.ours.result.non2xx)?.comparison;
  const refusalCpu = (side: SideName, r: SideResult<Measurement>): string => {
    const process = side === "ours" ? "gateway" : "better-auth";
    const perSignIn = calm?.[side].cpuMsPerResponse[process];
    const perResponse = r.cpuMsPerResponse[process];
    if (perSignIn === undefined || perResponse === undefined) return "";
    const refusedPerSecond = r.result.refused.count / r.result.seconds;
    const cpuMsPerSecond = perResponse * (r.result.total / r.result.seconds) - perSignIn * r.result.rps;
    return `, ${ms(cpuMsPerSecond / refusedPerSecond)} of ${process} CPU each`;
  };
  for (const { connections, comparison } of pair.signIn) {
    if (!comparison.ours.result.refused.count && !comparison["better-auth"].result.refused.count) continue;
    const cell = (side: SideName) => {
      const { result } = comparison[side];
      if (!result.refused.count) return "none";
      return `${fmt(result.refused.count / result.seconds)}/s: p50 ${result.refused.p50} / p99 ${result.refused.p99} ms${refusalCpu(side, comparison[side])}`;
    };
    rows.push({
      measurement: `sign-in, ${connections} connections: 503s, their p50 / p99 and CPU`,
      storage: pair.storage,
      theirs: cell("better-auth"),
      ours: cell("ours"),
      ratio: Number.NaN,
      load: loads(comparison),
    });
  }
  add(
    `get-session p99 at ${MIXED_SESSION_RATE} req/s paced, sign-ins at ${AUTH_CONNECTIONS} connections beside (their sign-ins/s)`,
    pair.mixed,
    (r) => `${r.result.session.p99} ms${failures(r.result.session)} (${fmt(r.result.signIn.rps, 1)}/s)`,
    (r) => r.result.session.p99,
  );
  const rss = (side: SideName, kind: "idle" | "peak") => Object.values(pair.memory[side]).reduce((sum, m) => sum + m[kind], 0) / MIB;
  for (const kind of ["idle", "peak"] as const) {
    const theirs = rss("better-auth", kind);
    const ours = rss("ours", kind);
    rows.push({
      measurement: `RSS ${kind === "idle" ? "idle after start-up" : "peak (VmHWM)"}, all processes`,
      storage: pair.storage,
      theirs: `${fmt(theirs)} MiB`,
      ours: `${fmt(ours)} MiB (${Object.keys(pair.memory.ours).length} processes)`,
      ratio: ours / theirs,
      load: "",
    });
  }
  return rows;
}

/** What went wrong in a measurement that should answer only 2xx: get-session, /ok, and the paced get-session. */
function warnings(pairs: PairResult[]): string[] {
  const lines: string[] = [];
  for (const pair of pairs) {
    const check = (what: string, side: SideName, m: Measurement) => {
      if (m.non2xx || m.errors) lines.push(`WARNING: ${what} (${STORAGE_LABEL[pair.storage]}), ${side}:${failures(m)}: its figures are not valid.`);
    };
    for (const side of ["better-auth", "ours"] as const) {
      check("GET /ok", side, pair.ok[side].result);
      check("get-session", side, pair.getSession[side].result);
      check("paced get-session", side, pair.mixed[side].result.session);
      for (const { connections, comparison } of pair.signIn) {
        const m = comparison[side].result;
        if (m.errors) lines.push(`WARNING: sign-in at ${connections} connections (${STORAGE_LABEL[pair.storage]}), ${side}: ${m.errors} errors (${m.timeouts} timeouts).`);
      }
    }
  }
  return lines;
}

function gitRevision(): { sha: string; dirty: boolean } {
  const git = (...args: string[]) => execFileSync("git", args, { cwd: REPO_ROOT, encoding: "utf8" }).trim();
  return { sha: git("rev-parse", "--short", "HEAD"), dirty: git("status", "--porcelain", "--untracked-files=no") !== "" };
}

function report(pairs: PairResult[], loadAtStart: number, { sha, dirty }: { sha: string; dirty: boolean }): string {
  const cpu = cpus();
  const lines = [
    `# better-auth 1.7 and this platform, ${new Date().toISOString().slice(0, 10)}, build of \`${sha}\`${dirty ? " with uncommitted changes" : ""}`,
    "",
    `Node ${process.version}, ${cpu.length} CPUs (${cpu[0]?.model.trim() ?? "unknown"}), load average ${loadAtStart.toFixed(2)} at the start and ${load1().toFixed(2)} at the end. ` +
      `${DURATION} s per measurement after ${WARMUP} s of warm-up (and ${SIGN_IN_WARMUP} s of sign-ins at ${AUTH_CONNECTIONS} connections before the first sign-in measurement), each side alone under load; autocannon from the runner's process; rate limiting off on both. ` +
      `Ours: the build, every server process as \`npm start\` runs them (gateway, identity, session, notification, oauth, organization, admin). ` +
      `better-auth 1.7.25: one process on plain node with the username, organization, admin and two-factor plugins. ` +
      `CPU per request is summed over all processes of the side, and redis-server's for the Redis pair.`,
    "",
    "| measurement | storage | better-auth 1.7 | ours | ours / better-auth | load average, theirs; ours |",
    "|---|---|---:|---:|---:|---|",
    ...pairs
      .flatMap(rowsOf)
      .map(
        (r) =>
          `| ${r.measurement} | ${STORAGE_LABEL[r.storage]} | ${r.theirs} | ${r.ours} | ${Number.isFinite(r.ratio) && r.ratio > 0 ? `${fmt(r.ratio, 2)}×` : "n/a"} | ${r.load} |`,
      ),
    "",
    `Raw scrypt, beside the sign-ins (before and after, mean; bench/scrypt.ts, ${AUTH_CONNECTIONS} in flight, identity's environment): ` +
      pairs.map((p) => `${STORAGE_LABEL[p.storage]} pair ${fmt(p.scrypt.hashesPerSecond, 1)} hashes/s (${p.scrypt.cpuMsPerHash.toFixed(1)} ms CPU per hash)`).join(", ") +
      ". Ours derives with N=16384, r=16, p=1, a 64-byte key, on threads its hashing queue bounds (503 with Retry-After beyond); " +
      "better-auth 1.7 with the same parameters (@better-auth/utils: N=16384, r=16, p=1, dkLen 64) on the default libuv threadpool, unbounded, without glibc's huge pages.",
    "",
    "RSS per process, after start-up settled and at its peak:",
    "",
    "| process | storage | idle | peak |",
    "|---|---|---:|---:|",
    ...pairs.flatMap((pair) =>
      (["better-auth", "ours"] as const).flatMap((side) =>
        Object.entries(pair.memory[side]).map(
          ([name, m]) => `| ${side === "ours" ? name : "better-auth"} | ${STORAGE_LABEL[pair.storage]} | ${fmt(m.idle / MIB, 1)} MiB | ${fmt(m.peak / MIB, 1)} MiB |`,
        ),
      ),
    ),
  ];
  const warned = warnings(pairs);
  if (warned.length) lines.push("", ...warned);
  return `${lines.join("\n")}\n`;
}

// ---------------------------------------------------------------------------------------------------- main

async function main(): Promise<void> {
  const which = process.argv[2] ?? "both";
  if (!["sqlite", "redis", "both"].includes(which)) throw new Error("usage: tsx bench/peer.ts [sqlite|redis|both]");
  const storages: Storage[] = which === "both" ? ["sqlite", "redis"] : [which as Storage];
  if (storages.includes("redis") && !REDIS_SERVER_INSTALLED) {
    if (which === "redis") throw new Error("redis: redis-server is not on PATH");
    log("redis-server is not on PATH: the SQLite pair only");
    storages.pop();
  }
  // The revision measured, read before the run: a commit made meanwhile must not name its results.
  const revision = gitRevision();
  const loadAtStart = load1();
  log(`bench-peer ${RUN_ID}: ${storages.join(", ")}; load average ${loadAtStart.toFixed(2)}`);
  // The Makefile's target builds first when dist/ is missing or older than the sources.
  if (!existsSync(join(REPO_ROOT, BUILT_ENTRY.gateway))) throw new Error("no build in dist/: run `npm run build` (or `make bench-peer`) first");
  const pairs: PairResult[] = [];
  for (const storage of storages) pairs.push(await measurePair(storage));
  const markdown = report(pairs, loadAtStart, revision);
  log(`\n${markdown}`);
  const dir = join(REPO_ROOT, "bench", "results");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${new Date().toISOString().slice(0, 10)}-${revision.sha}`);
  writeFileSync(`${file}.md`, markdown);
  const settings = {
    DURATION,
    WARMUP,
    SIGN_IN_WARMUP,
    CONNECTIONS,
    SIGN_IN_CONNECTIONS,
    AUTH_CONNECTIONS,
    USERS,
    MIXED_SESSION_RATE,
    MIXED_SESSION_CONNECTIONS,
    SCRYPT_DURATION,
    IDLE_WAIT_MS,
  };
  writeFileSync(`${file}.json`, `${JSON.stringify({ node: process.version, cpus: cpus().length, settings, pairs }, null, 2)}\n`);
  log(`written to ${file}.md and .json`);
}

let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    if (interrupted) return;
    interrupted = true;
    process.stderr.write(`\n${signal}: stopping every process of the run\n`);
    void cleanUp().finally(() => process.exit(130));
  });
}
process.on("exit", killAllNow);

main().then(
  () => process.exit(0),
  async (error: unknown) => {
    process.stderr.write(`bench-peer failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    await cleanUp();
    process.exit(1);
  },
);
