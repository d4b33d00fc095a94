/**
 * A Redis server of a test's own, to stop and restart mid-flow without touching the machine's shared one.
 * It listens on a free loopback port and, after a restart, on the same one. With `persist`, it keeps an
 * append-only file (fsync on every write) in a temporary folder, so a server killed with SIGKILL comes back
 * with the keys it had, as a production Redis with AOF or a network partition would: the hard case for a
 * cache that must not serve revoked sessions. Without it (`--save "" --appendonly no`) a restart is empty.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually } from "./eventually.js";
import { freePorts } from "./ports.js";

/** Whether redis-server is on PATH (suites that need one skip with a message otherwise). */
export const REDIS_SERVER_INSTALLED = spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;

export interface TestRedisServer {
  url: string;
  port: number;
  /** The redis-server process's id while it runs (a benchmark reads its CPU time from /proc). */
  pid(): number | undefined;
  /** Kills the server (SIGKILL) and waits until it is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port (nothing to do while it runs). */
  start(): Promise<void>;
  /** Kills it and removes its files. */
  close(): Promise<void>;
}

async function waitForPort(port: number, up: boolean, timeoutMs = 10_000): Promise<void> {
  await eventually(async () => {
    const accepts = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: "127.0.0.1" });
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (accepts !== up) throw new Error(`redis-server on port ${port} did not ${up ? "start" : "stop"} in time`);
  }, timeoutMs);
}

/** `args`: more redis-server arguments (later ones win), e.g. TLS on the port instead of plaintext, or ACL users. */
export async function startRedisServer(options: { persist?: boolean; args?: (port: number) => string[] } = {}): Promise<TestRedisServer> {
  const [port] = await freePorts(1);
  const dir = mkdtempSync(join(tmpdir(), "auth-test-redis-"));
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--dir", dir, "--logfile", ""];
  args.push(...(options.persist ? ["--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"]));
  args.push(...(options.args?.(port!) ?? []));
  let child: ChildProcess | undefined;
  const running = () => !!child && child.exitCode === null && child.signalCode === null;
  const start = async () => {
    if (running()) return;
    child = spawn("redis-server", args, { stdio: "ignore" });
    await waitForPort(port!, true);
  };
  const kill = async () => {
    if (!running()) return;
    const exited = new Promise((resolve) => child!.once("exit", resolve));
    child!.kill("SIGKILL");
    await exited;
    await waitForPort(port!, false);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port: port!,
    pid: () => (running() ? child!.pid : undefined),
    kill,
    start,
    async close() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
