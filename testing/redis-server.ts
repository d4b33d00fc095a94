/**
 * A Redis server of a test's own, to stop and restart mid-flow without touching the machine's shared one.
 * It listens on a free loopback port and, after a restart, on the same one. With `persist`, it keeps an
 * append-only file (fsync on every write) in a temporary folder, so a server killed with SIGKILL comes back
 * with the keys it had, as a production Redis with AOF or a network partition would: the hard case for a
 * cache that must not serve revoked sessions. Without it (`--save "" --appendonly no`) a restart is empty.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually } from "./eventually.js";
import { freePorts } from "./ports.js";

/** Whether redis-server is on PATH (suites that need one skip with a message otherwise). */
export const REDIS_SERVER_INSTALLED = spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;

export interface TestRedisServer {
  url: string;
  port: number;
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
    kill,
    start,
    async close() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A TCP relay to a server, which a test can cut and restore: the clients behind it lose the server while
 * the others keep it (a partial outage).
 */
export interface Relay {
  url: string;
  /** The relay's own port on 127.0.0.1 (for a URL of another scheme: a PostgreSQL database behind it). */
  port: number;
  /** Closes every connection and refuses new ones: a server stopped, or a host that answers with a reset. */
  cut(): void;
  /** Forwards nothing more, either way, and leaves every connection (new ones too) open: a network partition. */
  partition(): void;
  /** Forwards again; the connections held open by a partition are closed, as their peers would time out. */
  restore(): void;
  close(): Promise<void>;
}

export async function startRelay(targetPort: number): Promise<Relay> {
  const sockets = new Set<Socket>();
  const silenced = new Set<Socket>();
  let state: "open" | "cut" | "partitioned" = "open";
  const server: Server = createServer((client) => {
    if (state === "cut") {
      client.destroy();
      return;
    }
    if (state === "partitioned") {
      client.on("error", () => undefined);
      silenced.add(client);
      return;
    }
    const upstream = createConnection({ port: targetPort, host: "127.0.0.1" });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.on("close", () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    cut() {
      state = "cut";
      for (const socket of sockets) socket.destroy();
    },
    partition() {
      state = "partitioned";
      for (const socket of sockets) {
        socket.unpipe();
        silenced.add(socket);
      }
    },
    restore() {
      state = "open";
      for (const socket of silenced) socket.destroy();
      silenced.clear();
    },
    async close() {
      state = "cut";
      for (const socket of [...sockets, ...silenced]) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
