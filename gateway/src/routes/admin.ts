/**
 * The admin area under /admin (docs/http-api/admin.md), as better-auth's adminClient 1.1 and 1.7 call it. Each route
 * makes one call to the admin service with the caller's session token; the admin service decides who is an
 * admin. The gateway's own part is HTTP: bodies, cookies (the admin's session kept in a signed cookie while
 * impersonating), status codes.
 */
import type { NextFunction, Request, Response } from "express";
import * as z from "zod";
import { AuthError, PeerError } from "@auth-platform/proto/errors";
import { call } from "@auth-platform/runtime/rpc";
import { callerOf } from "../http/caller.js";
import { defineRoute, type Route } from "../http/define-route.js";
import {
  adminUserSchema,
  auditEventsSchema,
  listUserSessionsSchema,
  listUsersSchema,
  permissionSchema,
  rolesSchema,
  sessionWithUserSchema,
  statusSchema,
  successSchema,
  userSchema,
} from "../http/public-schemas.js";
import { clearCookie, setSignedCookie, signedCookie } from "../http/cookies.js";
import { fromRequestParsing } from "../http/errors.js";
import { publicSession, publicUser } from "../http/public-shapes.js";
import { sessionHandles } from "@auth-platform/runtime/session-handles";
import { adminWebhookRoutes } from "./admin-webhooks.js";
import { issueSession, type RouteDeps } from "./deps.js";
import {
  adminSuccessResponse,
  adminUserResponse,
  permissionResponse,
  impersonationResponse,
  listUserSessionsResponse,
  listUsersResponse,
  setUserPasswordResponse,
} from "./responses.js";

const id = z.string().min(1).max(255);
const role = z.union([z.string().min(1).max(255), z.array(z.string().min(1).max(255)).min(1).max(32)]).transform((r) => (Array.isArray(r) ? r.join(",") : r));
const queryInt = z.coerce.number().int().min(0).max(1_000_000).optional();

export const listUsersQuery = z.object({
  searchValue: z.string().max(255).optional(),
  searchField: z.string().max(64).optional(),
  searchOperator: z.string().max(64).optional(),
  limit: queryInt,
  offset: queryInt,
  sortBy: z.string().max(64).optional(),
  sortDirection: z.string().max(16).optional(),
  filterField: z.string().max(64).optional(),
  // A query string carries text; the identity service reads it as the filtered field's type. A list (in,
  // not_in) comes as the key repeated (better-auth 1.7's client), one value as a plain one.
  filterValue: z.union([z.string().max(255), z.array(z.string().max(255)).max(100)]).optional(),
  filterOperator: z.string().max(16).optional(),
});
export const userIdBody = z.object({ userId: id });
// Password and role optional, as better-auth 1.7 takes them: no password, no credential account; no role
// (here or as data.role), identity's default role.
export const createUserBody = z.object({
  email: z.string().max(255),
  password: z.string().max(1024).optional(),
  name: z.string().min(1).max(255),
  role: role.optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});
export const setRoleBody = z.object({ userId: id, role });
export const updateUserBody = z.object({ userId: id, data: z.record(z.string(), z.unknown()) });
/** Fields admin update-user never writes: each has its own route, which does what the change implies. */
const NOT_UPDATED_HERE: Record<string, string> = {
  id: "User id cannot be updated",
  password: "Password cannot be updated through update-user; use set-user-password",
  email: "Email cannot be updated through admin update-user",
  emailVerified: "emailVerified cannot be updated through admin update-user",
  banned: "Ban fields cannot be updated through update-user; use ban-user or unban-user",
  banReason: "Ban fields cannot be updated through update-user; use ban-user or unban-user",
  banExpires: "Ban fields cannot be updated through update-user; use ban-user or unban-user",
  createdAt: "createdAt cannot be updated",
  updatedAt: "updatedAt cannot be updated",
};
const updateUserData = z.object({ name: z.string().min(1).max(255).optional(), image: z.string().nullish(), role: role.optional() });
export const setUserPasswordBody = z.object({ userId: id, newPassword: z.string().max(1024) });
export const banUserBody = z.object({
  userId: id,
  banReason: z.string().max(1024).optional(),
  banExpiresIn: z
    .number()
    .int()
    .min(1)
    .max(100 * 365 * 86_400)
    .optional(),
});
export const revokeUserSessionBody = z.object({ sessionToken: z.string().min(1).max(256) });
export const hasPermissionBody = z.object({
  permission: z.record(z.string(), z.array(z.string())).optional(),
  permissions: z.record(z.string(), z.array(z.string())).optional(),
});
export const getUserQuery = z.object({ id });
export const auditQuery = z.object({
  limit: queryInt,
  offset: queryInt,
  action: z.string().max(64).optional(),
  actorId: z.string().max(255).optional(),
  targetId: z.string().max(255).optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
});

