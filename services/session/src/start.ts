/** Starts the session service: its dependencies (registry.ts), then its gRPC server (rpc/session-server.ts). */
import { type RunningService, type ServiceOptions, startService } from "@auth-platform/runtime/service";
import type { SessionConfig } from "./config.js";
import { buildRegistry } from "./registry.js";
import { sessionService } from "./rpc/session-server.js";

type Deps = Awaited<ReturnType<typeof buildRegistry>>;
export type RunningSession = RunningService<Deps>;

export function start(config: SessionConfig, options: ServiceOptions = {}): Promise<RunningSession> {
  return startService<SessionConfig, Deps>({ name: "session", build: buildRegistry, bind: sessionService }, config, options);
}
