/**
 * `make upgrade-test`: a rolling upgrade and its rollback under traffic (docs/upgrades.md). The previous
 * release (UPGRADE_FROM, default the commit deploy/previous-release names), built from its own checkout, runs
 * on PostgreSQL (TEST_DATABASE_URL) and Redis (TEST_REDIS_URL) with two replicas of every process, each
 * pair behind a round-robin proxy as a Kubernetes Service is. Sign-ups, sign-ins, get-sessions,
 * organization and admin calls run at a steady pace while the new release's `migrate --check` and `migrate`
 * run and its processes replace the previous ones one at a time (services, then the gateway), and again
 * while the previous release replaces them back. Prints, per phase, the requests sent, those that failed
 * (no answer, or not 2xx) and the held sessions that answered as signed out, then checks every session
 * made during the run once more. Exits 1 on any failed request, lost session or replica that did not stop
 * cleanly.
 *
 *   tsx scripts/upgrade-test.ts
 */
import { execFile, execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, globSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { promisify } from "node:util";
import { buildPlatform } from "../deploy/build.js";
import { ensureDevCertificates } from "../deploy/dev-certs.js";
import { launcherEnv } from "../deploy/launcher.js";
import { ROOT, type StartedProcess, startProcess } from "../deploy/processes.js";
import { createTestDatabase, dropDatabases, TEST_DATABASE_URL, TEST_REDIS_URL, testRedisPrefix } from "../testing/databases.js";
import { TestClient, uniqueEmail } from "../testing/http.js";
import { freePorts } from "../testing/ports.js";
import { type Balancer, startBalancer } from "../testing/tcp-relay.js";

const run = promisify(execFile);

/** In the order the chart's Deployments come up and this test rolls them: the gateway, which calls them all, last. */
const SERVICES = ["session", "identity", "notification", "organization", "admin", "oauth", "sso"] as const;
type Kind = (typeof SERVICES)[number] | "gateway";
const KINDS: Kind[] = [...SERVICES, "gateway"];
const REPLICAS = 2;
/** Requests each steady phase (before, between and after the rolls) runs. */
const STEADY_REQUESTS = 150;
/**
 * Requests a second each of the five traffic loops sends at most (UPGRADE_TEST_RATE): steady traffic as
 * users make it, not saturation. Unpaced, the sign-up and sign-in loops kept both cores hashing, and on a
 * loaded machine the replicas starting beside them held answers past the 5 s deadline.
 */
const LOOP_RATE = Number(process.env.UPGRADE_TEST_RATE ?? 5);
const PASSWORD = "upgrade-password-123";
/** As the chart's pods: terminationGracePeriodSeconds (30) less the preStop sleep (5), then SIGKILL. */
const STOP_GRACE_MS = 25_000;

interface Release {
  label: "previous" | "new";
  /** The build's folder: <kind>.js for each process. */
  dist: string;
}

function git(...args: string[]): string {
  return execFileSync("git", args, { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
}

/**
 * UPGRADE_FROM, else the release deploy/previous-release names (the one in production that this commit must
 * run beside; bumped when a release ships), else HEAD~1; undefined when the clone does not hold it.
 */
function previousCommit(): string | undefined {
  const named = readFileSync(join(ROOT, "deploy", "previous-release"), "utf8")
    .split("\n")
    .find((line) => line.trim() && !line.startsWith("#"));
  const ref = process.env.UPGRADE_FROM || named?.trim() || "HEAD~1";
  try {
    return git("rev-parse", "--verify", `${ref}^{commit}`);
  } catch {
    return undefined;
  }
}

/**
 * The previous release's checkout and build, in a folder of the commit's own (kept: a second run reuses
 * it). `git archive` leaves the shared .git alone. With the same package-lock.json its node_modules are
 * hard-linked copies of ours (relative links, so @auth-platform/* are its own workspaces); otherwise `npm ci`.
 */
async function buildPrevious(commit: string): Promise<Release> {
  const dir = join(tmpdir(), `auth-upgrade-test-${commit.slice(0, 12)}`);
  const dist = join(dir, "dist");
  const built = join(dist, ".built");
  if (existsSync(built)) return { label: "previous", dist };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync("sh", ["-c", `git archive ${commit} | tar -x -C "${dir}"`], { cwd: ROOT, stdio: "inherit" });
  if (readFileSync(join(dir, "package-lock.json"), "utf8") === readFileSync(join(ROOT, "package-lock.json"), "utf8")) {
    for (const modules of globSync(["node_modules", "*/node_modules", "*/*/node_modules"], { cwd: ROOT })) {
      if (existsSync(join(dir, modules, ".."))) execFileSync("cp", ["-al", join(ROOT, modules), join(dir, modules)]);
    }
  } else {
    await run("npm", ["ci", "--no-audit", "--no-fund"], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
  }
  // Its own build script, as its release was built.
  await run(process.execPath, ["--import", "tsx", "deploy/build.ts"], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
  writeFileSync(built, `${commit}\n`);
  return { label: "previous", dist };
}

/** Counts of one phase of the run. */
interface Tally {
  requests: number;
  failed: number;
  signedOut: number;
  /** The slowest answer of the phase, in ms: a failure by deadline shows how close the others came. */
  slowestMs: number;
  /** That answer's request and the time it was sent, to line it up with the roll's steps. */
  slowest: string;
  startedAt: number;
  endedAt?: number;
}

const tallies = new Map<string, Tally>();
const failures: string[] = [];
let phase = "";
let waiting: { count: number; resolve: () => void } | undefined;

function enter(name: string): void {
  const now = performance.now();
  if (name) console.log(`${clock()} upgrade-test: ${name}`);
  const current = tallies.get(phase);
  if (current) current.endedAt = now;
  phase = name;
  tallies.set(name, { requests: 0, failed: 0, signedOut: 0, slowestMs: 0, slowest: "", startedAt: now });
}

/** Resolves once the current phase has sent `count` requests (the steady phases). */
function untilRequests(count: number): Promise<void> {
  return new Promise((resolve) => (waiting = { count, resolve }));
}

/** One request through the gateways' proxy; a failure is no answer or an answer other than 2xx. */
async function send(client: TestClient, method: "GET" | "POST", path: string, json?: unknown) {
  const tally = tallies.get(phase)!;
  tally.requests++;
  const sent = performance.now();
  try {
    const res = await client.request(method, path, json === undefined ? {} : { json });
    if (res.status < 200 || res.status > 299) {
      tally.failed++;
      failures.push(`${clock()} ${phase}: ${method} ${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      return undefined;
    }
    return res;
  } catch (error) {
    tally.failed++;
    failures.push(`${clock()} ${phase}: ${method} ${path}: ${String((error as { cause?: unknown }).cause ?? error)}`);
    return undefined;
  } finally {
    const took = performance.now() - sent;
    if (took > tally.slowestMs) {
      tally.slowestMs = took;
      tally.slowest = `${method} ${path} sent at ${clock(sent)}`;
    }
    if (waiting && tallies.get(phase)!.requests >= waiting.count) {
      waiting.resolve();
      waiting = undefined;
    }
  }
}

async function main(): Promise<number> {
  if (!TEST_DATABASE_URL || !TEST_REDIS_URL) {
    console.error("upgrade-test: set TEST_DATABASE_URL (PostgreSQL) and TEST_REDIS_URL (Redis)");
    return 1;
  }
  const commit = previousCommit();
  if (!commit) {
    console.log("upgrade-test: the previous release's commit is not in this clone, skipped");
    return 0;
  }
  const began = performance.now();
  const work = join(ROOT, ".tmp", "upgrade-test");
  console.log(
    `upgrade-test: ${commit.slice(0, 12)} -> ${git("rev-parse", "--short=12", "HEAD")}${git("status", "--porcelain") ? " (with uncommitted changes)" : ""}: building both`,
  );
  const newRelease: Release = { label: "new", dist: join(work, "dist") };
  const [previous] = await Promise.all([buildPrevious(commit), buildPlatform(newRelease.dist)]);
  console.log(`upgrade-test: built in ${seconds(performance.now() - began)} s`);

  const databases = await Promise.all(SERVICES.map((name) => createTestDatabase(`upgrade_${name}`)));
  const balancers = new Map<Kind, Balancer>();
  const ports = await freePorts(KINDS.length * REPLICAS);
  const replicaPorts = new Map(KINDS.map((kind, i) => [kind, ports.slice(i * REPLICAS, (i + 1) * REPLICAS)]));
  for (const kind of KINDS) balancers.set(kind, await startBalancer(replicaPorts.get(kind)!));
  console.log(`upgrade-test: proxies on ${[...balancers].map(([kind, b]) => `${kind} ${b.port}`).join(", ")}`);
  const origin = `http://127.0.0.1:${balancers.get("gateway")!.port}`;
  const baseURL = `${origin}/api/auth`;
  const tls = await ensureDevCertificates(join(work, "tls"), KINDS);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(launcherEnv(work, { AUTH_BASE_URL: baseURL, AUTH_TRUSTED_ORIGINS: origin }))) if (value !== undefined) env[key] = value;
  Object.assign(env, {
    LOG_LEVEL: "warn",
    RATE_LIMIT_ENABLED: "false",
    // Both releases share the secret, the databases and Redis, as two releases of one deployment do.
    AUTH_SECRET: randomBytes(32).toString("base64url"),
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX: testRedisPrefix(),
    // As the chart's pods: the migration Job runs them (runMigrations below).
    MIGRATIONS: "skip",
  });
  SERVICES.forEach((name, i) => {
    env[`${name.toUpperCase()}_DATABASE_URL`] = databases[i]!.url;
    env[`${name.toUpperCase()}_SERVICE_URL`] = `127.0.0.1:${balancers.get(name)!.port}`;
  });

  const replicas = new Map<Kind, StartedProcess[]>(KINDS.map((kind) => [kind, []]));
  const uncleanExits: string[] = [];
  const start = async (release: Release, kind: Kind, slot: number) => {
    const port = replicaPorts.get(kind)![slot]!;
    const label = `${kind}-${slot ? "b" : "a"} (${release.label})`;
    const own = kind === "gateway" ? { PORT: String(port) } : { [`${kind.toUpperCase()}_PORT`]: String(port) };
    const started = await startProcess(kind, {
      entry: join(release.dist, `${kind}.js`),
      env: { ...env, ...own, GRPC_TLS_DIR: tls[kind]! },
      inheritEnv: false,
      label,
      port,
      timeoutMs: 60_000,
      onLine: (line) => process.stderr.write(`[${label}] ${line}\n`),
    });
    replicas.get(kind)![slot] = started;
  };
  const stop = async (kind: Kind, slot: number) => {
    const replica = replicas.get(kind)![slot]!;
    const code = await replica.stop("SIGTERM", STOP_GRACE_MS);
    if (code !== 0) uncleanExits.push(`${replica.name}: exit ${code}`);
  };
  /**
   * The chart's migration Job of each service: `migrate --check`, then `migrate` (skipped with `checkOnly`).
   * One service after the other: fourteen processes starting at once on two loaded cores held sign-ins past
   * their 5 s deadline.
   */
  const runMigrations = async (release: Release, checkOnly = false) => {
    for (const name of SERVICES) {
      for (const args of checkOnly ? [["--check"]] : [["--check"], []]) {
        const { stdout } = await run(process.execPath, [join(release.dist, `${name}.js`), "migrate", ...args], {
          env: { ...env, GRPC_TLS_DIR: tls[name]!, PATH: process.env.PATH ?? "" },
        });
        const lines = stdout.trim().split("\n").filter(Boolean);
        // The plan's summary line per service (UPGRADE_TEST_VERBOSE=1: the whole plan, SQL included).
        for (const line of process.env.UPGRADE_TEST_VERBOSE ? lines : lines.slice(0, 1)) console.log(`  ${name} (${release.label}) ${["migrate", ...args].join(" ")}: ${line}`);
      }
    }
  };
  /** Replaces every replica, one at a time, by the release's, each started before the next one stops. */
  const roll = async (release: Release) => {
    for (const kind of KINDS) {
      for (let slot = 0; slot < REPLICAS; slot++) {
        console.log(`${clock()} upgrade-test: ${kind}-${slot ? "b" : "a"} -> ${release.label}`);
        await stop(kind, slot);
        await start(release, kind, slot);
      }
    }
  };

  let stopping = false;
  const loops: Promise<void>[] = [];
  const stopAll = async () => {
    stopping = true;
    await Promise.allSettled(loops);
    await Promise.allSettled([...replicas.values()].flat().map((replica) => replica?.stop("SIGTERM")));
    await Promise.allSettled([...balancers.values()].map((balancer) => balancer.close()));
    await dropDatabases(databases);
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void stopAll().then(() => process.exit(130)));

  try {
    await runMigrations(previous);
    for (const kinds of [["session"], SERVICES.filter((name) => name !== "session"), ["gateway"]] as Kind[][]) {
      await Promise.all(kinds.flatMap((kind) => Array.from({ length: REPLICAS }, (_, slot) => start(previous, kind, slot))));
    }
    console.log(`upgrade-test: previous release up (${KINDS.length} processes x ${REPLICAS}) at ${seconds(performance.now() - began)} s`);

    // Users and sessions made on the previous release, an admin, and an organization owner.
    const headers = { origin };
    const accounts: { email: string }[] = [];
    const held: TestClient[] = [];
    enter("set-up");
    const signUp = async () => {
      const client = new TestClient(baseURL, headers);
      const email = uniqueEmail("upgrade");
      if (await send(client, "POST", "/sign-up/email", { name: "Upgrade", email, password: PASSWORD })) {
        accounts.push({ email });
        held.push(client);
      }
      return client;
    };
    for (let i = 0; i < 6; i++) await signUp();
    const owner = await signUp();
    const adminEmail = uniqueEmail("upgrade-admin");
    await run(process.execPath, [join(previous.dist, "admin-bootstrap.js"), "--email", adminEmail], {
      env: { ...env, GRPC_TLS_DIR: tls.admin!, ADMIN_BOOTSTRAP_PASSWORD: PASSWORD, PATH: process.env.PATH ?? "" },
    });
    const admin = new TestClient(baseURL, headers);
    await send(admin, "POST", "/sign-in/email", { email: adminEmail, password: PASSWORD });
    held.push(admin);
    if (tallies.get("set-up")!.failed > 0) throw new Error(`set-up failed:\n${failures.join("\n")}`);

    let signIns = 0;
    let organizations = 0;
    const loop = (body: () => Promise<unknown>) =>
      loops.push(
        (async () => {
          let next = performance.now();
          while (!stopping) {
            await body();
            next = Math.max(next + 1000 / LOOP_RATE, performance.now());
            await delay(Math.max(0, next - performance.now()));
          }
        })(),
      );
    loop(signUp);
    loop(async () => {
      const client = new TestClient(baseURL, headers);
      if (await send(client, "POST", "/sign-in/email", { email: accounts[signIns++ % accounts.length]!.email, password: PASSWORD })) held.push(client);
    });
    let checked = 0;
    const getSession = async () => {
      const client = held[checked++ % held.length]!;
      const res = await send(client, "GET", "/get-session");
      if (res && !res.body?.session) {
        tallies.get(phase)!.signedOut++;
        failures.push(`${phase}: a held session answered as signed out`);
      }
    };
    loop(getSession);
    loop(async () => {
      const slug = `upgrade-${organizations++}-${randomBytes(4).toString("hex")}`;
      await send(owner, "POST", "/organization/create", { name: slug, slug });
      await send(owner, "GET", "/organization/list");
    });
    loop(() => send(admin, "GET", "/admin/list-users?limit=10"));

    enter("previous release");
    await untilRequests(STEADY_REQUESTS);
    enter("upgrade (migrate, roll)");
    await runMigrations(newRelease);
    await roll(newRelease);
    enter("new release");
    await untilRequests(STEADY_REQUESTS);
    enter("rollback (check, roll)");
    await runMigrations(previous, true);
    await roll(previous);
    enter("previous again");
    await untilRequests(STEADY_REQUESTS);
    stopping = true;
    await Promise.all(loops);

    // Every session made during the run, asked once more on the release rolled back to.
    enter("every session, at the end");
    for (const client of held) {
      const res = await send(client, "GET", "/get-session");
      if (res && !res.body?.session) {
        tallies.get(phase)!.signedOut++;
        failures.push(`${phase}: a session made during the run answered as signed out`);
      }
    }
    enter("");

    console.log(`\n${"phase".padEnd(28)}${"requests".padStart(10)}${"failed".padStart(8)}${"signed out".padStart(12)}${"slowest ms".padStart(12)}${"seconds".padStart(9)}`);
    let failed = 0;
    let signedOut = 0;
    for (const [name, tally] of tallies) {
      if (!name || name === "set-up") continue;
      failed += tally.failed;
      signedOut += tally.signedOut;
      console.log(
        `${name.padEnd(28)}${String(tally.requests).padStart(10)}${String(tally.failed).padStart(8)}${String(tally.signedOut).padStart(12)}${String(Math.round(tally.slowestMs)).padStart(12)}${seconds((tally.endedAt ?? performance.now()) - tally.startedAt).padStart(9)}`,
      );
    }
    console.log(
      `sessions held: ${held.length}; replicas that did not stop cleanly: ${uncleanExits.length}; load ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`,
    );
    console.log(`proxied connections per replica port: ${[...balancers].map(([kind, b]) => `${kind} ${[...b.taken.values()].join("/")}`).join(", ")}`);
    for (const [name, tally] of tallies) if (name && tally.slowest) console.log(`  slowest in ${name}: ${tally.slowest}, ${Math.round(tally.slowestMs)} ms`);
    for (const line of [...failures.slice(0, 30), ...uncleanExits]) console.log(`  ${line}`);
    console.log(`upgrade-test: ${seconds(performance.now() - began)} s in all`);
    return failed === 0 && signedOut === 0 && uncleanExits.length === 0 ? 0 : 1;
  } finally {
    await stopAll();
  }
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);
/** The time of day (now, or a performance.now() reading), to line a failure up with the services' log lines. */
const clock = (at = performance.now()) => new Date(performance.timeOrigin + at).toISOString().slice(11, 23);

process.exitCode = await main();
