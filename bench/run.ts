/**
 * Benchmarks of the gateway's hot paths against the real platform, each beside a plain express baseline
 * answering the same JSON in the same run:
 *
 *   tsx bench/run.ts [get-session|ok|sign-in|sign-up|mixed|all]... [--redis|--memory|--both]
 *
 * The platform (identity, session, gateway) runs in its own processes, as in production; autocannon runs
 * here. `all` runs every scenario with the memory cache and, if Redis answers, again with Redis. Named
 * scenarios use memory unless --redis is given or BENCH_REDIS_URL is set. See bench/README.md for the
 * environment knobs. Figures are printed, never asserted: this is not a timed test.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { envNumber, SIGN_IN_WARMUP } from "./env.js";
import { type Captured, cookieHeader, eachLimited, expectOk, get, post, signUp } from "./http.js";
import { runLoad, runPacedLoadApart, runRetryAfterLoad, type LoadOptions, type Measurement } from "./load.js";
import { freePorts } from "../testing/ports.js";
import { cannotPin, killAllNow, pinToCpus, startChild, stopAll, untilIdle, type Child } from "./processes.js";
import { deleteKeysWithPrefix, redisAnswers } from "./redis.js";
import { meanScrypt, measureRawScrypt, type ScryptResult } from "./scrypt.js";
import { ensureDevCertificates } from "../deploy/dev-certs.js";
import { buildPlatform } from "../deploy/build.js";
import { BUILT_ENTRY, ENTRY_POINTS } from "../deploy/processes.js";

type Scenario = "get-session" | "ok" | "sign-in" | "sign-up" | "mixed";
type Backend = "memory" | "redis";
const SCENARIOS: Scenario[] = ["get-session", "ok", "sign-in", "sign-up", "mixed"];

const DURATION = envNumber("BENCH_DURATION", 10);
const WARMUP = envNumber("BENCH_WARMUP", 2);
const CONNECTIONS = envNumber("BENCH_CONNECTIONS", 50);
const AUTH_CONNECTIONS = envNumber("BENCH_AUTH_CONNECTIONS", 16);
const USERS = envNumber("BENCH_USERS", 64);
/** Sign-ups in flight while a scenario creates its users (set-up, not measured). */
const SETUP_CONNECTIONS = 4;
const MIXED_SESSION_RATE = envNumber("BENCH_MIXED_SESSION_RATE", 200);
const MIXED_SESSION_CONNECTIONS = envNumber("BENCH_MIXED_SESSION_CONNECTIONS", 10);
const SCRYPT_DURATION = envNumber("BENCH_SCRYPT_DURATION", DURATION);
/**
 * How the sign-in load's clients treat a 503: `immediate` (autocannon: the next request at once, as a
 * retry storm does), `retry-after` (wait the advertised Retry-After first, as a well-behaved client does),
 * or `both` (one measurement each).
 */
type AuthClient = "immediate" | "retry-after";
const AUTH_CLIENT = process.env.BENCH_AUTH_CLIENT || "immediate";
if (!["immediate", "retry-after", "both"].includes(AUTH_CLIENT)) throw new Error(`BENCH_AUTH_CLIENT must be immediate, retry-after or both (got ${AUTH_CLIENT})`);
const AUTH_CLIENTS: AuthClient[] = AUTH_CLIENT === "both" ? ["immediate", "retry-after"] : [AUTH_CLIENT as AuthClient];
/**
 * BENCH_PIN=1: the shape the chart deploys, on one machine. identity runs alone on the last CPU (with one
 * derivation at a time, as identity chooses on one CPU); the gateway, the session service, notification,
 * the baseline and the load generator share the others; raw scrypt runs alone on identity's CPU. The share
 * of raw scrypt then says how close identity gets to its own core's ceiling with the rest of the platform
 * elsewhere. Linux with taskset, 2 CPUs or more.
 */
const PIN = process.env.BENCH_PIN === "1";
const CPU_COUNT = availableParallelism();
const IDENTITY_CPUS = String(CPU_COUNT - 1);
const OTHER_CPUS = CPU_COUNT > 2 ? `0-${CPU_COUNT - 2}` : "0";
/** identity's IDENTITY_HASHING_CONCURRENCY: BENCH_HASHING_CONCURRENCY, else 1 when pinned to one CPU, else its own default. */
const HASHING_CONCURRENCY = process.env.BENCH_HASHING_CONCURRENCY || (PIN ? "1" : "");
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL || "warn";
const REDIS_URL = process.env.BENCH_REDIS_URL || "redis://127.0.0.1:6379";
const PASSWORD = "bench-password-0123";
const RUN_ID = randomBytes(4).toString("hex");
const BASE_PATH = "/api/auth";

interface Row {
  scenario: Scenario;
  backend: Backend;
  /** The sign-in load's clients (immediate retry unless said). */
  client?: AuthClient;
  ours: Measurement & { cpu: CpuUse; threads: ThreadUse };
  baseline: Measurement & { cpu: CpuUse };
  /** Raw scrypt measured just before this scenario (sign-in, sign-up), and our req/s over its hashes/s. */
  scrypt?: ScryptResult;
  scryptRatio?: number;
  /**
   * CPU per raw hash over the platform's CPU per request (all processes): the share of raw scrypt
   * throughput we would reach with the machine to ourselves. Other load on the machine hardly moves it.
   */
  scryptCpuShare?: number;
  /** CPU per successful request besides identity's hashing threads (cpuBeyondHashing), in ms. */
  beyondHashingMs?: number;
  responseBytes: number;
}

