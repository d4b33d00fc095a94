/** Starts the organization service: its dependencies (registry.ts), then its gRPC server (rpc/organization-server.ts). */
import { type RunningService, type ServiceOptions, startService } from "@auth-platform/runtime/service";
import type { OrganizationConfig } from "./config.js";
import { buildRegistry } from "./registry.js";
import { organizationService } from "./rpc/organization-server.js";

type Deps = Awaited<ReturnType<typeof buildRegistry>>;
export type RunningOrganization = RunningService<Deps>;

export function start(config: OrganizationConfig, options: ServiceOptions = {}): Promise<RunningOrganization> {
  return startService<OrganizationConfig, Deps>({ name: "organization", build: buildRegistry, bind: organizationService }, config, options);
}
