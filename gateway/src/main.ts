/** gateway: config -> clients and stores -> express app -> listen; graceful stop on SIGTERM. */
import { createKeyValue } from "@auth-platform/runtime/key-value";
import { closeSteps } from "@auth-platform/runtime/close-steps";
import { closeHttpServer } from "@auth-platform/runtime/http-close";
import { createLogger } from "@auth-platform/runtime/log";
import { redisWarnings } from "@auth-platform/runtime/redis-connection";
import { insecureWarning, certificatesReady } from "@auth-platform/runtime/grpc-transport";
import { closeOnSignals, runMain } from "@auth-platform/runtime/main";
import { startMetricsServer } from "@auth-platform/runtime/metrics";
import { stopTracing } from "@auth-platform/runtime/tracing";
import { createApp } from "./app.js";
import { createClients } from "./clients.js";
import { gatewayConfig } from "./config.js";
import { openRateLimitCounters } from "./http/rate-limit.js";
import { securityEventReporter } from "./http/security-events.js";
import { redisEventQueue } from "./http/security-events-redis.js";
import { gatewayServer } from "./http/server.js";
import { startSessionMemory } from "./session-watch.js";

const EVENTS_FLUSH_MS = 5_000;
/** How long requests in flight at SIGTERM may run before their connections are closed (a slow upload may take 30 s). */
const REQUESTS_GRACE_MS = 5_000;
/** The longest the gateway takes to close on SIGTERM: its requests, its queued security events (5 s each at most), its clients. */
const CLOSE_LIMIT_MS = 15_000;

runMain("gateway", async () => {
  const config = gatewayConfig(process.env);
  const log = createLogger("gateway", config.logLevel);
  if (config.secretIsDefault) log.warn("AUTH_SECRET is not set: using the generated development secret kept in AUTH_SECRET_FILE (never in production)");
  const grpcWarning = insecureWarning(config.grpcTls);
  if (grpcWarning) log.warn(grpcWarning);
  await certificatesReady(config.grpcTls);
  const clients = createClients(config);
  for (const warning of redisWarnings(config.redis, config.production)) log.warn(warning);
  const keyValue = createKeyValue(config.redis, log, config.redisKeyPrefix);
  const counters = await openRateLimitCounters(config.rateLimit.storage, config.rateLimit.databaseUrl, keyValue, log);
  if (config.rateLimit.enabled) {
    if (config.rateLimit.storage === "memory") log.warn("rate-limit counters in process memory: each replica counts alone (single replica only)");
    else log.info("rate-limit counters", { storage: config.rateLimit.storage });
  }
  // With Redis, reported events wait there: a crashed replica's are delivered by another (security-events-redis.ts).
  const queue = config.redis ? redisEventQueue(config.redis, config.redisKeyPrefix, clients.admin, log) : undefined;
  await Promise.all([keyValue.ready(), counters === keyValue ? undefined : counters.ready(), queue?.ready()]);
  const events = securityEventReporter(clients.admin, log, { queue });
  const sessions = startSessionMemory(config.sessionCacheSize, clients.sessions, log);
  const app = createApp({ config, clients, counters, sharedSessionCache: keyValue.kind === "redis" ? keyValue : undefined, sessionMemory: sessions?.memory, log, events });
  const metrics = config.metricsPort === undefined ? undefined : await startMetricsServer(config.metricsPort, config.host);
  if (metrics) log.info("metrics listening", { port: metrics.port, host: config.host, path: "/metrics" });
  const server = gatewayServer(app, config.timeouts);
  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : config.port;
    log.info("listening", { host: config.host, url: `http://localhost:${port}${config.basePath}` });
  });
  server.on("error", (error) => {
    log.error("cannot listen", { host: config.host, port: config.port, error });
    process.exit(1);
  });
  const shutdown = closeSteps(
    [
      { name: "in-flight requests", close: () => closeHttpServer(server, REQUESTS_GRACE_MS, log) },
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
  closeOnSignals({ log, close: shutdown.run, closing: shutdown.current }, CLOSE_LIMIT_MS);
});
