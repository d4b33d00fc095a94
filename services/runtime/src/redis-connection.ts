/**
 * How a process reaches Redis (REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS, and their companions), read
 * by the config loader of each process that uses it (gateway, session); redis-client.ts opens a client for
 * it: a single endpoint, a Redis Cluster, or a primary found through Sentinel
 * (docs/adr/0080-redis-cluster-and-sentinel.md). Redis is an authorisation input: the session cache says who a request is, and
 * its tombstones end revoked sessions. The entries carry a MAC (cache-mac.ts), so a writer without AUTH_SECRET
 * cannot forge one; credentials (an ACL user and password) and TLS are what stop anyone who reaches the port
 * or the network path from reading the cache, deleting tombstones or flushing it (docs/configuration.md, "Redis").
 */
import { readFileSync } from "node:fs";
import * as z from "zod";
import { ConfigError, env, loadConfig } from "./config.js";

/** A host and port of a cluster node or a sentinel. */
export interface RedisNode {
  host: string;
  port: number;
}

export interface RedisConnection {
  /** A single endpoint: redis:// or rediss:// (TLS); may hold the user and password, so it is never logged. */
  url?: string;
  /** A Redis Cluster: the nodes the client first asks for the slot map (REDIS_CLUSTER_NODES). */
  cluster?: RedisNode[];
  /** A primary and its replicas watched by Sentinel: the sentinels and the primary's name (REDIS_SENTINELS, REDIS_SENTINEL_NAME). */
  sentinel?: { nodes: RedisNode[]; name: string };
  /** TLS to the cluster nodes or the sentinels and the primary (REDIS_TLS); a URL says it with rediss://. */
  tls?: boolean;
  /** The ACL user and password when given apart from the URL (REDIS_USERNAME, REDIS_PASSWORD). */
  username?: string;
  password?: string;
  /** PEM of the CA that signs the server's certificate (REDIS_TLS_CA_FILE); unset: Node's trusted CAs. */
  ca?: string;
}

