/**
 * Runs a process's start-up; a configuration or start-up failure is printed plainly and exits 1.
 *
 * Every process starts tracing first when OTEL_EXPORTER_OTLP_ENDPOINT is set (tracing.ts; nothing is
 * loaded otherwise). A service reads MIGRATIONS (run, the default, or skip) and, started as
 * `node dist/<service>.js migrate`, only runs its database migrations and exits; `migrate --plan` prints
 * what would run and `migrate --check` fails when this release cannot serve on the database (store.ts,
 * migration-mode.ts, docs/upgrades.md).
 */
import { ConfigError } from "./config.js";
import type { RunningService } from "./service.js";
import { MigrationsDone, setMigrationMode } from "./migration-mode.js";
import { startTracing, stopTracing } from "./tracing.js";

/** When the collection below runs: after start-up, late enough to take what first connections and retries leave too. */
const STARTUP_GC_DELAY_MS = 1_000;

/**
 * One full, memory-reducing garbage collection (V8's "last resort" flavour) a second after start-up.
 * Start-up (the bundle's modules, MikroORM's entity discovery, gRPC and express set-up) grows the young
 * generation (in the gateway to V8's maximum, 16 MiB) and leaves garbage in half-empty old-generation
 * pages, and V8 gives neither back while the process idles: an idle process allocates too little to
 * trigger a collection, and V8's memory reducer never ran in one here. A plain full collection frees the
 * garbage but keeps the pages resident; this one also shrinks the young generation to its minimum and
 * releases the free pages. Measured with bench/footprint.ts (docs/adr/0027-build-and-memory-footprint.md): about 20 MiB less idle
 * RSS in the gateway and up to 7 MiB in each service (identity least), for one pause of 45 to 80 ms (V8
 * runs two collections), once. The young generation grows back under load up to the bound NODE_FLAGS
 * gives it. Needs node's --expose-gc (NODE_FLAGS in deploy/processes.ts); without it
 * nothing happens. Returns whether it collected.
 */
export function collectStartupGarbage(): boolean {
  if (typeof globalThis.gc !== "function") return false;
  globalThis.gc({ type: "major", execution: "sync", flavor: "last-resort" });
  return true;
}

export function runMain(name: string, start: () => Promise<void>): void {
  startTracing({ serviceName: name })
    .then(start)
    .then(() => void setTimeout(collectStartupGarbage, STARTUP_GC_DELAY_MS).unref())
    .catch((error: unknown) => {
      const detail = error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
      process.stderr.write(`${name}: failed to start\n${detail}\n`);
      process.exit(1);
    });
}

/** MIGRATIONS: run (default) or skip; anything else is a configuration error. */
function migrationSetting(value: string | undefined): "run" | "skip" {
  if (value === undefined || value === "" || value === "run") return "run";
  if (value === "skip") return "skip";
  throw new ConfigError([`MIGRATIONS: must be run or skip (got ${JSON.stringify(value)})`]);
}

/** `migrate` runs the migrations; `migrate --plan` prints what would run, `migrate --check` judges the database. */
function migrateMode(flag: string | undefined): "only" | "plan" | "check" {
  if (flag === undefined) return "only";
  if (flag === "--plan") return "plan";
  if (flag === "--check") return "check";
  throw new ConfigError([`migrate: unknown option ${JSON.stringify(flag)} (use --plan or --check, or none to migrate)`]);
}

/**
 * The longest a service process takes to close on SIGTERM before it gives up: the in-flight calls get up
 * to 10 s (grpc-server.ts), the dependencies the rest. Under the chart's terminationGracePeriodSeconds
 * (30 s), so a close that hangs ends with a log line saying what it waited for and exit code 1, instead of
 * a silent SIGKILL from the kubelet (or, outside Kubernetes, a process that never exits).
 */
export const CLOSE_LIMIT_MS = 20_000;

/**
 * Closes a running service, or stops waiting after `limitMs`: then logs what the close was still waiting
 * for (RunningService.closing) and resolves false. Resolves true once the service closed.
 */
export function closeWithin(service: Pick<RunningService, "close" | "closing" | "log">, limitMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const limit = setTimeout(() => {
      service.log.error("shutdown did not finish in time", { limitMs, waitingFor: service.closing() ?? "unknown" });
      resolve(false);
    }, limitMs);
    limit.unref();
    service.close().then(
      () => {
        clearTimeout(limit);
        resolve(true);
      },
      (error: unknown) => {
        clearTimeout(limit);
        service.log.error("shutdown failed", { error });
        resolve(false);
      },
    );
  });
}

/**
 * On SIGTERM or SIGINT: logs it, closes within `limitMs` (closeWithin), then exits 0, or 1 when the close
 * failed or did not end in time. Every process (services, gateway, web) stops this way.
 */
export function closeOnSignals(closeable: Pick<RunningService, "close" | "closing" | "log">, limitMs: number): void {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      closeable.log.info("shutting down", { signal });
      void closeWithin(closeable, limitMs).then((closed) => process.exit(closed ? 0 : 1));
    });
  }
}

/** A service process: starts it, and closes it gracefully on SIGTERM/SIGINT (at most CLOSE_LIMIT_MS). */
export function runService(name: string, start: () => Promise<RunningService>): void {
  if (process.argv[2] === "migrate") {
    runMain(name, async () => {
      setMigrationMode(migrateMode(process.argv[3]));
      try {
        await start();
      } catch (error) {
        if (!(error instanceof MigrationsDone)) throw error;
        if (process.argv[3] === undefined) {
          process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level: "info", service: name, msg: "migrations done" })}\n`);
        } else {
          process.stdout.write(`${name}: ${error.report}\n`);
        }
        process.exit(error.failed ? 1 : 0);
      }
      throw new Error("migrate: the service opened no database");
    });
    return;
  }
  runMain(name, async () => {
    setMigrationMode(migrationSetting(process.env.MIGRATIONS));
    const service = await start();
    // The traces still buffered go out last, within the same limit (an unreachable collector must not hold the exit).
    let exportingTraces = false;
    const close = async () => {
      await service.close();
      exportingTraces = true;
      await stopTracing();
    };
    closeOnSignals({ log: service.log, close, closing: () => (exportingTraces ? "trace export" : service.closing()) }, CLOSE_LIMIT_MS);
  });
}
