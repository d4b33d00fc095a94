/** Starts the notification service: its dependencies (registry.ts), then its gRPC server (rpc/notification-server.ts). */
import { type RunningService, type ServiceOptions, startService } from "@auth-platform/runtime/service";
import type { NotificationConfig } from "./config.js";
import { buildRegistry } from "./registry.js";
import { notificationService } from "./rpc/notification-server.js";
import { webhookService } from "./rpc/webhook-server.js";

type Deps = Awaited<ReturnType<typeof buildRegistry>>;
export type RunningNotification = RunningService<Deps>;

export function start(config: NotificationConfig, options: ServiceOptions = {}): Promise<RunningNotification> {
  return startService<NotificationConfig, Deps>(
    { name: "notification", build: buildRegistry, bind: (deps, rpc) => [notificationService(deps, rpc), webhookService(deps, rpc)] },
    config,
    options,
  );
}
