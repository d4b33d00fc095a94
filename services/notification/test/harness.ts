/** Starts the notification service in-process: real gRPC on a loopback port, real migrations, a log to read. */
import { NotificationServiceClient } from "@auth-platform/proto/gen/auth/notification/v1/notification";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import { startGrpcServer } from "@auth-platform/runtime/grpc-server";
import { createLogger } from "@auth-platform/runtime/log";
import { notificationConfig } from "../src/config.js";
import type { Registry } from "../src/domain/ports.js";
import { buildRegistry } from "../src/registry.js";
import { notificationService } from "../src/rpc/notification-server.js";

export interface RunningNotification {
  address: string;
  client: NotificationServiceClient;
  registry: Registry;
  /** Every log line written so far, parsed. */
  logs: Array<Record<string, unknown>>;
  stop(): Promise<void>;
}

export async function startNotification(env: Record<string, string>): Promise<RunningNotification> {
  const config = notificationConfig({ LOG_LEVEL: "info", ...env, NOTIFICATION_PORT: "0" });
  const logs: Array<Record<string, unknown>> = [];
  const log = createLogger("notification", config.logLevel, (line) => {
    logs.push(JSON.parse(line) as Record<string, unknown>);
    return true;
  });
  const registry = await buildRegistry(config, log);
  const server = await startGrpcServer({
    services: [notificationService(registry)],
    port: 0,
    host: "127.0.0.1",
    // The delivery suites call the service directly in plaintext; access control has its own suite.
    tls: config.grpc.tls,
    log,
    closers: [() => registry.close()],
    graceMs: 1_000,
  });
  const address = `127.0.0.1:${server.port}`;
  const client = createGrpcClient(NotificationServiceClient, address, { tls: config.grpc.tls, serverName: "notification" });
  return {
    address,
    client,
    registry,
    logs,
    async stop() {
      client.close();
      await server.shutdown();
    },
  };
}
