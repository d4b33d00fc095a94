/** Builds the identity service's dependencies once: config, store, session client, clock. */
import { SessionServiceClient } from "@auth-platform/proto/gen/auth/session/v1/session";
import { publicUser } from "@auth-platform/proto/public-shapes";
import { call } from "@auth-platform/proto/rpc-client";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import type { IdentityConfig } from "./config.js";
import type { Registry } from "./domain/ports.js";
import { toUserMessage } from "./rpc/mappers.js";
import { openIdentityStore } from "./store/mikro-identity-store.js";

export async function buildRegistry(config: IdentityConfig): Promise<Registry & { close(): Promise<void> }> {
  const store = await openIdentityStore(config.databaseUrl);
  const sessionClient = createGrpcClient(SessionServiceClient, config.sessionServiceUrl);
  return {
    config,
    store,
    now: () => new Date(),
    sessions: {
      async createSession(user, { rememberMe, client }) {
        const { session } = await call(sessionClient, sessionClient.createSession, {
          userId: user.id,
          ipAddress: client.ipAddress,
          userAgent: client.userAgent,
          rememberMe,
          expiresInSeconds: 0,
          user: { json: JSON.stringify(publicUser(toUserMessage(user))) },
        });
        return session!;
      },
    },
    async close() {
      sessionClient.close();
      await store.close();
    },
  };
}
