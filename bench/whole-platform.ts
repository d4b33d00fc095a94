/**
 * Every server process of the platform, as `npm start` runs them (deploy/launcher.ts): the launcher's
 * environment, node flags and start order, mutual TLS with certificates of the run's own, fresh SQLite
 * files in `dataDir`, on free loopback ports. The web app's server is left out: no request measured goes
 * through it. Rate limiting is off, as in bench/run.ts.
 */
import { join } from "node:path";
import { ensureDevCertificates } from "../deploy/dev-certs.js";
import { launcherEnv } from "../deploy/launcher.js";
import { BUILT_ENTRY, ENTRY_POINTS } from "../deploy/processes.js";
import { freePorts } from "../testing/ports.js";
import { type Child, startChild } from "./processes.js";

const SERVICES = ["identity", "session", "notification", "oauth", "organization", "admin", "sso"] as const;

export interface WholePlatform {
  /** `http://127.0.0.1:<gateway port>/api/auth`. */
  baseURL: string;
  /** The gateway first, then the services: stopping in this order lets a call in flight finish. */
  children: Child[];
}

export interface WholePlatformOptions {
  from: "build" | "source";
  dataDir: string;
  /** More variables for every process (AUTH_SECRET, LOG_LEVEL, REDIS_URL and REDIS_KEY_PREFIX, ...). */
  env: Record<string, string>;
  /** How long each process may take to listen (default 60 s; from source on a loaded machine it can take longer). */
  startTimeoutMs?: number;
}

export async function startWholePlatform(options: WholePlatformOptions): Promise<WholePlatform> {
  const ports = await freePorts(SERVICES.length + 1);
  const gatewayPort = ports[SERVICES.length]!;
  const env: Record<string, string> = {};
  // AUTH_BASE_URL on the address the benchmark reaches (not the launcher's localhost): the redirect URIs
  // an identity provider is given for single sign-on are built from it.
  const baseURL = `http://127.0.0.1:${gatewayPort}/api/auth`;
  for (const [key, value] of Object.entries(launcherEnv(options.dataDir, { PORT: String(gatewayPort), AUTH_BASE_URL: baseURL }))) if (value !== undefined) env[key] = value;
  SERVICES.forEach((name, i) => {
    env[`${name.toUpperCase()}_PORT`] = String(ports[i]);
    env[`${name.toUpperCase()}_SERVICE_URL`] = `127.0.0.1:${ports[i]}`;
  });
  Object.assign(env, { PORT: String(gatewayPort), RATE_LIMIT_ENABLED: "false" }, options.env);
  const tls = await ensureDevCertificates(join(options.dataDir, "tls"), ["gateway", ...SERVICES]);
  const entries = options.from === "build" ? BUILT_ENTRY : ENTRY_POINTS;
  const start = (name: (typeof SERVICES)[number] | "gateway", port: number) => startChild(name, entries[name], { ...env, GRPC_TLS_DIR: tls[name]! }, port, options.startTimeoutMs);
  const children: Child[] = [];
  try {
    // The launcher's order: session first (identity pushes its user copies to it at start), then the other
    // services together, then the gateway.
    children.push(await start("session", ports[SERVICES.indexOf("session")]!));
    const others = await Promise.allSettled(SERVICES.filter((name) => name !== "session").map((name) => start(name, ports[SERVICES.indexOf(name)]!)));
    for (const result of others) if (result.status === "fulfilled") children.push(result.value);
    const failed = others.find((result) => result.status === "rejected");
    if (failed) throw failed.reason;
    children.unshift(await start("gateway", gatewayPort));
  } catch (error) {
    for (const child of children) await child.stop();
    throw error;
  }
  return { baseURL, children };
}
