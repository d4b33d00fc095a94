/** gateway: config -> clients and stores -> express app -> listen; graceful stop on SIGTERM. */
import { createKeyValue } from "@auth-platform/runtime/key-value";
import { createLogger } from "@auth-platform/runtime/log";
import { insecureWarning, certificatesReady } from "@auth-platform/runtime/grpc-transport";
import { runMain } from "@auth-platform/runtime/main";
import { startMetricsServer } from "@auth-platform/runtime/metrics";
import { stopTracing } from "@auth-platform/runtime/tracing";
import { createApp } from "./app.js";
import { createClients } from "./clients.js";
import { gatewayConfig } from "./config.js";
import { gatewayServer } from "./http/server.js";

runMain("gateway", async () => {
  const config = gatewayConfig(process.env);
  const log = createLogger("gateway", config.logLevel);
  if (config.secretIsDefault) log.warn("AUTH_SECRET is not set: using the generated development secret kept in AUTH_SECRET_FILE (never in production)");
  const grpcWarning = insecureWarning(config.grpcTls);
  if (grpcWarning) log.warn(grpcWarning);
  await certificatesReady(config.grpcTls);
  const clients = createClients(config);
  const counters = createKeyValue(config.redisUrl, log, config.redisKeyPrefix);
  await counters.ready();
  const app = createApp({ config, clients, counters, sharedSessionCache: counters.kind === "redis" ? counters : undefined, log });
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
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      log.info("shutting down", { signal });
      server.close(() => {
        clients.close();
        void Promise.all([counters.close(), metrics?.close(), stopTracing()]).then(() => process.exit(0));
      });
      server.closeIdleConnections();
      setTimeout(() => process.exit(0), 10_000).unref();
    });
  }
});