interface MemoryRow {
  backend: Backend;
  process: string;
  peak: number;
  current: number;
}

const rows: Row[] = [];
/** Temporary folders still to delete (also on error and Ctrl-C). */
const tempDirs = new Set<string>();
function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}
const memoryRows: MemoryRow[] = [];
let baselinePeak = 0;

// ---------------------------------------------------------------------------------------------- platform

interface Platform {
  backend: Backend;
  baseURL: string;
  children: Child[];
  redisPrefix?: string;
  dataDir: string;
}

/** The environment the platform processes get: ours, minus any platform settings of the calling shell. */
function platformEnv(backend: Backend, ports: { identity: number; session: number; gateway: number }, dataDir: string, redisPrefix?: string): Record<string, string> {
  const inherited: Record<string, string> = {};
  const platformVar =
    /^(IDENTITY_|SESSION_|AUTH_|RATE_LIMIT_|REDIS_|SMTP_|GATEWAY_|NOTIFICATION_|OAUTH_|ORGANIZATION_|ADMIN_|GRPC_|MAIL_FROM$|APP_NAME$|PORT$|HOST$|LOG_LEVEL$|NODE_ENV$)/;
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !platformVar.test(key)) inherited[key] = value;
  return {
    ...inherited,
    LOG_LEVEL,
    AUTH_SECRET: "bench-secret-0123456789-0123456789-abcde", // 40 characters
    // The gateway's own session memory (0: none, every get-session asks the shared cache or the session service).
    ...(process.env.BENCH_SESSION_CACHE_SIZE ? { GATEWAY_SESSION_CACHE_SIZE: process.env.BENCH_SESSION_CACHE_SIZE } : {}),
    IDENTITY_PORT: String(ports.identity),
    SESSION_PORT: String(ports.session),
    PORT: String(ports.gateway),
    IDENTITY_SERVICE_URL: `127.0.0.1:${ports.identity}`,
    SESSION_SERVICE_URL: `127.0.0.1:${ports.session}`,
    IDENTITY_DATABASE_URL: `file:${join(dataDir, "identity.db")}`,
    SESSION_DATABASE_URL: `file:${join(dataDir, "session.db")}`,
    RATE_LIMIT_ENABLED: "false",
    ...(HASHING_CONCURRENCY ? { IDENTITY_HASHING_CONCURRENCY: HASHING_CONCURRENCY } : {}),
    ...(backend === "redis" ? { REDIS_URL, REDIS_KEY_PREFIX: redisPrefix! } : {}),
  };
}

/**
 * The notification service takes the verification mail identity sends on sign-up (the default
 * configuration). BENCH_NOTIFICATION=0 leaves it out and turns that mail off instead.
 */
const WITH_NOTIFICATION = process.env.BENCH_NOTIFICATION !== "0";

/**
 * BENCH_BUILD=1 runs the platform from the production build (`npm run build` first, then plain node over
 * dist/<process>.js, as the image and `npm start` do); else from source through tsx, as `make dev` does.
 * From source, every Error's stack is mapped through tsx's source maps when read (grpc-js reads one for
 * every failed call), which the build does not do.
 */
const FROM_BUILD = process.env.BENCH_BUILD === "1";
const entryOf = (name: "identity" | "session" | "notification" | "gateway") => (FROM_BUILD ? BUILT_ENTRY : ENTRY_POINTS)[name];

async function startPlatform(backend: Backend): Promise<Platform> {
  const dataDir = mkdtempSync(join(tmpdir(), "auth-bench-"));
  tempDirs.add(dataDir);
  const [identity, session, gateway, notification] = (await freePorts(4)) as [number, number, number, number];
  const redisPrefix = backend === "redis" ? `bench:${RUN_ID}:` : undefined;
  const env = platformEnv(backend, { identity, session, gateway }, dataDir, redisPrefix);
  if (WITH_NOTIFICATION) {
    Object.assign(env, {
      NOTIFICATION_PORT: String(notification),
      NOTIFICATION_SERVICE_URL: `127.0.0.1:${notification}`,
      NOTIFICATION_DATABASE_URL: `file:${join(dataDir, "notification.db")}`,
    });
  } else {
    env.IDENTITY_SEND_VERIFICATION_ON_SIGN_UP = "false";
  }
  // Mutual TLS between the processes, as in production: a CA and certificates of the run's own (dev-certs).
  const tls = await ensureDevCertificates(join(dataDir, "tls"), ["gateway", "identity", "session", "notification"]);
  const envOf = (name: string) => ({ ...env, GRPC_TLS_DIR: tls[name]! });
  const started = Date.now();
  const services = await Promise.all([
    startChild("identity", entryOf("identity"), envOf("identity"), identity),
    startChild("session", entryOf("session"), envOf("session"), session),
    ...(WITH_NOTIFICATION ? [startChild("notification", entryOf("notification"), envOf("notification"), notification)] : []),
  ]);
  const gatewayChild = await startChild("gateway", entryOf("gateway"), envOf("gateway"), gateway);
  const children = [gatewayChild, ...services];
  if (PIN) for (const child of children) pinToCpus(child.pid, child.name === "identity" ? IDENTITY_CPUS : OTHER_CPUS);
  log(`platform (${backend}) up in ${((Date.now() - started) / 1000).toFixed(1)} s: ${children.map((c) => `${c.name} pid ${c.pid}`).join(", ")}; gateway on :${gateway}`);
  return { backend, baseURL: `http://127.0.0.1:${gateway}${BASE_PATH}`, children, redisPrefix, dataDir };
}

