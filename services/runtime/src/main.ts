/** Runs a process's start-up; a configuration or start-up failure is printed plainly and exits 1. */
import { ConfigError } from "./config.js";

export function runMain(name: string, start: () => Promise<void>): void {
  start().catch((error: unknown) => {
    const detail = error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`${name}: failed to start\n${detail}\n`);
    process.exit(1);
  });
}
