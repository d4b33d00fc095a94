/** SessionService over gRPC: decode, call one use case, encode. */
import * as grpc from "@grpc/grpc-js";
import {
  type SessionServiceServer,
  SessionServiceService,
  type WatchSessionEventsRequest,
  type WatchSessionEventsResponse,
  UserEventKind as UserEventKindMessage,
  type WatchUserEventsRequest,
  type WatchUserEventsResponse,
} from "@auth-platform/proto/gen/auth/session/v1/session";
import { AuthError } from "@auth-platform/proto/errors";
import type { RpcServer } from "@auth-platform/proto/rpc-server";
import { type AccessTable, requireWorkload, type Workload } from "@auth-platform/runtime/grpc-access";
import type { ServiceBinding } from "@auth-platform/runtime/grpc-server";
import { type Caller, requireCaller } from "@auth-platform/runtime/caller";
import { carriedUser, userFields } from "@auth-platform/runtime/user-message";
import type { Registry } from "../domain/ports.js";
import type { SessionEvent, SessionEventHub, Watch } from "../domain/session-events.js";
import type { UserEventHub, UserEventKind } from "../domain/user-events.js";
import { clearActiveOrganization, clearActiveTeam, setActiveOrganization, setActiveTeam } from "../domain/active-organization.js";
import {
  type CallerRef,
  callerByToken,
  createSession,
  forgetUser,
  getSession,
  listSessions,
  revokeSession,
  revokeSessionById,
  revokeUserSessions,
  usersMissingSnapshot,
} from "../domain/sessions.js";
import { issueSessionToken, jwks } from "../domain/session-jwt.js";
import { sessionMessageFromCache, toSessionMessage, toUserMessage, userFromMessage } from "./mappers.js";

/** Who may call what (docs/internal-api.md). */
export const SESSION_ACCESS: AccessTable = {
  // admin: impersonation sessions, the caller's session, a user's sessions for admins, admin revocations.
  CreateSession: ["identity", "admin"],
  GetSession: ["gateway", "internal-client", "admin"],
  ListSessions: ["gateway", "admin"],
  // identity: by session_id and user_id, the caller's old session when a change of factors rotates it.
  RevokeSession: ["gateway", "identity", "admin"],
  RevokeOtherSessions: ["gateway"],
  RevokeUserSessions: ["gateway", "identity", "admin"],
  PutUserCopy: ["identity"],
  DropUserCopy: ["identity"],
  ForgetUser: ["identity"],
  ListUsersMissingSnapshot: ["identity"],
  // The organization service has checked the membership; nothing else changes a session's organization.
  SetActiveOrganization: ["organization"],
  ClearActiveOrganization: ["organization"],
  SetActiveTeam: ["organization"],
  ClearActiveTeam: ["organization"],
  // The gateway's session memory and internal services' caches (@auth-platform/node), under the same acks and
  // leases (docs/adr/0056-gateway-session-cache-invalidated-by-pushes.md, 0078-internal-services-watch-revocations.md).
  WatchSessionEvents: ["gateway", "internal-client"],
  // Who was banned, unbanned, demoted or deleted, for services that act on it (ADR 0078).
  WatchUserEvents: ["gateway", "internal-client"],
  // GET /token for the signed-in user; GET /jwks, and services verifying tokens (docs/adr/0076).
  IssueSessionToken: ["gateway"],
  GetJwks: ["gateway", "internal-client"],
};

/**
 * Who may hand over a copy of a user with RevokeUserSessions (a ban's): identity, which owns users. The
 * session service serves the copy it keeps to get-session and the admin service, so a copy from anyone
 * else (a role of their choosing) would be believed.
 */
const USER_COPY_SENDERS: readonly Workload[] = ["identity"];

/** The reasons a service may give RevokeUserSessions (session.revoked's `reason`). */
const SERVICE_REVOCATION_REASONS = ["password-changed", "user-deleted"] as const;
const SERVICE_NAME = "auth.session.v1.SessionService";

/**
 * The caller a request names: the gateway's Caller, or (deprecated, a gateway of the previous release during
 * a rolling upgrade) the caller's session token, resolved here. Absent: a service's own call.
 */
async function callerOf(registry: Registry, req: { caller?: Caller; callerToken?: string }): Promise<CallerRef | undefined> {
  if (req.caller) return requireCaller(req.caller);
  return req.callerToken === undefined ? undefined : callerByToken(registry, req.callerToken);
}

