/** AdminService over gRPC: decode, call one use case, encode. */
import { type AdminServiceServer, AdminServiceService } from "@auth-platform/proto/gen/auth/admin/v1/admin";
import { AuthError } from "@auth-platform/proto/errors";
import type { RpcServer } from "@auth-platform/proto/rpc-server";
import type { AccessTable } from "@auth-platform/runtime/grpc-access";
import type { ServiceBinding } from "@auth-platform/runtime/grpc-server";
import { asAdmin, checkAdmin } from "../domain/as-admin.js";
import { listAuditEvents, record, usersNamedIn } from "../domain/audit.js";
import { impersonateUser, stopImpersonating } from "../domain/impersonation.js";
import { hasPermission } from "../domain/permissions.js";
import type { Registry } from "../domain/ports.js";
import * as users from "../domain/users.js";
import { toAuditEventMessage } from "./mappers.js";

const GATEWAY = ["gateway"] as const;

/** Who may call what (docs/internal-api.md). */
export const ADMIN_ACCESS: AccessTable = {
  ListUsers: GATEWAY,
  GetUser: GATEWAY,
  CreateUser: GATEWAY,
  SetRole: GATEWAY,
  SetUserPassword: GATEWAY,
  ListUserSessions: GATEWAY,
  BanUser: GATEWAY,
  UnbanUser: GATEWAY,
  ImpersonateUser: GATEWAY,
  StopImpersonating: GATEWAY,
  RevokeUserSession: GATEWAY,
  RevokeUserSessions: GATEWAY,
  RemoveUser: GATEWAY,
  HasPermission: GATEWAY,
  CheckAdmin: GATEWAY,
  ListAuditEvents: GATEWAY,
  // Security events, reported by the gateway (which sees actor, IP, user agent and outcome); calls no one back.
  RecordEvent: ["gateway"],
  UpdateUser: GATEWAY,
  ListRoles: GATEWAY,
  ListWebhookEndpoints: GATEWAY,
  CreateWebhookEndpoint: GATEWAY,
  UpdateWebhookEndpoint: GATEWAY,
  DeleteWebhookEndpoint: GATEWAY,
  RotateWebhookSecret: GATEWAY,
  ListWebhookDeliveries: GATEWAY,
  ResendWebhookDelivery: GATEWAY,
  SendTestWebhookEvent: GATEWAY,
};

const OUTCOMES = new Set(["success", "failure"]);

