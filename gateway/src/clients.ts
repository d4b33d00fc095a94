/** One gRPC client per service the gateway calls; every call goes through call() with a deadline. */
import { IdentityServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import { NotificationServiceClient } from "@auth-platform/proto/gen/auth/notification/v1/notification";
import { OAuthServiceClient } from "@auth-platform/proto/gen/auth/oauth/v1/oauth";
import { SessionServiceClient } from "@auth-platform/proto/gen/auth/session/v1/session";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import type { GrpcTls } from "@auth-platform/runtime/grpc-transport";

export interface Clients {
  identity: IdentityServiceClient;
  sessions: SessionServiceClient;
  notification: NotificationServiceClient;
  oauth: OAuthServiceClient;
  close(): void;
}

export function createClients(addresses: { identityServiceUrl: string; sessionServiceUrl: string; notificationServiceUrl: string; oauthServiceUrl: string; grpcTls: GrpcTls }): Clients {
  const tls = addresses.grpcTls;
  const identity = createGrpcClient(IdentityServiceClient, addresses.identityServiceUrl, { tls, serverName: "identity" });
  const sessions = createGrpcClient(SessionServiceClient, addresses.sessionServiceUrl, { tls, serverName: "session" });
  const notification = createGrpcClient(NotificationServiceClient, addresses.notificationServiceUrl, { tls, serverName: "notification" });
  const oauth = createGrpcClient(OAuthServiceClient, addresses.oauthServiceUrl, { tls, serverName: "oauth" });
  return {
    identity,
    sessions,
    notification,
    oauth,
    close() {
      identity.close();
      sessions.close();
      notification.close();
      oauth.close();
    },
  };
}