export function sessionService(registry: Registry & { events: SessionEventHub; userEvents: UserEventHub }, rpc: RpcServer): ServiceBinding {
  const mutualTls = registry.config.grpc.tls.kind === "mtls";
  const implementation: SessionServiceServer = {
    createSession: rpc.unary("CreateSession", async (req) => {
      if (!req.userId) throw new AuthError("VALIDATION_ERROR", "userId is required");
      const user = carriedUser(req);
      if (user && user.id !== req.userId) throw new AuthError("VALIDATION_ERROR", "user.id must be userId");
      const session = await createSession(registry, { ...req, user: user && userFromMessage(user) });
      return { session: toSessionMessage(session) };
    }),
    getSession: rpc.unary("GetSession", async (req) => {
      const found = req.token ? await getSession(registry, req.token, req.disableRefresh) : null;
      if (!found) return { refreshed: false };
      return {
        session: sessionMessageFromCache(found.cached.session),
        ...userFields(toUserMessage(found.cached.user)),
        refreshed: found.refreshed,
        refreshAt: new Date(found.cached.refreshAt),
        tokenLookup: registry.tokens.lookup(req.token),
      };
    }),
    listSessions: rpc.unary("ListSessions", async (req) => ({
      sessions: (await listSessions(registry, req.userId, { includeImpersonated: req.includeImpersonated, caller: await callerOf(registry, req) })).map(toSessionMessage),
    })),
    revokeSession: rpc.unary("RevokeSession", async (req, { caller: workload }) => {
      if (req.sessionId !== undefined) {
        if (req.token || req.caller) throw new AuthError("VALIDATION_ERROR", "name the session by token or by sessionId, not both");
        // identity ends a session by id only when a rotation replaced it; the admin service, an admin's revocation.
        return { userId: await revokeSessionById(registry, req.sessionId, req.userId, workload === "identity" ? "replaced" : "revoke-session") };
      }
      return { userId: await revokeSession(registry, req.token, { ownerId: req.userId, caller: await callerOf(registry, req) }) };
    }),
    revokeUserSessions: rpc.unary("RevokeUserSessions", async (req, { caller }) => {
      const user = carriedUser(req);
      if (user) requireWorkload({ log: registry.log, mutualTls, method: `${SERVICE_NAME}/RevokeUserSessions` }, caller, USER_COPY_SENDERS, { field: "user" });
      if (user && user.id !== req.userId) throw new AuthError("VALIDATION_ERROR", "user.id must be userId");
      const reason = req.reason === undefined ? undefined : SERVICE_REVOCATION_REASONS.find((known) => known === req.reason);
      if (req.reason !== undefined && !reason) throw new AuthError("VALIDATION_ERROR", "reason is not one of password-changed, user-deleted");
      await revokeUserSessions(registry, req.userId, { user: user && userFromMessage(user), caller: await callerOf(registry, req), reason });
      return {};
    }),
    revokeOtherSessions: rpc.unary("RevokeOtherSessions", async (req) => {
      // The session that stays is the caller's: an impersonation session may not end the user's others.
      const old = !req.caller && req.keepToken !== undefined;
      const caller = old ? await callerByToken(registry, req.keepToken!) : requireCaller(req.caller);
      await revokeUserSessions(registry, old ? (req.userId ?? "") : caller.userId, { caller, keepCallers: true });
      return {};
    }),
    putUserCopy: rpc.unary("PutUserCopy", async (req) => {
      const user = carriedUser(req);
      if (!user?.id) throw new AuthError("VALIDATION_ERROR", "user is required");
      await forgetUser(registry, user.id, userFromMessage(user));
      return {};
    }),
    dropUserCopy: rpc.unary("DropUserCopy", async (req) => {
      if (!req.userId) throw new AuthError("VALIDATION_ERROR", "userId is required");
      await forgetUser(registry, req.userId, undefined, { deleted: true });
      return {};
    }),
    forgetUser: rpc.unary("ForgetUser", async (req) => {
      if (!req.userId) throw new AuthError("VALIDATION_ERROR", "userId is required");
      if (req.user && req.user.id !== req.userId) throw new AuthError("VALIDATION_ERROR", "user.id must be userId");
      await forgetUser(registry, req.userId, req.user && userFromMessage(req.user));
      return {};
    }),
    listUsersMissingSnapshot: rpc.unary("ListUsersMissingSnapshot", async (req) => ({
      userIds: await usersMissingSnapshot(registry, req.afterUserId, req.limit || 100),
    })),
    setActiveOrganization: rpc.unary("SetActiveOrganization", async (req) => {
      if (!req.sessionId) throw new AuthError("VALIDATION_ERROR", "sessionId is required");
      await setActiveOrganization(registry, req.sessionId, req.organizationId || null);
      return {};
    }),
    setActiveTeam: rpc.unary("SetActiveTeam", async (req) => {
      if (!req.sessionId) throw new AuthError("VALIDATION_ERROR", "sessionId is required");
      if (req.teamId && !req.organizationId) throw new AuthError("VALIDATION_ERROR", "organizationId is required with teamId");
      await setActiveTeam(registry, req.sessionId, req.teamId ? { teamId: req.teamId, organizationId: req.organizationId! } : null);
      return {};
    }),
    clearActiveTeam: rpc.unary("ClearActiveTeam", async (req) => {
      if (!req.teamId) throw new AuthError("VALIDATION_ERROR", "teamId is required");
      await clearActiveTeam(registry, req.teamId, req.userId || undefined);
      return {};
    }),
    clearActiveOrganization: rpc.unary("ClearActiveOrganization", async (req) => {
      if (!req.organizationId) throw new AuthError("VALIDATION_ERROR", "organizationId is required");
      await clearActiveOrganization(registry, req.organizationId, req.userId || undefined);
      return {};
    }),
    issueSessionToken: rpc.unary("IssueSessionToken", async (req) => issueSessionToken(registry, requireCaller(req.caller))),
    getJwks: rpc.unary("GetJwks", async () => {
      const { keys, maxAgeSeconds } = await jwks(registry);
      return { keys, maxAgeSeconds };
    }),
    watchSessionEvents: rpc.duplex("WatchSessionEvents", (stream) => serveWatch(registry.events, stream)),
    watchUserEvents: rpc.serverStream("WatchUserEvents", (stream) => serveUserEvents(registry.userEvents, stream)),
  };
  return {
    definition: SessionServiceService,
    implementation: implementation as unknown as ServiceBinding["implementation"],
    name: SERVICE_NAME,
    access: SESSION_ACCESS,
  };
}

