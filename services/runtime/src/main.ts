/** Runs a process's start-up; a configuration or start-up failure is printed plainly and exits 1. */
import { ConfigError } from "./config.js";
import type { RunningService } from "./service.js";

export function runMain(name: string, start: () => Promise<void>): void {
  start().catch((error: unknown) => {
    const detail = error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`${name}: failed to start\n${detail}\n`);
    process.exit(1);
  });
}

/** A service process: starts it, and closes it gracefully on SIGTERM/SIGINT. */
export function runService(name: string, start: () => Promise<RunningService>): void {
  runMain(name, async () => {
    const service = await start();
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      process.once(signal, () => {
        service.log.info("shutting down", { signal });
        void service.close().then(() => process.exit(0));
      });
    }
  });
}
