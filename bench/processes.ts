/**
 * Child processes for the benchmark: each platform process (and the baseline server) runs in its own Node
 * process, started as `node --import tsx <entry>` so the PID we hold is the process doing the work (the
 * `tsx` CLI would add a wrapper process in between, and its /proc figures would be the wrapper's).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { createInterface } from "node:readline";

export const REPO_ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

export interface Child {
  name: string;
  pid: number;
  process: ChildProcess;
  /** Peak and current resident set size in bytes, from /proc (undefined once the process is gone). */
  memory(): { peak: number; current: number } | undefined;
  /** CPU time used so far (user + system, all threads) in ms, from /proc (undefined once gone). */
  cpuMs(): number | undefined;
  stop(): Promise<void>;
}

const running = new Set<Child>();

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

function readMemory(pid: number): { peak: number; current: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, "m").exec(status)?.[1] ?? NaN) * 1024;
    return { peak: kb("VmHWM"), current: kb("VmRSS") };
  } catch {
    return undefined;
  }
}

// Linux's USER_HZ: /proc/<pid>/stat counts CPU time in ticks of 1/100 s on every mainstream build.
const TICKS_PER_SECOND = 100;

function readCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which is in parentheses and may hold spaces): state is field 3,
    // utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * Starts `entry` (a path relative to the repository root) and resolves once it is ready: its JSON log
 * says "listening", or (when the log level hides info lines) its port accepts connections. Lines at warn
 * or above are echoed to our stderr with the process's name.
 */
export async function startChild(name: string, entry: string, env: Record<string, string>, port: number, timeoutMs = 60_000): Promise<Child> {
  // BENCH_CPU_PROF=<dir>: V8 CPU profiles of every child, written when it exits (open in Chrome DevTools).
  const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`, `--cpu-prof-name=${name}-\${pid}.cpuprofile`] : [];
  const child = spawn(process.execPath, [...profile, "--import", "tsx", entry], {
    cwd: REPO_ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (child.pid === undefined) throw new Error(`${name}: failed to spawn`);
  const pid = child.pid;
  let exited = false;
  const exitPromise = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  const handle: Child = {
    name,
    pid,
    process: child,
    memory: () => (exited ? undefined : readMemory(pid)),
    cpuMs: () => (exited ? undefined : readCpuMs(pid)),
    async stop() {
      running.delete(handle);
      if (exited) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => {
        if (!exited) child.kill("SIGKILL");
      }, 5_000);
      await exitPromise;
      clearTimeout(timer);
    },
  };
  running.add(handle);

  let ready = false;
  const stderrTail: string[] = [];
  createInterface({ input: child.stderr! }).on("line", (line) => {
    stderrTail.push(line);
    if (stderrTail.length > 40) stderrTail.shift();
    if (ready) process.stderr.write(`[${name}] ${line}\n`);
  });

  let markReady: () => void = () => {};
  const listening = new Promise<void>((resolve) => (markReady = resolve));
  createInterface({ input: child.stdout! }).on("line", (line) => {
    let entry: { msg?: unknown; level?: unknown } | undefined;
    try {
      entry = JSON.parse(line) as { msg?: unknown; level?: unknown };
    } catch {
      entry = undefined;
    }
    if (entry?.msg === "listening") markReady();
    if (!entry || entry.level === "warn" || entry.level === "error") process.stderr.write(`[${name}] ${line}\n`);
  });

  const deadline = Date.now() + timeoutMs;
  let polling = true;
  const polled = (async () => {
    while (polling && !exited && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      if (polling && (await portAccepts(port))) return;
    }
    if (polling) await new Promise(() => {}); // leave the verdict to the other outcomes
  })();
  const failed = exitPromise.then(() => {
    throw new Error(`${name} exited before it was ready (code ${child.exitCode})\n${stderrTail.join("\n")}`);
  });
  const timedOut = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${name}: not ready after ${timeoutMs} ms`)), timeoutMs).unref());
  try {
    await Promise.race([listening, polled, failed, timedOut]);
  } catch (error) {
    await handle.stop();
    throw error;
  } finally {
    polling = false;
  }
  failed.catch(() => {}); // a later exit is reported by whoever uses the process
  ready = true;
  return handle;
}

/** Stops every child still running (on the way out, including after an error or Ctrl-C). */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((child) => child.stop()));
}

/** Last resort on process exit: no child outlives us. */
export function killAllNow(): void {
  for (const child of running) {
    try {
      process.kill(child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  running.clear();
}
