/**
 * A Redis Cluster of a test's own on free loopback ports (three primaries with a replica each, slots spread by
 * `redis-cli --cluster create`), to run the platform as operators run Redis at scale and to fail a primary
 * over mid-traffic (docs/adr/0080-redis-cluster-and-sentinel.md); redis-sentinel.ts is its Sentinel twin.
 * Every server is a child of this process in a temporary folder, and close() kills each by its pid.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { eventually } from "./eventually.js";
import { freePorts } from "./ports.js";

const run = promisify(execFile);

/** One redis-cli command against a loopback port; its trimmed output. */
export async function redisCli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run("redis-cli", ["-h", "127.0.0.1", "-p", String(port), ...args], { timeout: 10_000 });
  return stdout.trim();
}

/** A field of an INFO-like `name:value` answer (CLUSTER INFO, INFO replication). */
export const infoField = (info: string, name: string) =>
  info
    .split(/\r?\n/)
    .find((line) => line.startsWith(`${name}:`))
    ?.slice(name.length + 1)
    .trim();

export interface Server {
  port: number;
  child: ChildProcess;
}

export const running = (server: Server) => server.child.exitCode === null && server.child.signalCode === null;

/** A redis-server with `args` on a loopback port, answering PING. */
export async function startServer(dir: string, port: number, args: string[]): Promise<Server> {
  const child = spawn("redis-server", [...args, "--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no", "--logfile", ""], {
    stdio: "ignore",
  });
  const server = { port, child };
  await eventually(async () => {
    if (!running(server)) throw new Error(`redis-server on ${port} exited`);
    if ((await redisCli(port, "ping")) !== "PONG") throw new Error(`redis-server on ${port} not answering`);
  }, 10_000);
  return server;
}

/** Kills (SIGKILL) a server and waits for it to exit. */
export async function killServer(server: Server): Promise<void> {
  if (!running(server)) return;
  const exited = new Promise((resolve) => server.child.once("exit", resolve));
  server.child.kill("SIGKILL");
  await exited;
}

export interface TestRedisCluster {
  /** The primaries' and replicas' addresses, as REDIS_CLUSTER_NODES takes them. */
  nodes: string;
  ports: number[];
  /** The port of the primary serving `key`'s slot. */
  primaryOf(key: string): Promise<number>;
  /**
   * Fails the primary of `key`'s slot over to its replica (CLUSTER FAILOVER on the replica, the old primary
   * stays up as its replica) and waits until the cluster says the replica took over. Returns the new primary.
   */
  failover(key: string): Promise<number>;
  /** Kills (SIGKILL) the primary of `key`'s slot; its replica is promoted once the others agree it is down. */
  killPrimaryOf(key: string): Promise<number>;
  /** Kills (SIGKILL) the node on `port`, whatever its role, and waits until the others serve every slot again. */
  killNode(port: number): Promise<void>;
  close(): Promise<void>;
}

/** Waits until every running node says the cluster is ok and serves every slot. */
async function clusterOk(ports: number[], timeoutMs = 20_000): Promise<void> {
  await eventually(async () => {
    for (const port of ports) {
      const info = await redisCli(port, "cluster", "info");
      if (infoField(info, "cluster_state") !== "ok" || infoField(info, "cluster_slots_ok") !== "16384") throw new Error(`cluster not ok on ${port}: ${info}`);
    }
  }, timeoutMs);
}

/** Three primaries and, with `replicas` (default true), one replica of each. */
export async function startRedisCluster(options: { replicas?: boolean } = {}): Promise<TestRedisCluster> {
  const count = options.replicas === false ? 3 : 6;
  const ports = await freePorts(count);
  const dir = mkdtempSync(join(tmpdir(), "auth-test-redis-cluster-"));
  const servers: Server[] = [];
  const close = async () => {
    await Promise.all(servers.map(killServer));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports) {
      servers.push(
        // A node unseen for a second is failed over: the failover test stays well under a minute.
        await startServer(dir, port, ["--cluster-enabled", "yes", "--cluster-config-file", `nodes-${port}.conf`, "--cluster-node-timeout", "1000"]),
      );
    }
    const addresses = ports.map((port) => `127.0.0.1:${port}`);
    await run("redis-cli", ["--cluster", "create", ...addresses, "--cluster-replicas", count === 6 ? "1" : "0", "--cluster-yes"], { timeout: 30_000 });
    await clusterOk(ports);
  } catch (error) {
    await close();
    throw error;
  }
  const live = () => servers.filter(running).map((server) => server.port);
  const primaryOf = async (key: string) => {
    const slot = await redisCli(live()[0]!, "cluster", "keyslot", key);
    for (const port of live()) {
      const role = await redisCli(port, "role");
      if (!role.startsWith("master")) continue;
      const nodes = await redisCli(port, "cluster", "nodes");
      const me = nodes.split("\n").find((line) => line.includes("myself"))!;
      const ranges = me.split(" ").slice(8);
      if (
        ranges.some((range) => {
          const [low, high = low] = range.split("-").map(Number);
          return Number(slot) >= low! && Number(slot) <= high!;
        })
      )
        return port;
    }
    throw new Error(`no primary serves ${key}`);
  };
  const replicaOf = async (primary: number) => {
    for (const port of live()) {
      const info = await redisCli(port, "info", "replication");
      if (infoField(info, "role") === "slave" && infoField(info, "master_port") === String(primary)) return port;
    }
    throw new Error(`no replica of ${primary}`);
  };
  return {
    nodes: ports.map((port) => `127.0.0.1:${port}`).join(","),
    ports,
    primaryOf,
    async failover(key) {
      const primary = await primaryOf(key);
      const replica = await eventually(() => replicaOf(primary), 10_000);
      await redisCli(replica, "cluster", "failover");
      await eventually(async () => {
        if ((await primaryOf(key)) !== replica) throw new Error("failover not done");
      }, 20_000);
      await clusterOk(live());
      return replica;
    },
    async killPrimaryOf(key) {
      const primary = await primaryOf(key);
      const replica = await eventually(() => replicaOf(primary), 10_000);
      await killServer(servers.find((server) => server.port === primary)!);
      await eventually(async () => {
        if (!(await redisCli(replica, "role")).startsWith("master")) throw new Error("replica not promoted");
      }, 20_000);
      await clusterOk(live());
      return replica;
    },
    async killNode(port) {
      await killServer(servers.find((server) => server.port === port)!);
      await clusterOk(live());
    },
    close,
  };
}