export function adminService(registry: Registry, rpc: RpcServer): ServiceBinding {
  const hooks = registry.webhooks;
  const implementation: AdminServiceServer = {
    // Webhooks: the notification service decides what is valid; the audit log records each change (never a secret).
    listWebhookEndpoints: rpc.unary("ListWebhookEndpoints", async (req) => asAdmin(registry, req.caller, {}, async () => ({ endpoints: await hooks.list() }))),
    createWebhookEndpoint: rpc.unary("CreateWebhookEndpoint", async (req) =>
      asAdmin(registry, req.caller, { action: "webhook.create", details: { url: req.url, eventTypes: req.eventTypes }, targetOf: (r) => r.endpoint.id }, () =>
        hooks.create({ url: req.url, eventTypes: req.eventTypes, description: req.description, enabled: req.enabled }),
      ),
    ),
    updateWebhookEndpoint: rpc.unary("UpdateWebhookEndpoint", async (req) =>
      asAdmin(registry, req.caller, { action: "webhook.update", targetId: req.id }, async () => ({
        endpoint: await hooks.update({
          id: req.id,
          url: req.url,
          eventTypes: req.updateEventTypes ? req.eventTypes : undefined,
          description: req.description,
          enabled: req.enabled,
        }),
      })),
    ),
    deleteWebhookEndpoint: rpc.unary("DeleteWebhookEndpoint", async (req) =>
      asAdmin(registry, req.caller, { action: "webhook.delete", targetId: req.id }, async () => {
        await hooks.remove(req.id);
        return {};
      }),
    ),
    rotateWebhookSecret: rpc.unary("RotateWebhookSecret", async (req) =>
      asAdmin(registry, req.caller, { action: "webhook.rotate-secret", targetId: req.id }, () => hooks.rotateSecret(req.id)),
    ),
    listWebhookDeliveries: rpc.unary("ListWebhookDeliveries", async (req) =>
      asAdmin(registry, req.caller, {}, async () => ({ deliveries: await hooks.deliveries(req.endpointId, req.limit) })),
    ),
    resendWebhookDelivery: rpc.unary("ResendWebhookDelivery", async (req) =>
      asAdmin(registry, req.caller, { action: "webhook.resend", targetId: req.id }, async () => ({ delivery: await hooks.resend(req.id) })),
    ),
    sendTestWebhookEvent: rpc.unary("SendTestWebhookEvent", async (req) =>
      asAdmin(registry, req.caller, { action: "webhook.test", targetId: req.id }, async () => ({ delivery: await hooks.sendTest(req.id) })),
    ),
    listUsers: rpc.unary("ListUsers", async (req) => users.listUsers(registry, req.caller, req.query ?? { limit: 0, offset: 0, countLimit: 0 })),
    getUser: rpc.unary("GetUser", async (req) => ({ user: await users.getUser(registry, req.caller, req.userId) })),
    createUser: rpc.unary("CreateUser", async (req) => ({
      user: await users.createUser(registry, req.caller, {
        email: req.email,
        password: req.password,
        name: req.name,
        role: req.role,
        extraFields: req.extraFields ?? {},
      }),
    })),
    updateUser: rpc.unary("UpdateUser", async (req) => ({
      user: await users.updateUser(registry, req.caller, {
        userId: req.userId,
        name: req.name,
        image: req.image,
        clearImage: req.clearImage,
        role: req.role,
        extraFields: req.extraFields ?? {},
      }),
    })),
    setRole: rpc.unary("SetRole", async (req) => ({ user: await users.setRole(registry, req.caller, req.userId, req.role) })),
    setUserPassword: rpc.unary("SetUserPassword", async (req) => {
      await users.setUserPassword(registry, req.caller, req.userId, req.newPassword);
      return {};
    }),
    listUserSessions: rpc.unary("ListUserSessions", async (req) => ({ sessions: await users.listUserSessions(registry, req.caller, req.userId) })),
    banUser: rpc.unary("BanUser", async (req) => {
      const expiresInSeconds = Number(req.expiresInSeconds);
      return { user: await users.banUser(registry, req.caller, { userId: req.userId, reason: req.reason, expiresInSeconds }) };
    }),
    unbanUser: rpc.unary("UnbanUser", async (req) => ({ user: await users.unbanUser(registry, req.caller, req.userId) })),
    impersonateUser: rpc.unary("ImpersonateUser", async (req) => impersonateUser(registry, req.caller, req.userId)),
    stopImpersonating: rpc.unary("StopImpersonating", async (req) => {
      await stopImpersonating(registry, req.caller, { sessionId: req.adminSessionId, userId: req.adminUserId });
      return {};
    }),
    revokeUserSession: rpc.unary("RevokeUserSession", async (req) => {
      await users.revokeUserSession(registry, req.caller, req.sessionId);
      return {};
    }),
    revokeUserSessions: rpc.unary("RevokeUserSessions", async (req) => {
      await users.revokeUserSessions(registry, req.caller, req.userId);
      return {};
    }),
    removeUser: rpc.unary("RemoveUser", async (req) => {
      await users.removeUser(registry, req.caller, req.userId);
      return {};
    }),
    hasPermission: rpc.unary("HasPermission", async (req) => ({ success: await hasPermission(registry, req.caller, req.permissions ?? {}) })),
    // Nothing to record: the gateway asks before it refuses an admin route's bad input.
    checkAdmin: rpc.unary("CheckAdmin", async (req) => {
      await checkAdmin(registry, req.caller, req.route);
      return {};
    }),
    listAuditEvents: rpc.unary("ListAuditEvents", async (req) =>
      asAdmin(registry, req.caller, {}, async () => {
        const { records, total } = await listAuditEvents(registry, {
          limit: req.limit,
          offset: req.offset,
          action: req.action,
          actorId: req.actorId,
          targetId: req.targetId,
          since: req.since,
          until: req.until,
        });
        return { events: records.map(toAuditEventMessage), total, users: await usersNamedIn(registry, records) };
      }),
    ),
    listRoles: rpc.unary("ListRoles", async (req) => ({ roles: await users.listRoles(registry, req.caller) })),
    recordEvent: rpc.unary("RecordEvent", async (req) => {
      const event = req.event;
      if (!event?.id || !event.action || !OUTCOMES.has(event.outcome)) throw new AuthError("VALIDATION_ERROR", "event needs an id, an action and an outcome (success or failure)");
      await record(registry, {
        id: event.id,
        action: event.action,
        actorId: event.actorId ?? null,
        impersonatorId: event.impersonatorId ?? null,
        targetId: event.targetId ?? null,
        at: event.at ?? registry.now(),
        ipAddress: event.ipAddress ?? null,
        userAgent: event.userAgent ?? null,
        outcome: event.outcome as "success" | "failure",
        details: event.details ?? {},
      });
      return {};
    }),
  };
  return {
    definition: AdminServiceService,
    implementation: implementation as unknown as ServiceBinding["implementation"],
    name: "auth.admin.v1.AdminService",
    access: ADMIN_ACCESS,
  };
}
