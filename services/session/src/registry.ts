/** Builds the session service's dependencies once: config, store, cache, identity client, clock. */
import { IdentityServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import { AuthError } from "@auth-platform/proto/errors";
import { call } from "@auth-platform/runtime/rpc";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import { createKeyValue } from "@auth-platform/runtime/key-value";
import type { Logger } from "@auth-platform/runtime/log";
import { tokenVault } from "@auth-platform/runtime/session-token";
import type { SessionConfig } from "./config.js";
import { cacheLease } from "./domain/cache-lease.js";
import type { Registry } from "./domain/ports.js";
import { userFromMessage } from "./rpc/mappers.js";
import { openSessionStore } from "./store/mikro-session-store.js";

export async function buildRegistry(config: SessionConfig, log: Logger): Promise<Registry & { close(): Promise<void> }> {
  if (config.secretIsDefault) log.warn("AUTH_SECRET is not set: using the generated development secret kept in AUTH_SECRET_FILE (never in production)");
  const tokens = tokenVault(config.secret);
  const store = await openSessionStore(config.databaseUrl, tokens);
  const cache = createKeyValue(config.redisUrl, log, config.redisKeyPrefix);
  await cache.ready();
  const lease = cacheLease({ store, cache, log, leaseMs: config.cacheLeaseMs });
  // Held (or pending revocations flushed) before the first request, so the cache is trusted from the start.
  await lease.tick();
  const identity = createGrpcClient(IdentityServiceClient, config.identityServiceUrl, { tls: config.grpc.tls, serverName: "identity" });
  return {
    config,
    store,
    cache,
    tokens,
    lease,
    log,
    now: () => new Date(),
    users: {
      async getUser(userId) {
        try {
          const { user } = await call(identity, identity.getUser, { id: userId });
          return user ? userFromMessage(user) : null;
        } catch (error) {
          if (error instanceof AuthError && error.code === "USER_NOT_FOUND") return null;
          throw error;
        }
      },
    },
    async close() {
      lease.stop();
      identity.close();
      await cache.close();
      await store.close();
    },
  };
}