async function stopPlatform(platform: Platform): Promise<void> {
  for (const child of platform.children) {
    const memory = child.memory();
    if (memory) memoryRows.push({ backend: platform.backend, process: child.name, ...memory });
  }
  // Callers before the services they call (children are gateway, identity, then the rest): a sign-in still
  // in identity when the load stops finishes its CreateSession instead of failing against a stopped session.
  for (const child of platform.children) await child.stop();
  removeTempDir(platform.dataDir);
  if (platform.redisPrefix) {
    const deleted = await deleteKeysWithPrefix(REDIS_URL, platform.redisPrefix).catch((error: unknown) => {
      log(`could not delete Redis keys under ${platform.redisPrefix}: ${String(error)}`);
      return 0;
    });
    log(`deleted ${deleted} Redis keys under ${platform.redisPrefix}`);
  }
}

// ------------------------------------------------------------------------------------------------ users

let emailCounter = 0;
const freshEmail = (label: string) => `bench-${RUN_ID}-${label}-${++emailCounter}@example.com`;

// -------------------------------------------------------------------------------------------- baseline

/** A plain express process answering `path` with the captured response; its bytes are checked. */
async function startBaseline(method: "GET" | "POST", path: string, captured: Captured, probeBody?: unknown): Promise<{ url: string; child: Child }> {
  const dir = mkdtempSync(join(tmpdir(), "auth-bench-baseline-"));
  tempDirs.add(dir);
  const routesFile = join(dir, "routes.json");
  const headers: Record<string, string[]> = captured.setCookie.length ? { "set-cookie": captured.setCookie } : {};
  writeFileSync(routesFile, JSON.stringify([{ method, path, status: captured.status, headers, body: captured.body }]));
  const [port] = (await freePorts(1)) as [number];
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  const child = await startChild("baseline", "bench/baseline-server.ts", { ...env, PORT: String(port), BASELINE_ROUTES: routesFile, NODE_ENV: "" }, port).finally(() =>
    removeTempDir(dir),
  );
  if (PIN) pinToCpus(child.pid, OTHER_CPUS);
  const url = `http://127.0.0.1:${port}${path}`;
  const probe = method === "GET" ? await get(url) : await post(url, probeBody ?? {});
  if (probe.body !== captured.body) throw new Error(`baseline answers different bytes than the gateway:\n${probe.body}\n${captured.body}`);
  return { url, child };
}

async function stopBaseline(child: Child): Promise<void> {
  const memory = child.memory();
  if (memory) baselinePeak = Math.max(baselinePeak, memory.peak);
  await child.stop();
}

// -------------------------------------------------------------------------------------------- measuring

/** CPU used per process during the measured run: ms per response, and cores kept busy. */
type CpuUse = Record<string, { msPerRequest: number; cores: number }>;
const NOISE = new Set(["other processes", "interrupts", "steal"]);

/** Machine-wide CPU time so far, in ms (all cores), from /proc/stat: process time, interrupts, and steal. */
function machineCpu(): { process: number; interrupts: number; steal: number } | undefined {
  try {
    const [user, nice, system, , , irq, softirq, steal] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    const ms = (ticks: number | undefined) => ((ticks ?? 0) * 1000) / 100;
    return { process: ms(user! + nice! + system!), interrupts: ms(irq! + softirq!), steal: ms(steal) };
  } catch {
    return undefined;
  }
}

/** CPU per response by process and kind of thread (main = the event loop; libuv-worker = scrypt in identity). */
type ThreadUse = Record<string, Record<string, number>>;

