/** Builds the admin service's dependencies once: config, audit store, identity and session clients, clock. */
import { AdminUserServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/admin_user";
import { IdentityServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import { SessionServiceClient } from "@auth-platform/proto/gen/auth/session/v1/session";
import { WebhookServiceClient } from "@auth-platform/proto/gen/auth/notification/v1/webhook";
import { AuthError, PeerError } from "@auth-platform/proto/errors";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import type { Logger } from "@auth-platform/runtime/log";
import { call } from "@auth-platform/runtime/rpc";
import { userFields } from "@auth-platform/runtime/user-message";
import type { AdminConfig } from "./config.js";
import { startRetention } from "./domain/audit.js";
import type { IdentityPort, Registry, SessionPort, WebhooksPort } from "./domain/ports.js";
import { openAuditStore } from "./store/mikro-audit-store.js";

/**
 * Identity's and session's refusals (USER_NOT_FOUND, PASSWORD_TOO_SHORT, VALIDATION_ERROR...) are answers
 * for the admin's request, relayed as they are; a peer that is down or failed stays this service's failure.
 */
async function relay<T>(pending: Promise<T>): Promise<T> {
  try {
    return await pending;
  } catch (error) {
    if (error instanceof PeerError && error.code !== "SERVICE_UNAVAILABLE" && error.code !== "INTERNAL_SERVER_ERROR") {
      throw new AuthError(error.code, error.message);
    }
    throw error;
  }
}

/** call() with relay(). */
const rcall: typeof call = (client, method, request, options) => relay(call(client, method, request, options));

/** The most ids identity's GetUsers takes in one call. */
const GET_USERS_BATCH = 1_000;

const required = <T>(value: T | undefined, what: string): T => {
  if (value === undefined) throw new Error(`${what} missing from the answer`);
  return value;
};

/**
 * The identity process's user reads (IdentityService) and admin RPCs (AdminUserService) behind an
 * IdentityPort (also used by the bootstrap command).
 */
export function identityPortOf(identity: IdentityServiceClient, users: AdminUserServiceClient): IdentityPort {
  return {
    async getUser(userId) {
      try {
        return (await rcall(identity, identity.getUser, { id: userId })).user ?? null;
      } catch (error) {
        if (error instanceof AuthError && error.code === "USER_NOT_FOUND") return null;
        throw error;
      }
    },
    async getUsers(userIds) {
      const batches = [];
      for (let start = 0; start < userIds.length; start += GET_USERS_BATCH) batches.push(userIds.slice(start, start + GET_USERS_BATCH));
      const answers = await Promise.all(batches.map((ids) => rcall(identity, identity.getUsers, { ids, emails: [] })));
      return answers.flatMap((answer) => answer.users);
    },
    listUsers: (query) => rcall(users, users.listUsers, query),
    createUser: async (input) => required((await rcall(users, users.createUser, input)).user, "user"),
    setRole: async (userId, role) => required((await rcall(users, users.setRole, { userId, role })).user, "user"),
    updateUser: async (input) => required((await rcall(users, users.setUserProfile, input)).user, "user"),
    setUserPassword: async (userId, newPassword) => {
      await rcall(users, users.setUserPassword, { userId, newPassword });
    },
    banUser: async (userId, reason, expiresInSeconds) => required((await rcall(users, users.banUser, { userId, reason, expiresInSeconds: String(expiresInSeconds) })).user, "user"),
    unbanUser: async (userId) => required((await rcall(users, users.unbanUser, { userId })).user, "user"),
    removeUser: async (userId) => {
      await rcall(users, users.removeUser, { userId });
    },
  };
}

export async function buildRegistry(config: AdminConfig, log: Logger): Promise<Registry & { close(): Promise<void> }> {
  const store = await openAuditStore(config.databaseUrl);
  const tls = config.grpc.tls;
  const identity = createGrpcClient(IdentityServiceClient, config.identityServiceUrl, { tls, serverName: "identity" });
  const users = createGrpcClient(AdminUserServiceClient, config.identityServiceUrl, { tls, serverName: "identity" });
  const sessions = createGrpcClient(SessionServiceClient, config.sessionServiceUrl, { tls, serverName: "session" });

  const identityPort = identityPortOf(identity, users);

  const sessionPort: SessionPort = {
    listSessions: async (userId) => (await rcall(sessions, sessions.listSessions, { userId, includeImpersonated: true })).sessions,
    async createImpersonationSession(input) {
      const { session } = await rcall(sessions, sessions.createSession, {
        userId: input.user.id,
        ...userFields(input.user),
        impersonatedBy: input.impersonatedBy,
        expiresInSeconds: input.expiresInSeconds,
        // Not persistent: a browser-session cookie, and the short lifetime above.
        rememberMe: false,
        ipAddress: input.ipAddress,
        userAgent: input.userAgent,
        // The admin proved nothing as the user: the session says so (impersonatedBy names the admin).
        authMethod: "impersonation",
      });
      return required(session, "session");
    },
    revokeSession: async (sessionId) => (await rcall(sessions, sessions.revokeSession, { token: "", sessionId })).userId,
    revokeUserSessions: async (userId) => {
      await rcall(sessions, sessions.revokeUserSessions, { userId });
    },
  };

  const hooks = createGrpcClient(WebhookServiceClient, config.notificationServiceUrl, { tls, serverName: "notification" });
  const webhooks: WebhooksPort = {
    list: async () => (await rcall(hooks, hooks.listWebhookEndpoints, {})).endpoints,
    async create(input) {
      const { endpoint, secret } = await rcall(hooks, hooks.createWebhookEndpoint, input);
      return { endpoint: required(endpoint, "endpoint"), secret };
    },
    async update({ eventTypes, ...input }) {
      const { endpoint } = await rcall(hooks, hooks.updateWebhookEndpoint, { ...input, eventTypes: eventTypes ?? [], updateEventTypes: eventTypes !== undefined });
      return required(endpoint, "endpoint");
    },
    async remove(id) {
      await rcall(hooks, hooks.deleteWebhookEndpoint, { id });
    },
    async rotateSecret(id) {
      const { endpoint, secret } = await rcall(hooks, hooks.rotateWebhookSecret, { id });
      return { endpoint: required(endpoint, "endpoint"), secret };
    },
    deliveries: async (endpointId, limit) => (await rcall(hooks, hooks.listWebhookDeliveries, { endpointId, limit })).deliveries,
    resend: async (id) => required((await rcall(hooks, hooks.resendWebhookDelivery, { id })).delivery, "delivery"),
    sendTest: async (id) => required((await rcall(hooks, hooks.sendTestWebhookEvent, { id })).delivery, "delivery"),
  };
  const registry: Registry = { config, store, identity: identityPort, sessions: sessionPort, webhooks, log, now: () => new Date() };
  const stopRetention = startRetention(registry);
  return {
    ...registry,
    async close() {
      stopRetention();
      identity.close();
      users.close();
      sessions.close();
      hooks.close();
      await store.close();
    },
  };
}
