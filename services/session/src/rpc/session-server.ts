/** SessionService over gRPC: decode, call one use case, encode. */
import { type SessionServiceServer, SessionServiceService } from "@auth-platform/proto/gen/auth/session/v1/session";
import { AuthError } from "@auth-platform/proto/errors";
import type { RpcServer } from "@auth-platform/proto/rpc-server";
import type { AccessTable } from "@auth-platform/runtime/grpc-access";
import type { ServiceBinding } from "@auth-platform/runtime/grpc-server";
import type { Registry } from "../domain/ports.js";
import { createSession, forgetUser, getSession, listSessions, revokeSession, revokeUserSessions } from "../domain/sessions.js";
import { sessionMessageFromCache, toSessionMessage, toUserMessage, userFromMessage } from "./mappers.js";

/** Who may call what (docs/internal-api.md). */
export const SESSION_ACCESS: AccessTable = {
  // admin: impersonation sessions, the caller's session, a user's sessions for admins, admin revocations.
  CreateSession: ["identity", "admin"],
  GetSession: ["gateway", "internal-client", "admin"],
  ListSessions: ["gateway", "admin"],
  RevokeSession: ["gateway", "admin"],
  RevokeOtherSessions: ["gateway"],
  RevokeUserSessions: ["gateway", "identity", "admin"],
  ForgetUser: ["identity"],
};

export function sessionService(registry: Registry, rpc: RpcServer): ServiceBinding {
  const implementation: SessionServiceServer = {
    createSession: rpc.unary("CreateSession", async (req) => {
      if (!req.userId) throw new AuthError("VALIDATION_ERROR", "userId is required");
      if (req.user && req.user.id !== req.userId) throw new AuthError("VALIDATION_ERROR", "user.id must be userId");
      const session = await createSession(registry, { ...req, user: req.user && userFromMessage(req.user) });
      return { session: toSessionMessage(session) };
    }),
    getSession: rpc.unary("GetSession", async (req) => {
      const found = req.token ? await getSession(registry, req.token, req.disableRefresh) : null;
      if (!found) return { refreshed: false };
      return {
        session: sessionMessageFromCache(found.cached.session),
        user: toUserMessage(found.cached.user),
        refreshed: found.refreshed,
      };
    }),
    listSessions: rpc.unary("ListSessions", async (req) => ({
      sessions: (await listSessions(registry, req.userId, req.includeImpersonated)).map(toSessionMessage),
    })),
    revokeSession: rpc.unary("RevokeSession", async (req) => {
      await revokeSession(registry, req.token, req.userId);
      return {};
    }),
    revokeUserSessions: rpc.unary("RevokeUserSessions", async (req) => {
      await revokeUserSessions(registry, req.userId);
      return {};
    }),
    revokeOtherSessions: rpc.unary("RevokeOtherSessions", async (req) => {
      await revokeUserSessions(registry, req.userId, req.keepToken);
      return {};
    }),
    forgetUser: rpc.unary("ForgetUser", async (req) => {
      await forgetUser(registry, req.userId);
      return {};
    }),
  };
  return {
    definition: SessionServiceService,
    implementation: implementation as unknown as ServiceBinding["implementation"],
    name: "auth.session.v1.SessionService",
    access: SESSION_ACCESS,
  };
}