async function measure(
  label: string,
  options: Omit<LoadOptions, "duration">,
  children: Child[],
  client: AuthClient = "immediate",
): Promise<Measurement & { cpu: CpuUse; threads: ThreadUse }> {
  const load = client === "retry-after" ? runRetryAfterLoad : runLoad;
  if (WARMUP > 0) await load({ ...options, duration: WARMUP });
  const before = children.map((child) => child.cpuMs());
  const threadsBefore = children.map((child) => child.threadCpuMs());
  const runnerBefore = process.cpuUsage();
  const machineBefore = machineCpu();
  const result = await load({ ...options, duration: DURATION });
  const runner = process.cpuUsage(runnerBefore);
  const machineAfter = machineCpu();
  const threadsAfter = children.map((child) => child.threadCpuMs());
  const cpu: CpuUse = {};
  const responses = Math.max(1, result.total);
  children.forEach((child, i) => {
    const after = child.cpuMs();
    if (after !== undefined && before[i] !== undefined) {
      const used = after - before[i]!;
      cpu[child.name] = { msPerRequest: used / responses, cores: used / 1000 / result.seconds };
    }
  });
  const runnerMs = (runner.user + runner.system) / 1000;
  cpu["load generator"] = { msPerRequest: runnerMs / responses, cores: runnerMs / 1000 / result.seconds };
  if (machineBefore !== undefined && machineAfter !== undefined) {
    // The noise gauges: what other processes on a shared box used meanwhile, kernel interrupt work
    // (loopback networking's softirq time is charged here, not to the processes), and time the
    // hypervisor gave our virtual CPUs to someone else.
    const ours = Object.values(cpu).reduce((sum, use) => sum + use.cores * 1000 * result.seconds, 0);
    const use = (ms: number) => ({ msPerRequest: ms / responses, cores: ms / 1000 / result.seconds });
    cpu["other processes"] = use(Math.max(0, machineAfter.process - machineBefore.process - ours));
    cpu.interrupts = use(machineAfter.interrupts - machineBefore.interrupts);
    cpu.steal = use(machineAfter.steal - machineBefore.steal);
  }
  const cpuText = Object.entries(cpu)
    .map(([name, use]) => `${name} ${use.msPerRequest < 1 ? use.msPerRequest.toFixed(3) : use.msPerRequest.toFixed(1)} ms/req (${use.cores.toFixed(2)} cores)`)
    .join(", ");
  log(
    `  ${label.padEnd(9)} ${fmt(result.rps, result.rps < 100 ? 1 : 0).padStart(8)} req/s  p50 ${result.p50} ms  p99 ${result.p99} ms  (${result.total} responses, ${result.non2xx} non-2xx, ${result.errors} errors)`,
  );
  log(`            CPU: ${cpuText}`);
  const threads: ThreadUse = {};
  children.forEach((child, i) => {
    threads[child.name] = Object.fromEntries(Object.entries(threadsAfter[i]!).map(([kind, ms]) => [kind, (ms - (threadsBefore[i]![kind] ?? 0)) / responses]));
  });
  const threadText = Object.entries(threads).map(([name, kinds]) => {
    const shown = Object.entries(kinds).filter(([, ms]) => ms >= 0.05);
    return `${name}: ${shown.map(([kind, ms]) => `${kind} ${ms < 1 ? ms.toFixed(2) : ms.toFixed(1)}`).join(", ")}`;
  });
  log(`            threads (ms/req): ${threadText.join("; ")}`);
  if (result.refused.count)
    log(`            503s: ${result.refused.count} (${fmt(result.refused.count / result.seconds, 0)}/s), p50 ${result.refused.p50} ms, p99 ${result.refused.p99} ms`);
  if (result.non2xx) log(`            platform CPU per 2xx response: ${((platformCpuPerRequest(cpu) * responses) / Math.max(1, okCount(result))).toFixed(1)} ms`);
  if (result.non2xx || result.errors) log(`  !! ${label}: status codes ${JSON.stringify(result.statusCodes)}, ${result.errors} errors (${result.timeouts} timeouts)`);
  return { ...result, cpu, threads };
}

/** 2xx responses in a measurement. */
const okCount = (m: Measurement) => Math.round(m.rps * m.seconds);

/**
 * Raw scrypt's CPU per hash over what one successful request cost the platform and load generator: CPU of
 * every response (refusals too) divided by the 2xx ones, since only those did the work being compared.
 */
function scryptCpuShare(raw: ScryptResult, m: Measurement & { cpu: CpuUse }): number {
  return raw.cpuMsPerHash / cpuPerSuccess(m);
}

/** What the platform and load generator spent per 2xx response: every response's CPU (refusals too) over the 2xx ones. */
function cpuPerSuccess(m: Measurement & { cpu: CpuUse }): number {
  return (platformCpuPerRequest(m.cpu) * Math.max(1, m.total)) / Math.max(1, okCount(m));
}

/**
 * The CPU a successful request cost besides its hashing: everything above but identity's libuv threads,
 * where scrypt runs. It does not depend on how fast the machine derives, as the share of raw scrypt does
 * (raw / (raw + this) on shared cores).
 */
function cpuBeyondHashing(m: Measurement & { cpu: CpuUse; threads: ThreadUse }): number {
  const hashing = ((m.threads.identity?.["libuv-worker"] ?? 0) * Math.max(1, m.total)) / Math.max(1, okCount(m));
  return cpuPerSuccess(m) - hashing;
}

/** CPU per response of the whole platform plus the load generator (what one request costs the machine). */
function platformCpuPerRequest(cpu: CpuUse): number {
  return Object.entries(cpu).reduce((sum, [name, use]) => (NOISE.has(name) ? sum : sum + use.msPerRequest), 0);
}

/**
 * Raw scrypt, measured next to each credential scenario so both see the same machine (the platform idles
 * meanwhile), in a process of its own with identity's environment (bench/scrypt.ts).
 */
async function scrypt(): Promise<ScryptResult> {
  const result = await measureRawScrypt(SCRYPT_DURATION, AUTH_CONNECTIONS, PIN ? IDENTITY_CPUS : undefined);
  log(
    `  scrypt    ${fmt(result.hashesPerSecond, 1).padStart(8)} hashes/s  (raw, ${result.hashes} in ${result.seconds.toFixed(1)} s, ${result.concurrency} in flight, libuv threadpool ${result.threadpool}; ${result.cpuMsPerHash.toFixed(1)} ms CPU per hash)`,
  );
  return result;
}