type WatchStream = grpc.ServerDuplexStream<WatchSessionEventsRequest, WatchSessionEventsResponse>;

/** One watcher's stream: a hello first, then its acks and pings; resolves when the stream is over. */
function serveWatch(hub: SessionEventHub, stream: WatchStream): Promise<void> {
  return new Promise((resolve, reject) => {
    let watch: Watch | undefined;
    const write = (message: WatchSessionEventsResponse) => {
      if (!stream.writableEnded && !stream.destroyed) stream.write(message);
    };
    const over = () => {
      watch?.close();
      resolve();
    };
    // A half-close is the watcher's word that it holds nothing (packages/node/src/session-watch.ts clears, then ends).
    const released = () => {
      watch?.release();
      if (!stream.writableEnded) stream.end();
      resolve();
    };
    stream.on("data", (request: WatchSessionEventsRequest) => {
      const message = request.message;
      if (!watch) {
        if (message?.$case !== "hello") return reject(new AuthError("VALIDATION_ERROR", "the first message must be hello"));
        watch = hub.watch(
          { id: message.value.watcherId.slice(0, 100), acknowledges: message.value.acknowledges },
          {
            event: (seq, event) => write({ seq: String(seq), event: eventMessage(event) }),
            lease: (n, leaseMs) => write({ seq: "0", event: { $case: "lease", value: { n: String(n), leaseMs } } }),
            end: () => {
              if (!stream.writableEnded) stream.end();
              over();
            },
          },
        );
      } else if (message?.$case === "ack") watch.ack(Number(message.value.seq));
      else if (message?.$case === "ping") watch.ping(Number(message.value.n));
    });
    stream.once("end", released);
    stream.once("cancelled", over);
    stream.once("error", over);
  });
}

const USER_EVENT_KINDS: Record<UserEventKind, UserEventKindMessage> = {
  updated: UserEventKindMessage.USER_EVENT_KIND_UPDATED,
  banned: UserEventKindMessage.USER_EVENT_KIND_BANNED,
  unbanned: UserEventKindMessage.USER_EVENT_KIND_UNBANNED,
  "role-changed": UserEventKindMessage.USER_EVENT_KIND_ROLE_CHANGED,
  deleted: UserEventKindMessage.USER_EVENT_KIND_DELETED,
};

/** One WatchUserEvents stream: every user event from now on, until the watcher goes (or a shutdown ends it). */
function serveUserEvents(hub: Pick<UserEventHub, "watch">, stream: grpc.ServerWritableStream<WatchUserEventsRequest, WatchUserEventsResponse>): Promise<void> {
  return new Promise((resolve) => {
    const stop = hub.watch((event) => {
      if (!stream.writableEnded && !stream.destroyed) stream.write({ userId: event.userId, kind: USER_EVENT_KINDS[event.kind], occurredAt: new Date(event.at) });
    });
    // Headers at once: the watcher knows from them that every later change reaches it.
    stream.sendMetadata(new grpc.Metadata());
    const over = () => {
      stop();
      resolve();
    };
    stream.once("cancelled", over);
    stream.once("error", over);
    stream.once("close", over);
    stream.once("finish", over);
  });
}

function eventMessage(event: SessionEvent): WatchSessionEventsResponse["event"] {
  switch (event.kind) {
    case "sessions-revoked":
      return { $case: "sessionsRevoked", value: { tokenLookups: event.lookups } };
    case "session-changed":
      return { $case: "sessionChanged", value: { tokenLookups: event.lookups } };
    case "user-changed":
      return { $case: "userChanged", value: { userId: event.userId } };
  }
}
