/** Starts the oauth service: its dependencies (registry.ts), then its gRPC server (rpc/oauth-server.ts). */
import { type RunningService, type ServiceOptions, startService } from "@auth-platform/runtime/service";
import type { OAuthConfig } from "./config.js";
import { buildRegistry } from "./registry.js";
import { oauthService } from "./rpc/oauth-server.js";

type Deps = Awaited<ReturnType<typeof buildRegistry>>;
export type RunningOAuth = RunningService<Deps>;

export function start(config: OAuthConfig, options: ServiceOptions = {}): Promise<RunningOAuth> {
  return startService<OAuthConfig, Deps>({ name: "oauth", build: buildRegistry, bind: oauthService }, config, options);
}
