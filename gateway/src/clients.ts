/** One gRPC client per service the gateway calls; every call goes through call() with a deadline. */
import { IdentityServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import { NotificationServiceClient } from "@auth-platform/proto/gen/auth/notification/v1/notification";
import { SessionServiceClient } from "@auth-platform/proto/gen/auth/session/v1/session";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";

export interface Clients {
  identity: IdentityServiceClient;
  sessions: SessionServiceClient;
  notification: NotificationServiceClient;
  close(): void;
}

export function createClients(addresses: { identityServiceUrl: string; sessionServiceUrl: string; notificationServiceUrl: string }): Clients {
  const identity = createGrpcClient(IdentityServiceClient, addresses.identityServiceUrl);
  const sessions = createGrpcClient(SessionServiceClient, addresses.sessionServiceUrl);
  const notification = createGrpcClient(NotificationServiceClient, addresses.notificationServiceUrl);
  return {
    identity,
    sessions,
    notification,
    close() {
      identity.close();
      sessions.close();
      notification.close();
    },
  };
}
