/** Builds the identity service's dependencies once: config, store, clients of the other services, clock, workers. Wiring only. */
import { NotificationServiceClient, Template } from "@auth-platform/proto/gen/auth/notification/v1/notification";
import { WebhookServiceClient } from "@auth-platform/proto/gen/auth/notification/v1/webhook";
import { OrganizationServiceClient } from "@auth-platform/proto/gen/auth/organization/v1/organization";
import { SessionServiceClient } from "@auth-platform/proto/gen/auth/session/v1/session";
import { DomainServiceClient } from "@auth-platform/proto/gen/auth/sso/v1/domain";
import { call } from "@auth-platform/runtime/rpc";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import { createLogger, type Logger } from "@auth-platform/runtime/log";
import { userFields } from "@auth-platform/runtime/user-message";
import type { IdentityConfig } from "./config.js";
import { type MailRequestWorker, startMailRequestWorker } from "./domain/mail-request-worker.js";
import { publishingStore, startSessionOutboxWorker } from "./domain/session-outbox.js";
import { eventPublishingStore, startUserEventWorker } from "./domain/user-events.js";
import type { PollingWorker } from "@auth-platform/runtime/polling-worker";
import { startSessionUserBackfill } from "./domain/session-users.js";
import { HashingQueue } from "./hashing-queue.js";
import { providerTokenVault } from "./domain/provider-token-vault.js";
import { ApiKeyUsage, apiKeyHasher } from "./domain/api-keys.js";
import { PeerError } from "@auth-platform/proto/errors";
import { passwordHasher } from "./password.js";
import type { MailTemplate, Registry } from "./domain/ports.js";
import { toUserMessage } from "./rpc/mappers.js";
import { openIdentityStore } from "./store/mikro-identity-store.js";

const TEMPLATES: Record<MailTemplate, Template> = {
  "email-verification": Template.TEMPLATE_EMAIL_VERIFICATION,
  "password-reset": Template.TEMPLATE_PASSWORD_RESET,
  "change-email": Template.TEMPLATE_CHANGE_EMAIL,
  "change-email-new-address": Template.TEMPLATE_CHANGE_EMAIL_NEW_ADDRESS,
  "delete-account": Template.TEMPLATE_DELETE_ACCOUNT,
  "sign-in-code": Template.TEMPLATE_SIGN_IN_CODE,
  "magic-link": Template.TEMPLATE_MAGIC_LINK,
  "email-otp": Template.TEMPLATE_EMAIL_OTP,
};

