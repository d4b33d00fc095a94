/**
 * Starts the platform's processes as real child processes and waits until each logs that it is listening:
 * from source (node with tsx's loader over each main.ts) or from the build (plain node over dist/*.js).
 * Used by the dev runner, the production launcher, the benchmarks and the tests that kill or replicate a
 * service.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { connect } from "node:net";
import { createInterface } from "node:readline";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

export const ENTRY_POINTS = {
  identity: "services/identity/src/main.ts",
  session: "services/session/src/main.ts",
  notification: "services/notification/src/main.ts",
  oauth: "services/oauth/src/main.ts",
  organization: "services/organization/src/main.ts",
  admin: "services/admin/src/main.ts",
  sso: "services/sso/src/main.ts",
  gateway: "gateway/src/main.ts",
  // The web app: Vite's dev server from source; the build runs web/server/main.ts instead (WEB_SERVER_SOURCE).
  web: "web/server/dev.ts",
  // An operator command, not a server: creates the first admin or promotes a user (README).
  "admin-bootstrap": "services/admin/src/bootstrap.ts",
  // An operator command: moves a better-auth app's users into the services' stores (docs/importing-from-better-auth.md).
  "import-better-auth": "deploy/import-better-auth/main.ts",
} as const;

/** The web process of the build: the static server with the /api/auth proxy (deploy/build.ts compiles it). */
export const WEB_SERVER_SOURCE = "web/server/main.ts";

export type ProcessName = keyof typeof ENTRY_POINTS;

/** Each process's compiled file, written by `npm run build` (deploy/build.ts). */
export const BUILT_ENTRY: Record<ProcessName, string> = {
  identity: "dist/identity.js",
  session: "dist/session.js",
  notification: "dist/notification.js",
  oauth: "dist/oauth.js",
  organization: "dist/organization.js",
  admin: "dist/admin.js",
  sso: "dist/sso.js",
  gateway: "dist/gateway.js",
  web: "dist/web.js",
  "admin-bootstrap": "dist/admin-bootstrap.js",
  "import-better-auth": "dist/import-better-auth.js",
};

/**
 * Node flags of each process, wherever it runs (this launcher, from source or built, and the chart's
 * commands in charts/auth-platform/values.yaml). --expose-gc lets every server run one memory-reducing
 * collection a second after start-up (collectStartupGarbage in services/runtime/src/main.ts), which gives
 * back what start-up left: about 20 MiB of idle RSS in the gateway, up to 7 MiB in each service. Every
 * server bounds V8's young generation (--max-semi-space-size, in MiB), whose default V8 derives from the
 * host's memory (64 MiB on a 24 GiB host, far less in a pod with a memory limit). The gateway and the
 * session service, which get-session reaches, also grow their old generation by half its live size between
 * full collections (--heap-growing-percent) instead of up to four times: under get-session load the
 * gateway otherwise grew to 230 to 280 MiB and the session service to 145 to 160 MiB, with no CPU per
 * request the measurements resolve (docs/adr/0058-gateway-heap-bounded-under-load.md).
 */
export const NODE_FLAGS: Record<ProcessName, string[]> = {
  identity: ["--max-semi-space-size=1", "--expose-gc"],
  session: ["--max-semi-space-size=1", "--heap-growing-percent=50", "--expose-gc"],
  notification: ["--max-semi-space-size=1", "--expose-gc"],
  oauth: ["--max-semi-space-size=1", "--expose-gc"],
  organization: ["--max-semi-space-size=1", "--expose-gc"],
  admin: ["--max-semi-space-size=1", "--expose-gc"],
  sso: ["--max-semi-space-size=1", "--expose-gc"],
  gateway: ["--max-semi-space-size=4", "--heap-growing-percent=50", "--expose-gc"],
  web: [],
  "admin-bootstrap": [],
  // The import holds a few pages at a time; without bounds V8 let its heap grow to 350 MiB over 100,000 users
  // (bench/import-better-auth.ts). A 2 MiB young generation promoted every page written (a third of the
  // import's CPU went to the collector); at 16 MiB most of a page dies young: 30 % less CPU, peak near 220 MiB.
  "import-better-auth": ["--max-semi-space-size=16", "--max-old-space-size=256"],
};

