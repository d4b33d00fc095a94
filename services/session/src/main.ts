/** session service: config -> store and migrations -> cache -> gRPC server -> listen; graceful stop on SIGTERM. */
import { startGrpcServer } from "@auth-platform/runtime/grpc-server";
import { createLogger } from "@auth-platform/runtime/log";
import { runMain } from "@auth-platform/runtime/main";
import { sessionConfig } from "./config.js";
import { buildRegistry } from "./registry.js";
import { sessionService } from "./rpc/session-server.js";

runMain("session", async () => {
  const config = sessionConfig(process.env);
  const log = createLogger("session", config.logLevel);
  const registry = await buildRegistry(config, log);
  await startGrpcServer({
    services: [sessionService(registry)],
    port: config.port,
    host: config.grpc.host,
    tls: config.grpc.tls,
    healthPort: config.grpc.healthPort,
    log,
    closers: [() => registry.close()],
    handleSignals: true,
  });
});