const schema = z.object({
  REDIS_URL: env.optionalUrl().refine((url) => !url || /^rediss?:\/\//.test(url), "must start with redis:// or rediss:// (TLS)"),
  REDIS_USERNAME: z.string().optional(),
  REDIS_PASSWORD: z.string().optional(),
  REDIS_TLS_CA_FILE: z.string().optional(),
  REDIS_CLUSTER_NODES: env.list(),
  REDIS_SENTINELS: env.list(),
  REDIS_SENTINEL_NAME: z.string().optional(),
  REDIS_TLS: z.stringbool().optional(),
});

/** The nodes of a `host:port,host:port` list, or the variable's problem. */
function nodesOf(name: string, list: string[], problems: string[]): RedisNode[] {
  const nodes = list.map((item) => {
    const at = item.lastIndexOf(":");
    const port = Number(item.slice(at + 1));
    const host = item.slice(0, at).replace(/^\[(.*)\]$/, "$1");
    return at > 0 && host && Number.isInteger(port) && port > 0 && port < 65_536 ? { host, port } : undefined;
  });
  if (nodes.some((node) => !node)) problems.push(`${name}: expected host:port[,host:port...]`);
  return nodes.filter((node): node is RedisNode => !!node);
}

/**
 * The Redis settings, or undefined without REDIS_URL, REDIS_CLUSTER_NODES and REDIS_SENTINELS (the process then
 * keeps its cache in memory). Exactly one of the three says where Redis is.
 */
export function redisFromEnv(source: Record<string, string | undefined>): RedisConnection | undefined {
  const c = loadConfig(schema, source);
  const username = c.REDIS_USERNAME || undefined;
  const password = c.REDIS_PASSWORD || undefined;
  const caFile = c.REDIS_TLS_CA_FILE || undefined;
  const clusterNodes = c.REDIS_CLUSTER_NODES.length ? c.REDIS_CLUSTER_NODES : undefined;
  const sentinels = c.REDIS_SENTINELS.length ? c.REDIS_SENTINELS : undefined;
  const sentinelName = c.REDIS_SENTINEL_NAME?.trim() || undefined;
  const where = Object.entries({ REDIS_URL: c.REDIS_URL, REDIS_CLUSTER_NODES: clusterNodes, REDIS_SENTINELS: sentinels }).filter(([, value]) => value);
  if (!where.length) {
    const orphans = Object.entries({
      REDIS_USERNAME: username,
      REDIS_PASSWORD: password,
      REDIS_TLS_CA_FILE: caFile,
      REDIS_SENTINEL_NAME: sentinelName,
      REDIS_TLS: c.REDIS_TLS,
    }).filter(([, value]) => value);
    if (orphans.length) throw new ConfigError(orphans.map(([name]) => `${name}: set without REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS`));
    return undefined;
  }
  const problems: string[] = [];
  if (where.length > 1) problems.push(`${where.map(([name]) => name).join(", ")}: set one of them (a single endpoint, a cluster or Sentinel)`);
  const url = c.REDIS_URL ? new URL(c.REDIS_URL) : undefined;
  if ((username || password) && (url?.username || url?.password)) problems.push("REDIS_USERNAME / REDIS_PASSWORD: the URL already holds credentials (give them in one place)");
  if (username && !password) problems.push("REDIS_PASSWORD: required with REDIS_USERNAME (an ACL user signs in with its password)");
  if (url && c.REDIS_TLS !== undefined) problems.push("REDIS_TLS: with REDIS_URL, TLS is said by rediss://");
  const tls = url ? url.protocol === "rediss:" : c.REDIS_TLS === true;
  if (caFile && !tls) problems.push(url ? "REDIS_TLS_CA_FILE: only with a rediss:// REDIS_URL (TLS)" : "REDIS_TLS_CA_FILE: only with REDIS_TLS=true");
  if (sentinels && !sentinelName) problems.push("REDIS_SENTINEL_NAME: required with REDIS_SENTINELS (the name the sentinels know the primary by)");
  if (sentinelName && !sentinels) problems.push("REDIS_SENTINEL_NAME: only with REDIS_SENTINELS");
  const cluster = clusterNodes ? nodesOf("REDIS_CLUSTER_NODES", clusterNodes, problems) : undefined;
  const sentinelNodes = sentinels ? nodesOf("REDIS_SENTINELS", sentinels, problems) : undefined;
  let ca: string | undefined;
  if (caFile && !problems.length) {
    try {
      ca = readFileSync(caFile, "utf8");
    } catch (error) {
      problems.push(`REDIS_TLS_CA_FILE: cannot read ${caFile}: ${(error as Error).message}`);
    }
  }
  if (problems.length) throw new ConfigError(problems);
  if (c.REDIS_URL) return { url: c.REDIS_URL, username, password, ca };
  const topology = cluster ? { cluster } : { sentinel: { nodes: sentinelNodes!, name: sentinelName! } };
  return { ...topology, ...(tls ? { tls } : {}), username, password, ca };
}

/** Whether keys one command touches together must share a hash slot (a cluster: docs/adr/0080). */
export const isCluster = (connection: RedisConnection | string): boolean => typeof connection !== "string" && !!connection.cluster;

/**
 * What a process warns about at start in production: a Redis without credentials (anyone who reaches it reads
 * and flushes the cache), or reached in plaintext away from loopback (the network path sees and can alter it).
 */
export function redisWarnings(connection: RedisConnection | undefined, production: boolean): string[] {
  if (!connection || !production) return [];
  const url = connection.url ? new URL(connection.url) : undefined;
  const warnings: string[] = [];
  if (!connection.password && !url?.password)
    warnings.push("Redis without a password (REDIS_PASSWORD or in REDIS_URL): anyone who reaches it can read the session cache, delete revocations and flush it");
  const loopback = (host: string) => ["127.0.0.1", "localhost", "[::1]", "::1"].includes(host);
  if (url && url.protocol !== "rediss:" && !loopback(url.hostname)) warnings.push("REDIS_URL is not rediss://: the session cache and credentials cross the network in plaintext");
  const nodes = connection.cluster ?? connection.sentinel?.nodes ?? [];
  if (!url && !connection.tls && nodes.some((node) => !loopback(node.host)))
    warnings.push("REDIS_TLS is not true: the session cache and credentials cross the network in plaintext");
  return warnings;
}