/**
 * glibc's allocator settings for every process (the image's default; the chart sets them in each
 * container's `env`): one malloc arena for every thread instead of one per thread that allocates (the
 * threadpool's, V8's helpers), and a fixed 128 KiB threshold above which an allocation is mapped on its
 * own and returned to the kernel when freed. Left to itself glibc raises that threshold after the first
 * such free, so start-up's large transient buffers stayed in the heap. Together 3 to 6 MiB less idle RSS
 * per process, with the same CPU per request (docs/adr/0027-build-and-memory-footprint.md).
 */
export const MALLOC_TUNABLES = "glibc.malloc.arena_max=1:glibc.malloc.mmap_threshold=131072";

/**
 * Environment of each process wherever this launcher starts it (the chart and the image give the same).
 * identity adds transparent huge pages for the 32 MiB scrypt allocates and frees for every derivation
 * (glibc 2.35 or later, with the kernel's THP in `madvise` or `always` mode; a no-op elsewhere): the kernel
 * zeroes far fewer, larger pages, and a derivation costs about 14 % less CPU
 * (docs/adr/0026-identity-hashing-threads.md).
 */
export const PROCESS_ENV = Object.fromEntries(
  (Object.keys(ENTRY_POINTS) as ProcessName[]).map((name) => [name, { GLIBC_TUNABLES: name === "identity" ? `glibc.malloc.hugetlb=1:${MALLOC_TUNABLES}` : MALLOC_TUNABLES }]),
) as Record<ProcessName, { GLIBC_TUNABLES: string }>;

export interface StartedProcess {
  name: string;
  child: ChildProcess;
  /** Every line the process wrote, for assertions and failure reports. */
  output: string[];
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<number | string>;
  /** Sends the signal (SIGTERM by default) and, if the process is still up after `graceMs` (5 s), SIGKILL. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | string>;
}

export interface StartOptions {
  env: Record<string, string | undefined>;
  /** Start from this process's environment (default true); false gives the child `env` and PATH only. */
  inheritEnv?: boolean;
  /** The file to run, relative to the repository root or absolute (another checkout's build; defaults to the process's entry point); a `.js` file runs on plain node. */
  entry?: string;
  /** A label for output (defaults to the process name). */
  label?: string;
  /** Also ready once this port accepts connections (for log levels that hide the "listening" line). */
  port?: number;
  /** Extra flags for node (e.g. --cpu-prof). */
  nodeArgs?: string[];
  /** Called with each output line. */
  onLine?: (line: string) => void;
  timeoutMs?: number;
}

function portAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

export async function startProcess(name: ProcessName | string, options: StartOptions): Promise<StartedProcess> {
  const entry = options.entry ?? ENTRY_POINTS[name as ProcessName];
  if (!entry) throw new Error(`no entry point for ${name}`);
  // node itself (with tsx's loader for TypeScript; not the tsx CLI, which would add a wrapper process): the
  // child's PID is the service's, so a signal, SIGKILL included, reaches the service.
  const loader = entry.endsWith(".ts") ? ["--import", "tsx"] : [];
  const flags = NODE_FLAGS[name as ProcessName] ?? [];
  const child = spawn(process.execPath, [...flags, ...(options.nodeArgs ?? []), ...loader, resolve(ROOT, entry)], {
    cwd: ROOT,
    env: {
      ...(options.inheritEnv === false ? {} : process.env),
      PATH: `${join(ROOT, "node_modules", ".bin")}:${process.env.PATH}`,
      ...PROCESS_ENV[name as ProcessName],
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const exited = new Promise<number | string>((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal ?? -1)));
  let done = false;
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start in time:\n${output.join("\n")}`)), options.timeoutMs ?? 30_000);
    const finish = (error?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve();
    };
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on("line", (line) => {
        output.push(line);
        options.onLine?.(line);
        if (line.includes('"msg":"listening"')) finish();
      });
    }
    void exited.then((code) => finish(new Error(`${name} exited (${code}) before listening:\n${output.join("\n")}`)));
    if (options.port !== undefined) {
      const port = options.port;
      void (async () => {
        while (!done) {
          await new Promise((wait) => setTimeout(wait, 150));
          if (!done && (await portAccepts(port))) finish();
        }
      })();
    }
  });
  const stop = async (signal: NodeJS.Signals = "SIGTERM", graceMs = 5_000) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
      const force = setTimeout(() => child.kill("SIGKILL"), graceMs);
      force.unref();
      void exited.then(() => clearTimeout(force));
    }
    return exited;
  };
  try {
    await ready;
  } catch (error) {
    await stop("SIGKILL");
    throw error;
  }
  return { name: options.label ?? name, child, output, exited, stop };
}
