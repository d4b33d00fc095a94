/** Builds the identity service's dependencies once: config, store, session client, clock, mail request worker. */
import { NotificationServiceClient, Template } from "@auth-platform/proto/gen/auth/notification/v1/notification";
import { OrganizationServiceClient } from "@auth-platform/proto/gen/auth/organization/v1/organization";
import { type Session, SessionServiceClient } from "@auth-platform/proto/gen/auth/session/v1/session";
import { AuthError, PeerError } from "@auth-platform/proto/errors";
import { call } from "@auth-platform/runtime/rpc";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import { createLogger, type Logger } from "@auth-platform/runtime/log";
import type { IdentityConfig } from "./config.js";
import { type MailRequestWorker, startMailRequestWorker } from "./domain/mail-request-worker.js";
import { banHolds } from "./domain/bans.js";
import { startSessionUserBackfill } from "./domain/session-users.js";
import { HashingQueue } from "./hashing-queue.js";
import { providerTokenVault } from "./domain/provider-token-vault.js";
import { passwordHasher } from "./password.js";
import type { MailTemplate, Registry } from "./domain/ports.js";
import { toSessionUser } from "./rpc/mappers.js";
import { openIdentityStore } from "./store/mikro-identity-store.js";

const TEMPLATES: Record<MailTemplate, Template> = {
  "email-verification": Template.TEMPLATE_EMAIL_VERIFICATION,
  "password-reset": Template.TEMPLATE_PASSWORD_RESET,
  "change-email": Template.TEMPLATE_CHANGE_EMAIL,
  "delete-account": Template.TEMPLATE_DELETE_ACCOUNT,
  "sign-in-code": Template.TEMPLATE_SIGN_IN_CODE,
};

export async function buildRegistry(config: IdentityConfig, log: Logger = createLogger("identity", config.logLevel)): Promise<Registry & { close(): Promise<void> }> {
  const now = () => new Date();
  const store = await openIdentityStore(config.databaseUrl, { now });
  const sessionClient = createGrpcClient(SessionServiceClient, config.sessionServiceUrl, { tls: config.grpc.tls, serverName: "session" });
  const notificationClient = createGrpcClient(NotificationServiceClient, config.notificationServiceUrl, { tls: config.grpc.tls, serverName: "notification" });
  const organizationClient = createGrpcClient(OrganizationServiceClient, config.organizationServiceUrl, { tls: config.grpc.tls, serverName: "organization" });
  let worker: MailRequestWorker | undefined;
  const registry: Registry = {
    config,
    store,
    log,
    mailRequests: { wake: (afterMs) => worker?.wake(afterMs) },
    now,
    providerTokens: providerTokenVault(config.secret),
    passwords: passwordHasher(new HashingQueue(config.hashing)),
    sessions: {
      async createSession(user, { rememberMe, client, refusal }) {
        let session: Session | undefined;
        try {
          ({ session } = await call(sessionClient, sessionClient.createSession, {
            userId: user.id,
            ipAddress: client.ipAddress,
            userAgent: client.userAgent,
            rememberMe,
            expiresInSeconds: 0,
            user: toSessionUser(user),
          }));
        } catch (error) {
          // The session service refuses a user it holds a banned copy of: a ban stored since the caller read
          // the user (BanUser hands the copy over before it ends the sessions). With the ban stored here too,
          // that is this sign-in's refusal (the one its method gives a banned user), not a failure; any other
          // failure stays unexpected.
          if (error instanceof PeerError && error.code === "FAILED_TO_CREATE_SESSION") {
            const current = await store.findUserById(user.id);
            if (!current || banHolds(current, now())) throw new AuthError(refusal ?? "FAILED_TO_CREATE_SESSION");
          }
          throw error;
        }
        // A deletion may have run since the caller read the user (a sign-in waits on the password hash):
        // its revocation and ForgetUser came before this session and its copy, so end both here. A deletion
        // still running deletes the row after this read, and its ForgetUser then ends this session's copy.
        if (!(await store.findUserById(user.id))) {
          await call(sessionClient, sessionClient.revokeUserSessions, { userId: user.id });
          await call(sessionClient, sessionClient.forgetUser, { userId: user.id });
          throw new AuthError("FAILED_TO_CREATE_SESSION");
        }
        return session!;
      },
      async revokeUserSessions(userId, user) {
        await call(sessionClient, sessionClient.revokeUserSessions, { userId, user: user && toSessionUser(user) });
      },
      async forgetUser(user) {
        await call(sessionClient, sessionClient.forgetUser, { userId: user.id, user: toSessionUser(user) });
      },
      async forgetDeletedUser(userId) {
        await call(sessionClient, sessionClient.forgetUser, { userId });
      },
      async usersMissingSnapshot(afterUserId, limit) {
        return (await call(sessionClient, sessionClient.listUsersMissingSnapshot, { afterUserId, limit })).userIds;
      },
    },
    organizations: {
      async removeUserMemberships(userId) {
        await call(organizationClient, organizationClient.removeUserMemberships, { userId });
      },
    },
    mail: {
      async send(to, template, variables, idempotencyKey) {
        await call(notificationClient, notificationClient.sendEmail, { to, template: TEMPLATES[template], variables, idempotencyKey });
      },
    },
  };
  worker = startMailRequestWorker(registry);
  const backfill = startSessionUserBackfill(registry);
  return {
    ...registry,
    async close() {
      backfill.stop();
      await worker.stop();
      sessionClient.close();
      notificationClient.close();
      organizationClient.close();
      await store.close();
    },
  };
}
