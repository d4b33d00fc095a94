/** notification service: config -> store and migrations -> transport and delivery worker -> gRPC server -> listen; graceful stop on SIGTERM. */
import { startGrpcServer } from "@auth-platform/runtime/grpc-server";
import { createLogger } from "@auth-platform/runtime/log";
import { runMain } from "@auth-platform/runtime/main";
import { notificationConfig } from "./config.js";
import { buildRegistry } from "./registry.js";
import { notificationService } from "./rpc/notification-server.js";

runMain("notification", async () => {
  const config = notificationConfig(process.env);
  const log = createLogger("notification", config.logLevel);
  const registry = await buildRegistry(config, log);
  await startGrpcServer({
    services: [notificationService(registry)],
    port: config.port,
    host: config.grpc.host,
    tls: config.grpc.tls,
    healthPort: config.grpc.healthPort,
    log,
    closers: [() => registry.close()],
    handleSignals: true,
  });
});
