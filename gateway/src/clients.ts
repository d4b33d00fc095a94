/** One gRPC client per service the gateway calls; every call goes through call() with a deadline. */
import { IdentityServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import { SessionServiceClient } from "@auth-platform/proto/gen/auth/session/v1/session";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";

export interface Clients {
  identity: IdentityServiceClient;
  sessions: SessionServiceClient;
  close(): void;
}

export function createClients(addresses: { identity: string; session: string }): Clients {
  const identity = createGrpcClient(IdentityServiceClient, addresses.identity);
  const sessions = createGrpcClient(SessionServiceClient, addresses.session);
  return {
    identity,
    sessions,
    close() {
      identity.close();
      sessions.close();
    },
  };
}
