/** Builds the admin service's dependencies once: config, audit store, identity and session clients, clock. */
import { IdentityServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import { SessionServiceClient } from "@auth-platform/proto/gen/auth/session/v1/session";
import { AuthError } from "@auth-platform/proto/errors";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import type { Logger } from "@auth-platform/runtime/log";
import { call } from "@auth-platform/runtime/rpc";
import type { AdminConfig } from "./config.js";
import { startRetention } from "./domain/audit.js";
import type { IdentityPort, Registry, SessionPort } from "./domain/ports.js";
import { openAuditStore } from "./store/mikro-audit-store.js";

const required = <T>(value: T | undefined, what: string): T => {
  if (value === undefined) throw new Error(`${what} missing from the answer`);
  return value;
};

export async function buildRegistry(config: AdminConfig, log: Logger): Promise<Registry & { close(): Promise<void> }> {
  const store = await openAuditStore(config.databaseUrl);
  const tls = config.grpc.tls;
  const identity = createGrpcClient(IdentityServiceClient, config.identityServiceUrl, { tls, serverName: "identity" });
  const sessions = createGrpcClient(SessionServiceClient, config.sessionServiceUrl, { tls, serverName: "session" });

  const identityPort: IdentityPort = {
    async getUser(userId) {
      try {
        return (await call(identity, identity.getUser, { id: userId })).user ?? null;
      } catch (error) {
        if (error instanceof AuthError && error.code === "USER_NOT_FOUND") return null;
        throw error;
      }
    },
    listUsers: (query) => call(identity, identity.listUsers, query),
    createUser: async (input) => required((await call(identity, identity.createUser, input)).user, "user"),
    setRole: async (userId, role) => required((await call(identity, identity.setRole, { userId, role })).user, "user"),
    setUserPassword: async (userId, newPassword) => {
      await call(identity, identity.setUserPassword, { userId, newPassword });
    },
    banUser: async (userId, reason, expiresInSeconds) =>
      required((await call(identity, identity.banUser, { userId, reason, expiresInSeconds: String(expiresInSeconds) })).user, "user"),
    unbanUser: async (userId) => required((await call(identity, identity.unbanUser, { userId })).user, "user"),
    removeUser: async (userId) => {
      await call(identity, identity.removeUser, { userId });
    },
  };

  const sessionPort: SessionPort = {
    async getSession(token) {
      const found = await call(sessions, sessions.getSession, { token, disableRefresh: true });
      return found.session && found.user ? { session: found.session, user: found.user } : null;
    },
    listSessions: async (userId) => (await call(sessions, sessions.listSessions, { userId, includeImpersonated: true })).sessions,
    async createImpersonationSession(input) {
      const { session } = await call(sessions, sessions.createSession, {
        userId: input.user.id,
        user: input.user,
        impersonatedBy: input.impersonatedBy,
        expiresInSeconds: input.expiresInSeconds,
        // Not persistent (SPEC.md §4): a browser-session cookie, and the short lifetime above.
        rememberMe: false,
        ipAddress: input.ipAddress,
        userAgent: input.userAgent,
      });
      return required(session, "session");
    },
    revokeSession: async (token) => {
      await call(sessions, sessions.revokeSession, { token });
    },
    revokeUserSessions: async (userId) => {
      await call(sessions, sessions.revokeUserSessions, { userId });
    },
  };

  const registry: Registry = { config, store, identity: identityPort, sessions: sessionPort, log, now: () => new Date() };
  const stopRetention = startRetention(registry);
  return {
    ...registry,
    async close() {
      stopRetention();
      identity.close();
      sessions.close();
      await store.close();
    },
  };
}