export async function buildRegistry(config: IdentityConfig, log: Logger = createLogger("identity", config.logLevel)): Promise<Registry & { close(): Promise<void> }> {
  const now = () => new Date();
  const storedRows = await openIdentityStore(config.databaseUrl, { now });
  const sessionClient = createGrpcClient(SessionServiceClient, config.sessionServiceUrl, { tls: config.grpc.tls, serverName: "session" });
  const notificationClient = createGrpcClient(NotificationServiceClient, config.notificationServiceUrl, { tls: config.grpc.tls, serverName: "notification" });
  const webhookClient = createGrpcClient(WebhookServiceClient, config.notificationServiceUrl, { tls: config.grpc.tls, serverName: "notification" });
  const organizationClient = createGrpcClient(OrganizationServiceClient, config.organizationServiceUrl, { tls: config.grpc.tls, serverName: "organization" });
  const domainClient = createGrpcClient(DomainServiceClient, config.ssoServiceUrl, { tls: config.grpc.tls, serverName: "sso" });
  let worker: MailRequestWorker | undefined;
  let outbox: PollingWorker | undefined;
  let events: PollingWorker | undefined;
  const registry: Registry = {
    config,
    store: storedRows,
    log,
    mailRequests: { wake: (afterMs) => worker?.wake(afterMs) },
    now,
    providerTokens: providerTokenVault(config.secret),
    apiKeys: { hash: apiKeyHasher(config.secret), usage: new ApiKeyUsage(storedRows, log) },
    passwords: passwordHasher(new HashingQueue(config.hashing)),
    sessions: {
      async createSession(user, { rememberMe, client, authentication }) {
        const { session } = await call(sessionClient, sessionClient.createSession, {
          userId: user.id,
          ipAddress: client.ipAddress,
          userAgent: client.userAgent,
          rememberMe,
          expiresInSeconds: 0,
          ...userFields(toUserMessage(user)),
          ...("rotates" in authentication
            ? { rotatesSessionId: authentication.rotates }
            : { authMethod: authentication.method ?? undefined, secondFactor: authentication.secondFactor }),
        });
        return session!;
      },
      async revokeSession(userId, sessionId) {
        await call(sessionClient, sessionClient.revokeSession, { token: "", sessionId, userId });
      },
      async revokeUserSessions(userId, user, reason) {
        await call(sessionClient, sessionClient.revokeUserSessions, { userId, ...userFields(user && toUserMessage(user)), reason });
      },
      async putUserCopy(user) {
        await call(sessionClient, sessionClient.putUserCopy, userFields(toUserMessage(user)));
      },
      async dropUserCopy(userId) {
        await call(sessionClient, sessionClient.dropUserCopy, { userId });
      },
      async usersMissingSnapshot(afterUserId, limit) {
        return (await call(sessionClient, sessionClient.listUsersMissingSnapshot, { afterUserId, limit })).userIds;
      },
    },
    organizations: {
      async removeUserMemberships(userId) {
        await call(organizationClient, organizationClient.removeUserMemberships, { userId });
      },
      async addMember(organizationId, userId, role) {
        await call(organizationClient, organizationClient.addMember, { organizationId, userId, role });
      },
      async apiKeyPermission(caller, organizationId, action) {
        try {
          const { success } = await call(organizationClient, organizationClient.hasPermission, { caller, organizationId, permissions: { apiKey: { actions: [action] } } });
          return success ? "granted" : "denied";
        } catch (error) {
          if (error instanceof PeerError && (error.code === "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION" || error.code === "ORGANIZATION_NOT_FOUND")) return "not-member";
          throw error;
        }
      },
    },
    domains: {
      async applyAutoJoin(userId, email, verifiedAt) {
        // Without an sso service (IDENTITY_DOMAIN_AUTO_JOIN=false) no domain can apply: the event is done.
        if (!config.domainAutoJoin) return;
        await call(domainClient, domainClient.applyDomainAutoJoin, { userId, email, verifiedAt });
      },
    },
    webhooks: {
      async publish(event) {
        await call(webhookClient, webhookClient.publishEvents, { events: [event] });
      },
    },
    mail: {
      async send(to, template, variables, idempotencyKey, language) {
        await call(notificationClient, notificationClient.sendEmail, { to, template: TEMPLATES[template], variables, idempotencyKey, language });
      },
    },
  };
  // Every write of a user is followed by its delivery to the session service (domain/session-outbox.ts).
  registry.store = publishingStore(storedRows, { ...registry, outbox: { wake: (afterMs) => outbox?.wake(afterMs) } });
  // ...and each write that verifies an address by the delivery of its user event (domain/user-events.ts).
  registry.store = eventPublishingStore(registry.store, { ...registry, worker: { wake: (afterMs) => events?.wake(afterMs) } });
  worker = startMailRequestWorker(registry);
  outbox = startSessionOutboxWorker(registry);
  events = startUserEventWorker(registry);
  const backfill = startSessionUserBackfill(registry);
  registry.apiKeys.usage.start();
  return {
    ...registry,
    async close() {
      backfill.stop();
      await registry.apiKeys.usage.stop();
      await worker.stop();
      await outbox.stop();
      await events.stop();
      sessionClient.close();
      domainClient.close();
      notificationClient.close();
      webhookClient.close();
      organizationClient.close();
      await storedRows.close();
    },
  };
}
