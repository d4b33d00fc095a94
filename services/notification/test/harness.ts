/** Starts the notification service in-process, as its main.ts does: real gRPC on a loopback port, real migrations, a log to read. */
import { NotificationServiceClient } from "@auth-platform/proto/gen/auth/notification/v1/notification";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import { notificationConfig } from "../src/config.js";
import type { Registry } from "../src/domain/ports.js";
import { start } from "../src/start.js";

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
  // The delivery suites call the service directly in plaintext; access control has its own suite.
  const service = await start(config, { host: "127.0.0.1", graceMs: 1_000, logTo: (line) => logs.push(JSON.parse(line) as Record<string, unknown>) });
  const client = createGrpcClient(NotificationServiceClient, service.address, { tls: config.grpc.tls, serverName: "notification" });
  return {
    address: service.address,
    client,
    registry: service.deps,
    logs,
    async stop() {
      client.close();
      await service.close();
    },
  };
}
