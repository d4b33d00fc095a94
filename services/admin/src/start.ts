/** Starts the admin service: its dependencies (registry.ts), then its gRPC server (rpc/admin-server.ts). */
import { type RunningService, type ServiceOptions, startService } from "@auth-platform/runtime/service";
import type { AdminConfig } from "./config.js";
import { buildRegistry } from "./registry.js";
import { adminService } from "./rpc/admin-server.js";

type Deps = Awaited<ReturnType<typeof buildRegistry>>;
export type RunningAdmin = RunningService<Deps>;

export function start(config: AdminConfig, options: ServiceOptions = {}): Promise<RunningAdmin> {
  return startService<AdminConfig, Deps>({ name: "admin", build: buildRegistry, bind: adminService }, config, options);
}
