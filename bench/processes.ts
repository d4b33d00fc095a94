/**
 * Child processes for the benchmark: each platform process (and the baseline server) runs in its own Node
 * process, started as `node --import tsx <entry>` so the PID we hold is the process doing the work (the
 * `tsx` CLI would add a wrapper process in between, and its /proc figures would be the wrapper's).
 */
import { type ChildProcess, execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { startProcess } from "../deploy/processes.js";

export const REPO_ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

export interface Child {
  name: string;
  pid: number;
  process: ChildProcess;
  /** Peak and current resident set size in bytes, from /proc (undefined once the process is gone). */
  memory(): { peak: number; current: number } | undefined;
  /** CPU time used so far (user + system, all threads) in ms, from /proc (undefined once gone). */
  cpuMs(): number | undefined;
  /** The same per kind of thread (main, libuv-worker, V8 worker, ...), from /proc/<pid>/task. */
  threadCpuMs(): Record<string, number>;
  stop(): Promise<void>;
}

const running = new Set<Child>();

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

/** CPU time a process (all its threads) has used so far, in ms, from /proc; undefined once it is gone. */
export function readCpuMs(pid: number, file = `/proc/${pid}/stat`): number | undefined {
  try {
    const stat = readFileSync(file, "utf8");
    // Fields after the command name (which is in parentheses and may hold spaces): state is field 3,
    // utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * CPU per kind of thread: the main thread ("main": the event loop, JS), libuv's threadpool ("libuv-worker":
 * scrypt, file system, DNS), V8's helpers ("V8 DefaultWorke": concurrent GC and compilation), and the rest.
 */
function readThreadCpuMs(pid: number): Record<string, number> {
  const byKind: Record<string, number> = {};
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return byKind;
  }
  for (const tid of tids) {
    try {
      const kind = tid === String(pid) ? "main" : readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
      const ms = readCpuMs(pid, `/proc/${pid}/task/${tid}/stat`);
      if (ms !== undefined) byKind[kind] = (byKind[kind] ?? 0) + ms;
    } catch {
      // the thread ended meanwhile
    }
  }
  return byKind;
}

/** Why this machine cannot pin processes to CPUs with pinToCpus, or undefined if it can. */
export function cannotPin(cpuCount: number): string | undefined {
  if (process.platform !== "linux" || cpuCount < 2) return "it needs Linux and 2 CPUs or more";
  try {
    execFileSync("taskset", ["--version"], { stdio: "ignore" });
  } catch {
    return "it needs taskset (util-linux)";
  }
  return undefined;
}

/** Pins every thread of `pid` to `cpus` (a taskset list: "1", "0-2"); the threads it starts later inherit it. Linux. */
export function pinToCpus(pid: number, cpus: string): void {
  execFileSync("taskset", ["--all-tasks", "--pid", "--cpu-list", cpus, String(pid)], { stdio: "ignore" });
}

/**
 * Starts `entry` (a path relative to the repository root) through the project's one launcher and resolves
 * once it is ready: its JSON log says "listening", or its port accepts connections. Lines at warn or above
 * (and anything not JSON) are echoed to our stderr with the process's name.
 */
export async function startChild(name: string, entry: string, env: Record<string, string>, port: number, timeoutMs = 60_000): Promise<Child> {
  // BENCH_CPU_PROF=<dir>: V8 CPU profiles of every child, written when it exits (open in Chrome DevTools).
  const nodeArgs = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`, `--cpu-prof-name=${name}-\${pid}.cpuprofile`] : [];
  // BENCH_NODE_ARGS: more Node flags for every child (--trace-gc, to line collections up with slow requests).
  if (process.env.BENCH_NODE_ARGS) nodeArgs.push(...process.env.BENCH_NODE_ARGS.split(" ").filter(Boolean));
  const echo = (line: string) => {
    let level: unknown;
    try {
      level = (JSON.parse(line) as { level?: unknown }).level;
    } catch {
      level = undefined;
    }
    if (level === undefined || level === "warn" || level === "error") process.stderr.write(`[${name}] ${line}\n`);
  };
  const started = await startProcess(name, { entry, env, inheritEnv: false, port, nodeArgs, timeoutMs, onLine: echo });
  const pid = started.child.pid!;
  let exited = false;
  void started.exited.then(() => (exited = true));
  const handle: Child = {
    name,
    pid,
    process: started.child,
    memory: () => (exited ? undefined : readMemory(pid)),
    cpuMs: () => (exited ? undefined : readCpuMs(pid)),
    threadCpuMs: () => (exited ? {} : readThreadCpuMs(pid)),
    async stop() {
      running.delete(handle);
      await started.stop();
    },
  };
  running.add(handle);
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

/**
 * Resolves once the processes together use under a tenth of a core (CPU read from /proc every 250 ms), or
 * false after `limitMs`: what a load left queued (sign-ins still hashing after their clients went) must not
 * run into the next measurement. Polled: the processes are not ours to be told when they are done.
 */
export async function untilIdle(pids: readonly number[], limitMs = 60_000): Promise<boolean> {
  const total = () => pids.reduce((sum, pid) => sum + (readCpuMs(pid) ?? 0), 0);
  const deadline = Date.now() + limitMs;
  let before = total();
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = total();
    if (now - before < 25) return true;
    before = now;
  }
  return false;
}
