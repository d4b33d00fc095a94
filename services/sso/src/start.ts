/** Starts the sso service: its dependencies (registry.ts), then its gRPC server (SsoService, DomainService, ScimService). */
import { type RunningService, type ServiceOptions, startService } from "@auth-platform/runtime/service";
import type { SsoConfig } from "./config.js";
import { buildRegistry } from "./registry.js";
import { manageDeps } from "./domains/manage.js";
import { domainService } from "./rpc/domain-server.js";
import { scimService } from "./rpc/scim-server.js";
import { ssoService } from "./rpc/sso-server.js";

type Deps = Awaited<ReturnType<typeof buildRegistry>>;
export type RunningSso = RunningService<Deps>;

export function start(config: SsoConfig, options: ServiceOptions = {}): Promise<RunningSso> {
  return startService<SsoConfig, Deps>(
    { name: "sso", build: buildRegistry, bind: (deps, rpc) => [ssoService(deps, rpc), domainService(manageDeps(deps), rpc), scimService(deps.scim, rpc)] },
    config,
    options,
  );
}
