/**
 * Runs a process's start-up; a configuration or start-up failure is printed plainly and exits 1.
 *
 * Every process starts tracing first when OTEL_EXPORTER_OTLP_ENDPOINT is set (tracing.ts; nothing is
 * loaded otherwise). A service reads MIGRATIONS (run, the default, or skip) and, started as
 * `node dist/<service>.js migrate`, only runs its database migrations and exits (store.ts,
 * migration-mode.ts).
 */
import { ConfigError } from "./config.js";
import type { RunningService } from "./service.js";
import { MigrationsDone, setMigrationMode } from "./migration-mode.js";
import { startTracing, stopTracing } from "./tracing.js";

export function runMain(name: string, start: () => Promise<void>): void {
  startTracing({ serviceName: name })
    .then(start)
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

/** A service process: starts it, and closes it gracefully on SIGTERM/SIGINT. */
export function runService(name: string, start: () => Promise<RunningService>): void {
  if (process.argv[2] === "migrate") {
    setMigrationMode("only");
    runMain(name, async () => {
      try {
        await start();
      } catch (error) {
        if (!(error instanceof MigrationsDone)) throw error;
        process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level: "info", service: name, msg: "migrations done" })}\n`);
        process.exit(0);
      }
      throw new Error("migrate: the service opened no database");
    });
    return;
  }
  runMain(name, async () => {
    setMigrationMode(migrationSetting(process.env.MIGRATIONS));
    const service = await start();
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      process.once(signal, () => {
        service.log.info("shutting down", { signal });
        void service
          .close()
          .then(() => stopTracing())
          .then(() => process.exit(0));
      });
    }
  });
}
