/** Starts the identity service: its dependencies (registry.ts), then its gRPC server (rpc/identity-server.ts). */
import { type RunningService, type ServiceOptions, startService } from "@auth-platform/runtime/service";
import type { IdentityConfig } from "./config.js";
import { buildRegistry } from "./registry.js";
import { identityService } from "./rpc/identity-server.js";

type Deps = Awaited<ReturnType<typeof buildRegistry>>;
export type RunningIdentity = RunningService<Deps>;

export function start(config: IdentityConfig, options: ServiceOptions = {}): Promise<RunningIdentity> {
  return startService<IdentityConfig, Deps>({ name: "identity", build: buildRegistry, bind: identityService }, config, options);
}
