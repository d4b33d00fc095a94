/**
 * Starts the identity service: its dependencies (registry.ts), then its gRPC server on one port with seven
 * services, each with its own access table (rpc/*-server.ts).
 */
import { type RunningService, type ServiceOptions, startService } from "@auth-platform/runtime/service";
import type { IdentityConfig } from "./config.js";
import { buildRegistry } from "./registry.js";
import { accountService } from "./rpc/account-server.js";
import { adminUserService } from "./rpc/admin-user-server.js";
import { apiKeyService } from "./rpc/api-key-server.js";
import { identityService } from "./rpc/identity-server.js";
import { mailSignInService } from "./rpc/mail-sign-in-server.js";
import { passkeyService } from "./rpc/passkey-server.js";
import { twoFactorService } from "./rpc/two-factor-server.js";

type Deps = Awaited<ReturnType<typeof buildRegistry>>;
export type RunningIdentity = RunningService<Deps>;

export function start(config: IdentityConfig, options: ServiceOptions = {}): Promise<RunningIdentity> {
  return startService<IdentityConfig, Deps>(
    {
      name: "identity",
      build: buildRegistry,
      bind: (deps, rpc) => [
        identityService(deps, rpc),
        twoFactorService(deps, rpc),
        accountService(deps, rpc),
        adminUserService(deps, rpc),
        passkeyService(deps, rpc),
        mailSignInService(deps, rpc),
        apiKeyService(deps, rpc),
      ],
    },
    config,
    options,
  );
}
