/** Starts the notification service in-process on the shared service harness (testing/service-harness.ts). */
import { NotificationServiceClient } from "@auth-platform/proto/gen/auth/notification/v1/notification";
import { startServiceUnderTest } from "../../../testing/service-harness.js";
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

/** `env` sets NOTIFICATION_DATABASE_URL (the suites share one database between replicas). */
export async function startNotification(env: Record<string, string>): Promise<RunningNotification> {
  // The delivery suites call the service directly in plaintext; access control has its own suite.
  const service = await startServiceUnderTest({ name: "notification", configure: notificationConfig, start, databaseVar: "NOTIFICATION_DATABASE_URL", env, mtls: false });
  return {
    address: service.address,
    client: service.clientAs(NotificationServiceClient, "gateway"),
    registry: service.deps,
    logs: service.logs,
    stop: () => service.stop(),
  };
}
