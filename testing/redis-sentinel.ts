/**
 * Redis with Sentinel of a test's own on free loopback ports: one primary, one replica and one sentinel (quorum
 * 1) watching them, to run the platform against it and fail the primary over mid-traffic
 * (docs/adr/0080-redis-cluster-and-sentinel.md). The sentinel is redis-server with --sentinel (Debian's
 * redis-sentinel package may be missing). close() kills each server by its pid.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually } from "./eventually.js";
import { freePorts } from "./ports.js";
import { infoField, killServer, redisCli, type Server, startServer } from "./redis-cluster.js";

export interface TestRedisSentinel {
  /** The sentinels' addresses, as REDIS_SENTINELS takes them, and the primary's name (REDIS_SENTINEL_NAME). */
  sentinels: string;
  name: string;
  /** The port of the node the sentinel reports as primary now. */
  primary(): Promise<number>;
  /** Asks the sentinel to fail the primary over (SENTINEL FAILOVER) and waits for the new primary to take writes. */
  failover(): Promise<number>;
  close(): Promise<void>;
}

/** Starts the three; the sentinel fails the primary over within about a second of losing it. */
export async function startRedisSentinel(): Promise<TestRedisSentinel> {
  const [primaryPort, replicaPort, sentinelPort] = await freePorts(3);
  const dir = mkdtempSync(join(tmpdir(), "auth-test-redis-sentinel-"));
  const name = "auth-primary";
  const servers: Server[] = [];
  const close = async () => {
    await Promise.all(servers.map(killServer));
    rmSync(dir, { recursive: true, force: true });
  };
  const sentinelAnswer = () => redisCli(sentinelPort!, "sentinel", "get-master-addr-by-name", name);
  const primary = async () => Number((await sentinelAnswer()).split("\n")[1]);
  try {
    servers.push(await startServer(dir, primaryPort!, []));
    servers.push(await startServer(dir, replicaPort!, ["--replicaof", "127.0.0.1", String(primaryPort)]));
    await eventually(async () => {
      if (infoField(await redisCli(replicaPort!, "info", "replication"), "master_link_status") !== "up") throw new Error("replica not in sync");
    }, 10_000);
    // The sentinel rewrites its configuration file, so it gets one of its own.
    const config = join(dir, "sentinel.conf");
    writeFileSync(
      config,
      [
        `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 1`,
        `sentinel down-after-milliseconds ${name} 1000`,
        `sentinel failover-timeout ${name} 5000`,
        `sentinel parallel-syncs ${name} 1`,
        "",
      ].join("\n"),
    );
    const child = spawn("redis-server", [config, "--sentinel", "--port", String(sentinelPort), "--bind", "127.0.0.1", "--dir", dir, "--logfile", ""], { stdio: "ignore" });
    servers.push({ port: sentinelPort!, child });
    await eventually(async () => {
      if ((await primary()) !== primaryPort) throw new Error("sentinel does not know the primary yet");
      const replicas = await redisCli(sentinelPort!, "sentinel", "replicas", name);
      if (!replicas.includes(String(replicaPort))) throw new Error("sentinel has not found the replica yet");
    }, 15_000);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    sentinels: `127.0.0.1:${sentinelPort}`,
    name,
    primary,
    async failover() {
      const before = await primary();
      await redisCli(sentinelPort!, "sentinel", "failover", name);
      return eventually(async () => {
        const now = await primary();
        if (now === before) throw new Error("failover not done");
        if (!(await redisCli(now, "role")).startsWith("master")) throw new Error("new primary not promoted yet");
        return now;
      }, 20_000);
    },
    close,
  };
}