async function getSession(platform: Platform): Promise<void> {
  const signedUp = await signUp(platform.baseURL, freshEmail("session"), PASSWORD);
  const cookie = cookieHeader(signedUp.setCookie);
  const captured = expectOk("get-session", await get(`${platform.baseURL}/get-session`, { cookie }));
  if (!(JSON.parse(captured.body) as { session?: unknown } | null)?.session) throw new Error(`get-session answered no session: ${captured.body}`);
  // The warm path: the first read above filled the cache; the measured reads hit it.
  const baseline = await startBaseline("GET", `${BASE_PATH}/get-session`, { ...captured, setCookie: [] });
  let baselineResult: Measurement & { cpu: CpuUse };
  try {
    baselineResult = await measure("baseline", { url: baseline.url, connections: CONNECTIONS, headers: { cookie } }, [baseline.child]);
  } finally {
    await stopBaseline(baseline.child);
  }
  const ours = await measure("ours", { url: `${platform.baseURL}/get-session`, connections: CONNECTIONS, headers: { cookie } }, platform.children);
  const after = await get(`${platform.baseURL}/get-session`, { cookie });
  if (after.status !== 200 || after.body === "null") log(`  !! after the run get-session answered ${after.status} ${after.body.slice(0, 200)}`);
  rows.push({ scenario: "get-session", backend: platform.backend, ours, baseline: baselineResult, responseBytes: Buffer.byteLength(captured.body) });
}

/** GET /ok, no cookie: the gateway's own cost per request (middleware chain, routing, answer) with nothing behind it. */
async function ok(platform: Platform): Promise<void> {
  const captured = expectOk("ok", await get(`${platform.baseURL}/ok`));
  const baseline = await startBaseline("GET", `${BASE_PATH}/ok`, captured);
  let baselineResult: Measurement & { cpu: CpuUse };
  try {
    baselineResult = await measure("baseline", { url: baseline.url, connections: CONNECTIONS }, [baseline.child]);
  } finally {
    await stopBaseline(baseline.child);
  }
  const ours = await measure("ours", { url: `${platform.baseURL}/ok`, connections: CONNECTIONS }, platform.children);
  rows.push({ scenario: "ok", backend: platform.backend, ours, baseline: baselineResult, responseBytes: Buffer.byteLength(captured.body) });
}

