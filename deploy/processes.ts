/**
 * Starts the platform's processes as real child processes (tsx over each main.ts) and waits until each
 * logs that it is listening. Used by the dev runner and by the tests that kill or replicate a service.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

export const ENTRY_POINTS = {
  identity: "services/identity/src/main.ts",
  session: "services/session/src/main.ts",
  notification: "services/notification/src/main.ts",
  gateway: "gateway/src/main.ts",
} as const;

export type ProcessName = keyof typeof ENTRY_POINTS;

export interface StartedProcess {
  name: string;
  child: ChildProcess;
  /** Every line the process wrote, for assertions and failure reports. */
  output: string[];
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<number | string>;
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

export interface StartOptions {
  env: Record<string, string | undefined>;
  /** A label for output (defaults to the process name). */
  label?: string;
  /** Called with each output line. */
  onLine?: (line: string) => void;
  timeoutMs?: number;
}

export async function startProcess(name: ProcessName, options: StartOptions): Promise<StartedProcess> {
  // node itself with tsx's loader (not the tsx CLI, which would add a wrapper process): the child's PID is
  // the service's, so a signal, SIGKILL included, reaches the service.
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, ENTRY_POINTS[name])], {
    cwd: ROOT,
    env: { ...process.env, PATH: `${join(ROOT, "node_modules", ".bin")}:${process.env.PATH}`, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const exited = new Promise<number | string>((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal ?? -1)));
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start in time:\n${output.join("\n")}`)), options.timeoutMs ?? 30_000);
    const onData = (chunk: Buffer) => {
      for (const line of chunk.toString().split("\n").filter(Boolean)) {
        output.push(line);
        options.onLine?.(line);
        if (line.includes('"msg":"listening"')) {
          clearTimeout(timer);
          resolve();
        }
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code}) before listening:\n${output.join("\n")}`));
    });
  });
  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
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
