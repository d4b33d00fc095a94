/**
 * Builds the organization service's dependencies once: config, store, identity (users, API keys),
 * session and notification clients,
 * clock, the invitation mail worker and the organization event worker.
 */
import { ApiKeyServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/api_key";
import { IdentityServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import { NotificationServiceClient, Template } from "@auth-platform/proto/gen/auth/notification/v1/notification";
import { WebhookServiceClient } from "@auth-platform/proto/gen/auth/notification/v1/webhook";
import { SessionServiceClient } from "@auth-platform/proto/gen/auth/session/v1/session";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import type { Logger } from "@auth-platform/runtime/log";
import { call } from "@auth-platform/runtime/rpc";
import type { PollingWorker } from "@auth-platform/runtime/polling-worker";
import type { OrganizationConfig } from "./config.js";
import { startInvitationMailWorker } from "./domain/invitation-mail-worker.js";
import { startOrganizationEventWorker, wakingStore } from "./domain/organization-events.js";
import type { Registry } from "./domain/ports.js";
import { openOrganizationStore } from "./store/mikro-organization-store.js";

export async function buildRegistry(config: OrganizationConfig, log: Logger): Promise<Registry & { close(): Promise<void> }> {
  const store = await openOrganizationStore(config.databaseUrl);
  const tls = config.grpc.tls;
  const identity = createGrpcClient(IdentityServiceClient, config.identityServiceUrl, { tls, serverName: "identity" });
  const apiKeys = createGrpcClient(ApiKeyServiceClient, config.identityServiceUrl, { tls, serverName: "identity" });
  const sessions = createGrpcClient(SessionServiceClient, config.sessionServiceUrl, { tls, serverName: "session" });
  const notification = createGrpcClient(NotificationServiceClient, config.notificationServiceUrl, { tls, serverName: "notification" });
  const webhooks = createGrpcClient(WebhookServiceClient, config.notificationServiceUrl, { tls, serverName: "notification" });
  let worker: PollingWorker | undefined;
  let events: PollingWorker | undefined;
  const registry: Registry = {
    config,
    // Each write that records a webhook event wakes the event worker (domain/organization-events.ts).
    store: wakingStore(store, { wake: () => events?.wake() }),
    log,
    now: () => new Date(),
    users: {
      async getUsers(ids, emails) {
        const { users } = await call(identity, identity.getUsers, { ids, emails });
        return users.map((u) => ({ id: u.id, name: u.name, email: u.email, image: u.image ?? null }));
      },
    },
    sessions: {
      async setActiveOrganization(sessionId, organizationId) {
        await call(sessions, sessions.setActiveOrganization, { sessionId, organizationId: organizationId ?? undefined });
      },
      async clearActiveOrganization(organizationId, userId) {
        await call(sessions, sessions.clearActiveOrganization, { organizationId, userId });
      },
      async setActiveTeam(sessionId, team) {
        await call(sessions, sessions.setActiveTeam, { sessionId, teamId: team?.teamId, organizationId: team?.organizationId });
      },
      async clearActiveTeam(teamId, userId) {
        await call(sessions, sessions.clearActiveTeam, { teamId, userId });
      },
    },
    mail: {
      async sendInvitation(to, variables, idempotencyKey, language) {
        await call(notification, notification.sendEmail, { to, template: Template.TEMPLATE_ORGANIZATION_INVITATION, variables, idempotencyKey, language });
      },
    },
    webhooks: {
      async publish(event) {
        await call(webhooks, webhooks.publishEvents, { events: [event] });
      },
    },
    apiKeys: {
      async deleteOrganizationKeys(organizationId) {
        await call(apiKeys, apiKeys.deleteOrganizationApiKeys, { organizationId });
      },
    },
    invitationMails: { wake: () => worker?.wake() },
  };
  worker = startInvitationMailWorker(registry);
  events = startOrganizationEventWorker(registry);
  return {
    ...registry,
    async close() {
      await worker.stop();
      await events.stop();
      identity.close();
      apiKeys.close();
      sessions.close();
      notification.close();
      webhooks.close();
      await store.close();
    },
  };
}
