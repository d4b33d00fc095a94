/**
 * The one way the gateway starts, in production (main.ts) and in tests alike: clients and stores from its
 * configuration, the express app, the HTTP server, metrics when METRICS_PORT is set, and one close() that
 * runs its shutdown steps in order (requests in flight, queued security events, then clients and stores).
 */
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { type SessionWatch, watchSessionEvents } from "@auth-platform/node";
import type { SessionServiceClient } from "@auth-platform/proto/gen/auth/session/v1/session";
import { closeSteps } from "@auth-platform/runtime/close-steps";
import { insecureWarning, certificatesReady } from "@auth-platform/runtime/grpc-transport";
import { closeHttpServer, trackResponses } from "@auth-platform/runtime/http-close";
import { openKeyValue } from "@auth-platform/runtime/key-value";
import { createLogger, type Logger } from "@auth-platform/runtime/log";
import { authEvents, startMetricsServer } from "@auth-platform/runtime/metrics";
import { redisWarnings } from "@auth-platform/runtime/redis-connection";
import { stopTracing } from "@auth-platform/runtime/tracing";
import { createApp } from "./app.js";
import { createClients } from "./clients.js";
import type { GatewayConfig } from "./config.js";
import { openRateLimitCounters } from "./http/rate-limit.js";
import { securityEventReporter, signInBurstsToIdentity } from "./http/security-events.js";
import { gatewayServer } from "./http/server.js";
import { type SessionMemory, sessionMemory } from "./http/session-memory.js";

const EVENTS_FLUSH_MS = 5_000;
/** How long requests in flight at SIGTERM may run before their connections are closed (a slow upload may take 30 s). */
const REQUESTS_GRACE_MS = 5_000;

export interface GatewayOptions {
  /** Where the log lines go (JSON); default stdout. */
  logTo?: (line: string) => void;
  /** Overrides the configured listen host (tests bind 127.0.0.1). */
  host?: string;
  /** How long requests in flight may run on close (default 5 s). */
  graceMs?: number;
  /** How long connections idle at close may still bring a request (default IDLE_LINGER_MS, http-close.ts). */
  idleLingerMs?: number;
}

export interface RunningGateway {
  /** http://host:port, without the base path. */
  origin: string;
  port: number;
  metricsPort?: number;
  log: Logger;
  /** The gateway's own session memory (GATEWAY_SESSION_CACHE_SIZE above 0). */
  sessionMemory?: SessionMemory;
  /** Stops taking requests, lets those in flight finish (bounded), delivers queued events, closes the rest. */
  close(): Promise<void>;
  /** The close step under way, if any. */
  closing(): string | undefined;
}

export async function startGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<RunningGateway> {
  const log = createLogger("gateway", config.logLevel, options.logTo);
  if (config.secretIsDefault) log.warn("AUTH_SECRET is not set: using the generated development secret kept in AUTH_SECRET_FILE (never in production)");
  const grpcWarning = insecureWarning(config.grpcTls);
  if (grpcWarning) log.warn(grpcWarning);
  await certificatesReady(config.grpcTls);
  const clients = createClients(config);
  for (const warning of redisWarnings(config.redis, config.production)) log.warn(warning);
  const keyValue = await openKeyValue(config.redis, log, config.redisKeyPrefix);
  const counters = await openRateLimitCounters(config.rateLimit.storage, config.rateLimit.databaseUrl, keyValue, log);
  if (config.rateLimit.enabled) {
    if (config.rateLimit.storage === "memory") log.warn("rate-limit counters in process memory: each replica counts alone (single replica only)");
    else log.info("rate-limit counters", { storage: config.rateLimit.storage });
  }
  // With Redis, reported events wait there: a crashed replica's are delivered by another (security-events-redis.ts,
  // loaded only then, with ioredis).
  const queue = config.redis ? (await import("./http/security-events-redis.js")).redisEventQueue(config.redis, config.redisKeyPrefix, clients.admin, log) : undefined;
  await Promise.all([keyValue.ready(), counters === keyValue ? undefined : counters.ready(), queue?.ready()]);
  const events = securityEventReporter(clients.admin, log, {
    queue,
    burstThreshold: config.failureBurst.threshold,
    burstWindowMs: config.failureBurst.windowMs,
    onSignInBurst: signInBurstsToIdentity(clients.identity, log),
  });
  const sessions = startSessionMemory(config.sessionCacheSize, clients.sessions, log);
  const { listener } = createApp({ config, clients, counters, sharedSessionCache: keyValue.kind === "redis" ? keyValue : undefined, sessionMemory: sessions?.memory, log, events });
  const host = options.host ?? config.host;
  const metrics = config.metricsPort === undefined ? undefined : await startMetricsServer(config.metricsPort, host);
  if (metrics) log.info("metrics listening", { port: metrics.port, host, path: "/metrics" });
  const server = gatewayServer(listener, config.timeouts);
  trackResponses(server);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", (error) => log.error("HTTP server error", { error }));
  const port = (server.address() as AddressInfo).port;
  log.info("listening", { host, url: `http://localhost:${port}${config.basePath}` });
  const shutdown = closeSteps(
    [
      { name: "in-flight requests", close: () => closeHttpServer(server, options.graceMs ?? REQUESTS_GRACE_MS, log, options.idleLingerMs) },
      // Security events still queued are delivered first (the admin client is still open), at most 5 s; with
      // Redis, reading stops and what this replica has not delivered stays there for another one.
      { name: "security events", close: () => events.flush(EVENTS_FLUSH_MS) },
      {
        name: "clients, counters, metrics, tracing",
        close: () => {
          sessions?.watch.stop();
          clients.close();
          return Promise.all([events.close(), keyValue.close(), counters === keyValue ? undefined : counters.close(), metrics?.close(), stopTracing()]);
        },
      },
    ],
    log,
  );
  const origin = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  return { origin, port, metricsPort: metrics?.port, log, sessionMemory: sessions?.memory, close: shutdown.run, closing: shutdown.current };
}

/**
 * The session memory GATEWAY_SESSION_CACHE_SIZE asks for (undefined for 0), kept by @auth-platform/node's
 * watcher: the one implementation of the WatchSessionEvents protocol (docs/adr/0056-gateway-session-cache-invalidated-by-pushes.md).
 * Its warning goes to the gateway's log; lookups are counted by the memory itself.
 */
function startSessionMemory(maxEntries: number, client: SessionServiceClient, log: Logger): { memory: SessionMemory; watch: SessionWatch } | undefined {
  if (maxEntries <= 0) return undefined;
  const memory = sessionMemory({ maxEntries, onLookup: authEvents.gatewaySessionCacheLookup });
  const watch = watchSessionEvents({ client, cache: memory, watcherId: `gateway-${randomUUID()}`, onWarning: (message, fields) => log.warn(message, fields) });
  return { memory, watch };
}