async function signIn(platform: Platform): Promise<void> {
  const emails = Array.from({ length: Math.max(1, USERS) }, () => freshEmail("in"));
  const started = Date.now();
  await eachLimited(emails, SETUP_CONNECTIONS, async (email) => void (await signUp(platform.baseURL, email, PASSWORD)));
  log(`  created ${emails.length} users in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const captured = expectOk("sign-in", await post(`${platform.baseURL}/sign-in/email`, { email: emails[0], password: PASSWORD }));
  let turn = 0;
  const options = {
    method: "POST" as const,
    connections: AUTH_CONNECTIONS,
    headers: { "content-type": "application/json" },
    nextBody: () => JSON.stringify({ email: emails[turn++ % emails.length], password: PASSWORD }),
  };
  if (SIGN_IN_WARMUP > 0) {
    await runLoad({ ...options, url: `${platform.baseURL}/sign-in/email`, duration: SIGN_IN_WARMUP });
    if (!(await untilIdle(platform.children.map((child) => child.pid)))) log("  !! the platform was still busy 60 s after the sign-in warm-up");
  }
  const raw = await scrypt();
  const baseline = await startBaseline("POST", `${BASE_PATH}/sign-in/email`, captured, { email: emails[0], password: PASSWORD });
  let baselineResult: Measurement & { cpu: CpuUse };
  try {
    baselineResult = await measure("baseline", { ...options, url: baseline.url }, [baseline.child]);
  } finally {
    await stopBaseline(baseline.child);
  }
  const measured: Array<{ client: AuthClient; ours: Measurement & { cpu: CpuUse; threads: ThreadUse } }> = [];
  for (const client of AUTH_CLIENTS) {
    measured.push({
      client,
      ours: await measure(client === "immediate" ? "ours" : "ours (RA)", { ...options, url: `${platform.baseURL}/sign-in/email` }, platform.children, client),
    });
  }
  // Raw scrypt again after: on a shared or virtual machine its CPU per hash moves by a fifth from one
  // measurement to the next, so the ratios use the mean of the two around ours.
  const both = meanScrypt(raw, await scrypt());
  for (const { client, ours } of measured) {
    rows.push({
      scenario: "sign-in",
      backend: platform.backend,
      client,
      ours,
      baseline: baselineResult,
      scrypt: both,
      scryptRatio: ours.rps / both.hashesPerSecond,
      scryptCpuShare: scryptCpuShare(both, ours),
      beyondHashingMs: cpuBeyondHashing(ours),
      responseBytes: Buffer.byteLength(captured.body),
    });
  }
}

async function signUpScenario(platform: Platform): Promise<void> {
  const captured = await signUp(platform.baseURL, freshEmail("up"), PASSWORD);
  const raw = await scrypt();
  const options = {
    method: "POST" as const,
    connections: AUTH_CONNECTIONS,
    headers: { "content-type": "application/json" },
    nextBody: () => JSON.stringify({ name: "Bench User", email: freshEmail("up"), password: PASSWORD }),
  };
  const baseline = await startBaseline("POST", `${BASE_PATH}/sign-up/email`, captured, { name: "x", email: "x@example.com", password: PASSWORD });
  let baselineResult: Measurement & { cpu: CpuUse };
  try {
    baselineResult = await measure("baseline", { ...options, url: baseline.url }, [baseline.child]);
  } finally {
    await stopBaseline(baseline.child);
  }
  const ours = await measure("ours", { ...options, url: `${platform.baseURL}/sign-up/email` }, platform.children);
  rows.push({
    scenario: "sign-up",
    backend: platform.backend,
    ours,
    baseline: baselineResult,
    scrypt: raw,
    scryptRatio: ours.rps / raw.hashesPerSecond,
    scryptCpuShare: scryptCpuShare(raw, ours),
    beyondHashingMs: cpuBeyondHashing(ours),
    responseBytes: Buffer.byteLength(captured.body),
  });
}

/**
 * get-session at a steady rate (BENCH_MIXED_SESSION_RATE req/s over BENCH_MIXED_SESSION_CONNECTIONS
 * connections, latency counted from when each request was due) while sign-ins at BENCH_AUTH_CONNECTIONS
 * saturate identity's hashing. Sign-in 503s are expected beyond capacity (the bounded hashing queue) and
 * are reported, not counted as failures; get-session must answer every request.
 */
interface MixedRow {
  backend: Backend;
  session: Measurement;
  signIn: Measurement;
  /** get-session alone at the same rate, just before. */
  sessionAlone: Measurement;
}
const mixedRows: MixedRow[] = [];

async function mixed(platform: Platform): Promise<void> {
  const emails = Array.from({ length: Math.max(1, Math.min(USERS, 16)) }, () => freshEmail("mixed"));
  await eachLimited(emails, SETUP_CONNECTIONS, async (email) => void (await signUp(platform.baseURL, email, PASSWORD)));
  const cookie = cookieHeader((await signUp(platform.baseURL, freshEmail("mixed-session"), PASSWORD)).setCookie);
  expectOk("get-session", await get(`${platform.baseURL}/get-session`, { cookie }));
  const session = { url: `${platform.baseURL}/get-session`, connections: MIXED_SESSION_CONNECTIONS, rate: MIXED_SESSION_RATE, headers: { cookie } };
  let turn = 0;
  const signIn = {
    url: `${platform.baseURL}/sign-in/email`,
    method: "POST" as const,
    connections: AUTH_CONNECTIONS,
    headers: { "content-type": "application/json" },
    nextBody: () => JSON.stringify({ email: emails[turn++ % emails.length], password: PASSWORD }),
  };
  // The sign-ins retry at once unless BENCH_AUTH_CLIENT=retry-after alone asks otherwise.
  const signInLoad = AUTH_CLIENT === "retry-after" ? runRetryAfterLoad : runLoad;
  // get-session evenly paced, latency from when each request was due (runPacedLoad says why not autocannon),
  // from a worker thread, so this process's own pauses do not count as the platform's (runPacedLoadApart).
  if (WARMUP > 0) {
    await Promise.all([runPacedLoadApart({ ...session, duration: WARMUP }), signInLoad({ ...signIn, duration: WARMUP })]);
    // Unmeasured again, alone: the sign-ins the warm-up left queued in identity finish hashing here, not
    // in the first second of "alone".
    await runPacedLoadApart({ ...session, duration: WARMUP });
  }
  const sessionAlone = await runPacedLoadApart({ ...session, duration: DURATION });
  const [sessionResult, signInResult] = await Promise.all([runPacedLoadApart({ ...session, duration: DURATION }), signInLoad({ ...signIn, duration: DURATION })]);
  const line = (label: string, m: Measurement) =>
    log(
      `  ${label.padEnd(22)} ${fmt(m.rps, 1).padStart(8)} req/s  p50 ${m.p50} ms  p99 ${m.p99} ms  max ${m.max} ms  (${m.total} responses, statuses ${JSON.stringify(m.statusCodes)}, ${m.errors} errors)`,
    );
  line("get-session alone", sessionAlone);
  line("get-session, mixed", sessionResult);
  line("sign-in, mixed", signInResult);
  mixedRows.push({ backend: platform.backend, session: sessionResult, signIn: signInResult, sessionAlone });
}

// ------------------------------------------------------------------------------------------------ report

function fmt(value: number, digits: number): string {
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

const rowLabel = (row: Row) => (row.client === "retry-after" ? `${row.scenario} (clients honour Retry-After)` : row.scenario);

function report(): void {
  const cpu = cpus();
  log("");
  log(`## Results (${new Date().toISOString()})`);
  log("");
  log(
    `Node ${process.version}, ${cpu.length} CPUs (${cpu[0]?.model.trim() ?? "unknown"}), load average now ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}; ` +
      `platform from ${FROM_BUILD ? "the build" : "source"}; ${DURATION} s per measurement after ${WARMUP} s warm-up (sign-in after ${SIGN_IN_WARMUP} s more); get-session ${CONNECTIONS} connections, sign-in/sign-up ${AUTH_CONNECTIONS}; autocannon in the runner's process, platform and baseline in their own.`,
  );
  log("");
  log("| scenario | cache | ours req/s | baseline req/s | ratio | ours p50 / p99 | baseline p99 | non-2xx / errors | vs raw scrypt (req/s; CPU-based) | CPU besides hashing |");
  log("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const row of rows) {
    const ratio = row.ours.rps / row.baseline.rps;
    const failures = `${row.ours.non2xx + row.baseline.non2xx} / ${row.ours.errors + row.baseline.errors}`;
    const scryptCell =
      row.scrypt && row.scryptRatio !== undefined
        ? `${(row.scryptRatio * 100).toFixed(0)} % of ${fmt(row.scrypt.hashesPerSecond, 1)}/s; ${((row.scryptCpuShare ?? 0) * 100).toFixed(0)} %`
        : "";
    const beyondCell = row.beyondHashingMs === undefined ? "" : `${row.beyondHashingMs.toFixed(1)} ms`;
    log(
      `| ${rowLabel(row)} | ${row.backend} | ${fmt(row.ours.rps, row.ours.rps < 100 ? 1 : 0)} | ${fmt(row.baseline.rps, 0)} | ${(ratio * 100).toFixed(ratio < 0.1 ? 2 : 1)} % | ${row.ours.p50} / ${row.ours.p99} ms | ${row.baseline.p99} ms | ${failures} | ${scryptCell} | ${beyondCell} |`,
    );
  }
  log("");
  log("CPU per response during the measured run (ms of CPU, all threads; cores = CPU seconds per second):");
  log("");
  const names = ["gateway", "identity", "session", ...(WITH_NOTIFICATION ? ["notification"] : [])];
  log(`| scenario | cache | ${names.join(" | ")} | platform total | load generator | baseline express | other processes, interrupts, steal: cores during ours / baseline |`);
  log(`|---|---|${names.map(() => "---:|").join("")}---:|---:|---:|---:|`);
  const noise = (cpu: CpuUse) => [...NOISE].map((name) => cpu[name]?.cores.toFixed(2) ?? "?").join(", ");
  const cell = (use: { msPerRequest: number; cores: number } | undefined) =>
    use ? `${use.msPerRequest < 1 ? use.msPerRequest.toFixed(3) : use.msPerRequest.toFixed(1)} (${use.cores.toFixed(2)})` : "";
  for (const row of rows) {
    const platformUse = names.map((name) => row.ours.cpu[name]).filter((u) => u !== undefined);
    const total = platformUse.reduce((sum, u) => ({ msPerRequest: sum.msPerRequest + u.msPerRequest, cores: sum.cores + u.cores }), { msPerRequest: 0, cores: 0 });
    log(
      `| ${rowLabel(row)} | ${row.backend} | ${names.map((name) => cell(row.ours.cpu[name])).join(" | ")} | ${cell(total)} | ${cell(row.ours.cpu["load generator"])} | ${cell(row.baseline.cpu.baseline)} | ${noise(row.ours.cpu)} / ${noise(row.baseline.cpu)} |`,
    );
  }
  if (mixedRows.length) {
    log("");
    log(
      `Mixed: get-session at ${MIXED_SESSION_RATE} req/s over ${MIXED_SESSION_CONNECTIONS} connections (latency from when each request was due), alone and then while sign-ins at ${AUTH_CONNECTIONS} connections saturate the hashing:`,
    );
    log("");
    log(
      "| cache | get-session alone p50 / p99 | get-session mixed req/s | mixed p50 / p99 / max | get-session non-2xx / errors | sign-in 2xx req/s | sign-in 503s | sign-in p50 / p99 | sign-in other non-2xx / errors |",
    );
    log("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (const row of mixedRows) {
      const unavailable = row.signIn.statusCodes["503"] ?? 0;
      log(
        `| ${row.backend} | ${row.sessionAlone.p50} / ${row.sessionAlone.p99} ms | ${fmt(row.session.rps, 0)} | ${row.session.p50} / ${row.session.p99} / ${row.session.max} ms | ${row.session.non2xx} / ${row.session.errors} | ${fmt(row.signIn.rps, 1)} | ${unavailable} | ${row.signIn.p50} / ${row.signIn.p99} ms | ${row.signIn.non2xx - unavailable} / ${row.signIn.errors} |`,
      );
    }
  }
  const scrypts = rows.flatMap((r) => (r.scrypt ? [r.scrypt] : []));
  if (scrypts.length) {
    log("");
    log(
      `Raw scrypt on this machine, measured beside each credential scenario: ${scrypts.map((s) => fmt(s.hashesPerSecond, 1)).join(", ")} hashes/s ` +
        `(N=16384, r=16, p=1, 64-byte key, maxmem 64 MiB, async crypto.scrypt, ${AUTH_CONNECTIONS} in flight on the default libuv threadpool of ${scrypts[0]!.threadpool}). ` +
        `Sign-in costs one scrypt verification and sign-up one hash, so that is their ceiling here. ` +
        `"CPU-based" is raw scrypt's CPU per hash (${scrypts.map((s) => s.cpuMsPerHash.toFixed(1)).join(", ")} ms) over the CPU one request costs the platform and load generator: ` +
        `the share of raw scrypt throughput reachable with the machine to ourselves, and far steadier than req/s when other work shares the machine. ` +
        `"CPU besides hashing" is what a successful request cost the platform and load generator apart from identity's scrypt threads: on shared cores the CPU-based share is about raw / (raw + that), ` +
        `so it, unlike the share, does not depend on how fast this machine derives.`,
    );
  }
  if (memoryRows.length) {
    log("");
    log("| process | cache | peak RSS (VmHWM) | RSS at end |");
    log("|---|---|---:|---:|");
    for (const row of memoryRows) log(`| ${row.process} | ${row.backend} | ${mib(row.peak)} | ${mib(row.current)} |`);
    if (baselinePeak) log(`| baseline express | - | ${mib(baselinePeak)} | |`);
  }
  const slow = rows.find((r) => r.scenario === "get-session" && r.ours.rps < 3_000);
  if (slow) log(`\nNote: get-session (${slow.backend}) is below 3,000 req/s; see bench/README.md for what to look at.`);
  const thin = rows.filter((r) => r.ours.total < 50);
  if (thin.length) log(`\nNote: fewer than 50 responses in ${thin.map((r) => `${r.scenario}/${r.backend}`).join(", ")}: raise BENCH_DURATION for a steadier figure.`);
  const failed = rows.filter((r) => r.ours.non2xx || r.ours.errors || r.baseline.non2xx || r.baseline.errors);
  if (failed.length) log(`\nWARNING: non-2xx responses or errors in ${failed.map((r) => `${r.scenario}/${r.backend}`).join(", ")}: those figures are not valid.`);
  if (process.env.BENCH_JSON) {
    writeFileSync(
      process.env.BENCH_JSON,
      JSON.stringify({ duration: DURATION, warmup: WARMUP, connections: CONNECTIONS, authConnections: AUTH_CONNECTIONS, rows, mixed: mixedRows, memory: memoryRows }, null, 2),
    );
    log(`\n(JSON written to ${process.env.BENCH_JSON})`);
  }
}

// -------------------------------------------------------------------------------------------------- main

async function chooseBackends(all: boolean, flags: Set<string>): Promise<Backend[]> {
  const redisWanted = flags.has("--redis") || flags.has("--both") || Boolean(process.env.BENCH_REDIS_URL);
  if (flags.has("--memory")) return ["memory"];
  if (all || flags.has("--both")) {
    if (await redisAnswers(REDIS_URL)) return flags.has("--redis") ? ["redis"] : ["memory", "redis"];
    if (flags.has("--redis")) throw new Error(`--redis: Redis at ${REDIS_URL} does not answer`);
    log(`Redis at ${REDIS_URL} does not answer: memory cache only`);
    return ["memory"];
  }
  if (redisWanted) {
    if (!(await redisAnswers(REDIS_URL))) throw new Error(`Redis at ${REDIS_URL} does not answer`);
    return ["redis"];
  }
  return ["memory"];
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const flags = new Set(args.filter((a) => a.startsWith("--")));
  const named = args.filter((a) => !a.startsWith("--"));
  const all = named.length === 0 || named.includes("all");
  const unknown = named.filter((a) => a !== "all" && !SCENARIOS.includes(a as Scenario));
  if (unknown.length) throw new Error(`usage: tsx bench/run.ts [${SCENARIOS.join("|")}|all]... [--redis|--memory|--both]`);
  const scenarios = all ? SCENARIOS : (named as Scenario[]);
  if (PIN) {
    const why = cannotPin(CPU_COUNT);
    if (why) return log(`BENCH_PIN=1 skipped: ${why}`);
    pinToCpus(process.pid, OTHER_CPUS);
  }
  const backends = await chooseBackends(all, flags);
  if (FROM_BUILD) {
    const started = Date.now();
    await buildPlatform();
    log(`built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  log(
    `bench ${RUN_ID}: ${scenarios.join(", ")} with ${backends.join(" and ")} cache, platform from ${FROM_BUILD ? "the build (dist/)" : "source (tsx)"}${PIN ? `; identity and raw scrypt on CPU ${IDENTITY_CPUS}, the rest on ${OTHER_CPUS}` : ""}; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );

  for (const backend of backends) {
    const platform = await startPlatform(backend);
    try {
      for (const scenario of scenarios) {
        log(`${scenario} (${backend})`);
        if (scenario === "get-session") await getSession(platform);
        else if (scenario === "ok") await ok(platform);
        else if (scenario === "sign-in") await signIn(platform);
        else if (scenario === "mixed") await mixed(platform);
        else await signUpScenario(platform);
      }
    } finally {
      await stopPlatform(platform);
    }
  }
  report();
}

let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    if (interrupted) return;
    interrupted = true;
    process.stderr.write(`\n${signal}: stopping the platform processes\n`);
    void stopAll().finally(() => {
      for (const dir of tempDirs) removeTempDir(dir);
      process.exit(130);
    });
  });
}
process.on("exit", killAllNow);

main().then(
  () => process.exit(0),
  async (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    await stopAll();
    for (const dir of tempDirs) removeTempDir(dir);
    process.exit(1);
  },
);
