/**
 * The identity service on its own for a suite (testing/service-harness.ts): its real gRPC server and store,
 * session, notification and organization played by fake peers. A suite passes the session handlers it
 * watches; the rest answer as the real services do when all is well.
 */
import { SessionServiceService } from "@auth-platform/proto/gen/auth/session/v1/session";
import { NotificationServiceService } from "@auth-platform/proto/gen/auth/notification/v1/notification";
import { OrganizationServiceService } from "@auth-platform/proto/gen/auth/organization/v1/organization";
import { newId } from "@auth-platform/runtime/random";
import { type FakeRpc, fakePeer, harnessEnv, type ServiceUnderTest, startServiceUnderTest } from "../../../testing/service-harness.js";
import { identityConfig } from "../src/config.js";
import type { Registry } from "../src/domain/ports.js";
import { start } from "../src/start.js";

export interface IdentityAlone {
  service: ServiceUnderTest<Registry>;
  stop(): Promise<void>;
}

export async function startIdentityAlone(sessionHandlers: Record<string, FakeRpc> = {}): Promise<IdentityAlone> {
  const env = await harnessEnv();
  const session = await fakePeer(
    "session",
    SessionServiceService,
    { putUserCopy: () => ({}), dropUserCopy: () => ({}), revokeUserSessions: () => ({}), listUsersMissingSnapshot: () => ({ userIds: [] }), ...sessionHandlers },
    env,
  );
  const notification = await fakePeer("notification", NotificationServiceService, { sendEmail: () => ({ messageId: newId() }) }, env);
  const organization = await fakePeer("organization", OrganizationServiceService, { removeUserMemberships: () => ({}) }, env);
  const peers = [session, notification, organization];
  const service = await startServiceUnderTest({
    name: "identity",
    configure: identityConfig,
    start,
    databaseVar: "IDENTITY_DATABASE_URL",
    env: {
      AUTH_SECRET: "identity-harness-secret-0123456789abcdef",
      SESSION_SERVICE_URL: session.url,
      NOTIFICATION_SERVICE_URL: notification.url,
      ORGANIZATION_SERVICE_URL: organization.url,
    },
  });
  return {
    service,
    async stop() {
      await service.stop();
      await Promise.all(peers.map((peer) => peer.close()));
    },
  };
}