/** create-user's data.role, read as the role is (a name or a list); absent stays absent. */
function dataRoleOf(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const parsed = role.safeParse(value);
  if (!parsed.success) throw new AuthError("VALIDATION_ERROR", `Invalid data.role: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

export function adminRoutes(deps: RouteDeps): Route[] {
  const routes: Route[] = [];
  const admin = deps.clients.admin;
  // Named like the session cookie (prefix, __Secure- behind https), so it carries the same protections.
  const adminCookie = deps.jar.sessionName.replace(/session_token$/, "admin_session");
  // The listing shows handles, not bearer tokens; revoke-user-session takes either (runtime/session-handles.ts).
  const handles = sessionHandles(deps.secret);

  const userOut = (user: Parameters<typeof publicUser>[0] | undefined) => publicUser(user ?? { id: "", name: "", email: "", emailVerified: false });

  routes.push(
    defineRoute(
      {
        method: "get",
        path: "/admin/list-users",
        tag: "Admin",
        session: "required",
        summary: "Search and page users",
        query: listUsersQuery,
        response: listUsersSchema,
        errors: ["ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT"],
      },
      async ({ req, session, query, json }) => {
        const q = query;
        const answer = await call(admin, admin.listUsers, {
          caller: callerOf(req, session),
          // The admin service sets the count limit (ADMIN_LIST_USERS_COUNT_LIMIT).
          query: { ...q, limit: q.limit ?? 0, offset: q.offset ?? 0, countLimit: 0 },
        });
        const users = answer.users.map((user) => ({ ...publicUser(user), lastSignInAt: answer.lastSignInAt[user.id]?.toISOString() ?? null }));
        json(listUsersResponse(users, answer.total, answer.totalIsLowerBound, q.limit, q.offset));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "get",
        path: "/admin/get-user",
        tag: "Admin",
        session: "required",
        summary: "One user",
        query: getUserQuery,
        response: userSchema,
        errors: ["ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT", "USER_NOT_FOUND"],
      },
      async ({ req, session, query, json }) => {
        const q = query;
        const { user } = await call(admin, admin.getUser, { caller: callerOf(req, session), userId: q.id });
        json(userOut(user));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/admin/create-user",
        tag: "Admin",
        session: "required",
        summary: "Create a user",
        body: createUserBody,
        response: adminUserSchema,
        errors: [
          "ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT",
          "USER_ALREADY_EXISTS",
          "INVALID_EMAIL",
          "PASSWORD_TOO_SHORT",
          "PASSWORD_TOO_LONG",
          "YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE",
        ],
      },
      async ({ req, session, body, json }) => {
        const caller = callerOf(req, session);
        // better-auth 1.7 reads the role from data.role when role is absent; either way it is not an extra field.
        const { role: dataRole, ...extraFields } = body.data ?? {};
        const { user } = await call(admin, admin.createUser, {
          caller,
          email: body.email,
          password: body.password,
          name: body.name,
          role: body.role ?? dataRoleOf(dataRole),
          extraFields,
        });
        json(adminUserResponse(userOut(user)));
      },
    ),
  );

  // The current client's adminUpdateUser: answers the user itself (not wrapped).
  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/admin/update-user",
        tag: "Admin",
        session: "required",
        summary: "Update a user's name, image, role or configured fields (the current client)",
        body: updateUserBody,
        response: userSchema,
        errors: [
          "ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT",
          "USER_NOT_FOUND",
          "NO_DATA_TO_UPDATE",
          "YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE",
          "YOU_CANNOT_REMOVE_THE_LAST_ADMIN",
        ],
      },
      async ({ req, session, body, json }) => {
        const caller = callerOf(req, session);
        if (Object.keys(body.data).length === 0) throw new AuthError("NO_DATA_TO_UPDATE");
        // Own keys only: a field named like an Object.prototype member ("constructor", "toString") is an extra
        // field like any other (it answered the member function's source as the message before).
        const refused = Object.keys(body.data).find((key) => Object.hasOwn(NOT_UPDATED_HERE, key));
        if (refused) throw new AuthError("VALIDATION_ERROR", NOT_UPDATED_HERE[refused]);
        const known = updateUserData.safeParse(body.data);
        if (!known.success) throw new AuthError("VALIDATION_ERROR", `Invalid data.${known.error.issues[0]?.path.join(".")}: ${known.error.issues[0]?.message}`);
        // The other fields go to identity as extra fields: it keeps the configured ones and drops the rest.
        const extraFields = Object.fromEntries(Object.entries(body.data).filter(([key]) => !Object.hasOwn(updateUserData.shape, key)));
        const { user } = await call(admin, admin.updateUser, {
          caller,
          userId: body.userId,
          name: known.data.name,
          image: known.data.image ?? undefined,
          clearImage: known.data.image === null,
          role: known.data.role,
          extraFields,
        });
        json(userOut(user));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/admin/set-role",
        tag: "Admin",
        session: "required",
        summary: "Set a user's role",
        body: setRoleBody,
        response: adminUserSchema,
        errors: ["ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT", "USER_NOT_FOUND", "YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE", "YOU_CANNOT_REMOVE_THE_LAST_ADMIN"],
      },
      async ({ req, session, body, json }) => {
        const caller = callerOf(req, session);
        const { user } = await call(admin, admin.setRole, { caller, userId: body.userId, role: body.role });
        json(adminUserResponse(userOut(user)));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/admin/set-user-password",
        tag: "Admin",
        session: "required",
        summary: "Set a user's password",
        body: setUserPasswordBody,
        response: statusSchema,
        errors: ["ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT", "USER_NOT_FOUND", "PASSWORD_TOO_SHORT", "PASSWORD_TOO_LONG"],
      },
      async ({ req, session, body, json }) => {
        const caller = callerOf(req, session);
        await call(admin, admin.setUserPassword, { caller, userId: body.userId, newPassword: body.newPassword });
        json(setUserPasswordResponse());
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/admin/list-user-sessions",
        tag: "Admin",
        session: "required",
        summary: "A user's sessions",
        body: userIdBody,
        response: listUserSessionsSchema,
        errors: ["ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT", "USER_NOT_FOUND"],
      },
      async ({ req, session, body, json }) => {
        const caller = callerOf(req, session);
        const { sessions } = await call(admin, admin.listUserSessions, { caller, userId: body.userId });
        json(listUserSessionsResponse(sessions.map((session) => ({ ...publicSession(session), token: handles.handleOf(session.id) }))));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/admin/ban-user",
        tag: "Admin",
        session: "required",
        summary: "Ban a user",
        body: banUserBody,
        response: adminUserSchema,
        errors: ["ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT", "USER_NOT_FOUND", "YOU_CANNOT_BAN_YOURSELF"],
      },
      async ({ req, session, body, json }) => {
        const caller = callerOf(req, session);
        const { user } = await call(admin, admin.banUser, { caller, userId: body.userId, reason: body.banReason, expiresInSeconds: String(body.banExpiresIn ?? 0) });
        json(adminUserResponse(userOut(user)));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/admin/unban-user",
        tag: "Admin",
        session: "required",
        summary: "Lift a ban",
        body: userIdBody,
        response: adminUserSchema,
        errors: ["ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT", "USER_NOT_FOUND"],
      },
      async ({ req, session, body, json }) => {
        const caller = callerOf(req, session);
        const { user } = await call(admin, admin.unbanUser, { caller, userId: body.userId });
        json(adminUserResponse(userOut(user)));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/admin/impersonate-user",
        tag: "Admin",
        session: "required",
        summary: "Act as a user",
        body: userIdBody,
        response: sessionWithUserSchema,
        errors: [
          "ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT",
          "USER_NOT_FOUND",
          "YOU_CANNOT_IMPERSONATE_ADMINS",
          "YOU_CANNOT_IMPERSONATE_BANNED_USERS",
          "YOU_CANNOT_IMPERSONATE_WHILE_IMPERSONATING",
          "FAILED_TO_CREATE_SESSION",
        ],
      },
      async ({ req, session: current, res, body, json }) => {
        const { session, user } = await call(admin, admin.impersonateUser, { caller: callerOf(req, current), userId: body.userId });
        if (!session) throw new AuthError("FAILED_TO_CREATE_SESSION");
        // The admin's own token, kept signed (and the dont-remember choice with it) so stop-impersonating can restore it.
        const dontRemember = req.headers.cookie?.includes(deps.jar.dontRememberName) ? "1" : "";
        setSignedCookie(res, deps.jar, adminCookie, `${current.session.token}:${dontRemember}`, deps.secret);
        issueSession(res, deps, session, false);
        json(impersonationResponse(publicSession(session), userOut(user)));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/admin/stop-impersonating",
        tag: "Admin",
        session: "required",
        summary: "Back to the admin's own session",
        response: sessionWithUserSchema,
        errors: ["YOU_ARE_NOT_IMPERSONATING_ANYONE", "FAILED_TO_FIND_ADMIN_SESSION"],
      },
      async ({ req, session, res, json }) => {
        // A missing or tampered cookie, or a session no longer live, names no admin session: the admin service
        // answers FAILED_TO_FIND_ADMIN_SESSION (and records it).
        const kept = signedCookie(req, adminCookie, deps.secret) ?? "";
        const [adminToken = "", dontRemember = ""] = kept.split(":");
        const back = await deps.sessions.ofToken(req, adminToken);
        await call(admin, admin.stopImpersonating, { caller: callerOf(req, session), adminSessionId: back?.session.id, adminUserId: back?.user.id });
        if (!back) throw new AuthError("FAILED_TO_FIND_ADMIN_SESSION");
        clearCookie(res, deps.jar, adminCookie);
        issueSession(res, deps, back.session, !dontRemember);
        json(impersonationResponse(back.session, back.user));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/admin/revoke-user-session",
        tag: "Admin",
        session: "required",
        summary: "Revoke one session of a user",
        body: revokeUserSessionBody,
        response: successSchema,
        errors: ["ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT", "SESSION_NOT_FOUND"],
      },
      async ({ req, session, body, json }) => {
        const named = body.sessionToken;
        const sessionId = handles.isHandle(named) ? handles.sessionIdOf(named) : ((await deps.sessions.ofToken(req, named))?.session.id ?? "");
        await call(admin, admin.revokeUserSession, { caller: callerOf(req, session), sessionId });
        json(adminSuccessResponse());
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/admin/revoke-user-sessions",
        tag: "Admin",
        session: "required",
        summary: "Revoke all sessions of a user",
        body: userIdBody,
        response: successSchema,
        errors: ["ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT", "USER_NOT_FOUND"],
      },
      async ({ req, session, body, json }) => {
        const caller = callerOf(req, session);
        await call(admin, admin.revokeUserSessions, { caller, userId: body.userId });
        json(adminSuccessResponse());
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/admin/remove-user",
        tag: "Admin",
        session: "required",
        summary: "Delete a user",
        body: userIdBody,
        response: successSchema,
        errors: ["ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT", "USER_NOT_FOUND", "YOU_CANNOT_REMOVE_YOURSELF", "YOU_CANNOT_REMOVE_THE_LAST_ADMIN"],
      },
      async ({ req, session, body, json }) => {
        const caller = callerOf(req, session);
        await call(admin, admin.removeUser, { caller, userId: body.userId });
        json(adminSuccessResponse());
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/admin/has-permission",
        tag: "Admin",
        session: "required",
        summary: "Whether the caller's role allows actions",
        body: hasPermissionBody,
        response: permissionSchema,
      },
      async ({ req, session, body, json }) => {
        const caller = callerOf(req, session);
        const permissions = body.permissions ?? body.permission;
        if (!permissions) throw new AuthError("VALIDATION_ERROR", "Invalid permissions: expected an object of resource -> actions");
        const { success } = await call(admin, admin.hasPermission, { caller, permissions });
        json(permissionResponse(success));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "get",
        path: "/admin/list-audit-events",
        tag: "Admin",
        session: "required",
        summary: "The audit log",
        query: auditQuery,
        response: auditEventsSchema,
        errors: ["ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT"],
      },
      async ({ req, session, query, json }) => {
        const q = query;
        const answer = await call(admin, admin.listAuditEvents, {
          caller: callerOf(req, session),
          limit: q.limit ?? 0,
          offset: q.offset ?? 0,
          action: q.action,
          actorId: q.actorId,
          targetId: q.targetId,
          since: q.since ? new Date(q.since) : undefined,
          until: q.until ? new Date(q.until) : undefined,
        });
        json({
          events: answer.events.map((e) => ({
            id: e.id,
            action: e.action,
            actorId: e.actorId ?? null,
            impersonatorId: e.impersonatorId ?? null,
            targetId: e.targetId ?? null,
            at: (e.at ?? new Date(0)).toISOString(),
            ipAddress: e.ipAddress ?? null,
            userAgent: e.userAgent ?? null,
            outcome: e.outcome,
            details: e.details ?? {},
          })),
          total: answer.total,
          users: Object.fromEntries(answer.users.map(({ id, name, email }) => [id, { name, email }])),
        });
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "get",
        path: "/admin/list-roles",
        tag: "Admin",
        session: "required",
        summary: "The roles admins may give",
        response: rolesSchema,
        errors: ["ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT"],
      },
      async ({ req, session, json }) => {
        const { roles } = await call(admin, admin.listRoles, { caller: callerOf(req, session) });
        json({ roles });
      },
    ),
  );
  routes.push(...adminWebhookRoutes(deps));
  return routes;
}

/** The admin routes any signed-in user may call: their bad input is answered as it is. */
const OPEN_TO_USERS = new Set(["/admin/has-permission", "/admin/stop-impersonating"]);

/**
 * An error handler for the admin routes, mounted after every route and before the error mapper: bad input to
 * an admin route (a body or query the route refuses; malformed JSON, a body too large or a NUL character,
 * refused before any route runs) is answered only to an admin. The caller's session and role are checked
 * first (401, then 403 'Only admins can access this endpoint'), so a non-admin learns nothing about the
 * routes' input. The admin service checks the role again on every call, before its own refusals (a 400 it
 * answers reached an admin): this check is made only for the bad input the gateway refuses.
 */
export function adminInputRefusals(deps: RouteDeps) {
  const admin = deps.clients.admin;
  return async (error: unknown, req: Request, _res: Response, next: NextFunction) => {
    const refusal = error instanceof AuthError ? error : fromRequestParsing(error as { type?: string });
    // The admin service's own answers come after its role check: only the gateway's refusals are asked about.
    const badInput = refusal !== undefined && !(refusal instanceof PeerError) && (refusal.http === 400 || refusal.http === 413);
    if (!badInput || !req.path.startsWith("/admin/") || OPEN_TO_USERS.has(req.path)) return next(error);
    try {
      const session = await deps.sessions.require(req);
      await call(admin, admin.checkAdmin, { caller: callerOf(req, session), route: req.path.slice("/admin/".length) });
    } catch (denied) {
      return next(denied);
    }
    next(error);
  };
}
