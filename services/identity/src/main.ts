/** identity service: config -> store and migrations -> gRPC server -> listen; graceful stop on SIGTERM. */
import { createLogger } from "@auth-platform/runtime/log";
import { startGrpcServer } from "@auth-platform/runtime/grpc-server";
import { runMain } from "@auth-platform/runtime/main";
import { identityConfig } from "./config.js";
import { buildRegistry } from "./registry.js";
import { identityService } from "./rpc/identity-server.js";

runMain("identity", async () => {
  const config = identityConfig(process.env);
  const log = createLogger("identity", config.logLevel);
  const registry = await buildRegistry(config, log);
  await startGrpcServer({
    services: [identityService(registry)],
    port: config.port,
    host: config.grpc.host,
    tls: config.grpc.tls,
    healthPort: config.grpc.healthPort,
    log,
    closers: [() => registry.close()],
    handleSignals: true,
  });
});
