/** Builds the session service's dependencies once: config, store, cache, identity client, clock. */
import { IdentityServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import { AuthError } from "@auth-platform/proto/errors";
import { publicUser } from "@auth-platform/proto/public-shapes";
import { call } from "@auth-platform/proto/rpc-client";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import { createKeyValue } from "@auth-platform/runtime/key-value";
import type { Logger } from "@auth-platform/runtime/log";
import type { SessionConfig } from "./config.js";
import type { Registry } from "./domain/ports.js";
import { openSessionStore } from "./store/mikro-session-store.js";

export async function buildRegistry(config: SessionConfig, log: Logger): Promise<Registry & { close(): Promise<void> }> {
  const store = await openSessionStore(config.databaseUrl);
  const cache = createKeyValue(config.redisUrl, log, config.redisKeyPrefix);
  await cache.ready();
  const identity = createGrpcClient(IdentityServiceClient, config.identityServiceUrl, { tls: config.grpc.tls, serverName: "identity" });
  return {
    config,
    store,
    cache,
    log,
    now: () => new Date(),
    users: {
      async getUser(userId) {
        try {
          const { user } = await call(identity, identity.getUser, { id: userId });
          return user ? publicUser(user) : null;
        } catch (error) {
          if (error instanceof AuthError && error.code === "USER_NOT_FOUND") return null;
          throw error;
        }
      },
    },
    async close() {
      identity.close();
      await cache.close();
      await store.close();
    },
  };
}
