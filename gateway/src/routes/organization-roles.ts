/**
 * Custom organization roles (docs/http-api/organizations.md#custom-roles), as better-auth 1.7's
 * organizationClient with dynamic access control calls them: create-role, update-role, delete-role,
 * list-roles, get-role. Each route checks the shape and makes one call to the organization service, which
 * applies every rule (docs/adr/0066-custom-organization-roles.md).
 */
import * as z from "zod";
import type { Role, RoleRef } from "@auth-platform/proto/gen/auth/organization/v1/organization";
import { AuthError } from "@auth-platform/proto/errors";
import { call } from "@auth-platform/runtime/rpc";
import { callerOf } from "../http/caller.js";
import { defineRoute, type Route } from "../http/define-route.js";
import { createdRoleSchema, organizationRoleSchema, successSchema, updatedRoleSchema } from "../http/public-schemas.js";
import type { RouteDeps } from "./deps.js";

const id = z.string().min(1).max(64);
const name = z.string().min(1).max(64);
const permission = z.record(z.string().max(64), z.array(z.string().max(64)).max(16));
/** Additional role fields are not kept: only an empty object is taken. */
const additionalFields = z.strictObject({}).optional();

export const createRoleBody = z.object({ organizationId: id.optional(), role: name, permission, additionalFields });
const roleRef = { roleName: name.optional(), roleId: id.optional() };
export const updateRoleBody = z.object({
  organizationId: id.optional(),
  ...roleRef,
  data: z.strictObject({ permission: permission.optional(), roleName: name.optional() }),
});
export const deleteRoleBody = z.object({ organizationId: id.optional(), ...roleRef });
export const listRolesQuery = z.looseObject({ organizationId: id.optional() });
export const getRoleQuery = z.looseObject({ organizationId: id.optional(), ...roleRef });

/** The role a request names: roleName first, as better-auth reads it, else roleId. */
function refOf(input: { roleName?: string; roleId?: string }): RoleRef {
  if (input.roleName) return { ref: { $case: "name", value: input.roleName } };
  if (input.roleId) return { ref: { $case: "id", value: input.roleId } };
  throw new AuthError("VALIDATION_ERROR", "Invalid body: roleName or roleId is required");
}

const actionsOf = (map: Record<string, string[]>) => Object.fromEntries(Object.entries(map).map(([resource, actions]) => [resource, { actions }]));

const publicRole = (role: Role) => ({
  id: role.id,
  organizationId: role.organizationId,
  role: role.name,
  permission: Object.fromEntries(Object.entries(role.permissions).map(([resource, { actions }]) => [resource, actions])),
  createdAt: (role.createdAt ?? new Date(0)).toISOString(),
  ...(role.updatedAt ? { updatedAt: role.updatedAt.toISOString() } : {}),
});

const NOT_MEMBER = "YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION";

export function organizationRoleRoutes(deps: RouteDeps): Route[] {
  const organization = deps.clients.organization;
  return [
    defineRoute(
      {
        method: "post",
        path: "/organization/create-role",
        tag: "Organizations",
        session: "required",
        summary: "Define a custom role",
        body: createRoleBody,
        response: createdRoleSchema,
        errors: [
          "YOU_MUST_BE_IN_AN_ORGANIZATION_TO_CREATE_A_ROLE",
          NOT_MEMBER,
          "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_ROLE",
          "INVALID_RESOURCE",
          "ROLE_NAME_IS_ALREADY_TAKEN",
          "TOO_MANY_ROLES",
        ],
      },
      async ({ req, body, session, json }) => {
        const caller = callerOf(req, session);
        const { role } = await call(organization, organization.createRole, {
          caller,
          organizationId: body.organizationId,
          name: body.role,
          permissions: actionsOf(body.permission),
        });
        const roleData = publicRole(role!);
        json({ success: true, roleData, statements: roleData.permission });
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/organization/update-role",
        tag: "Organizations",
        session: "required",
        summary: "Rename a custom role or change what it grants",
        body: updateRoleBody,
        response: updatedRoleSchema,
        errors: [
          "NO_ACTIVE_ORGANIZATION",
          NOT_MEMBER,
          "YOU_ARE_NOT_ALLOWED_TO_UPDATE_A_ROLE",
          "ROLE_NOT_FOUND",
          "INVALID_RESOURCE",
          "ROLE_NAME_IS_ALREADY_TAKEN",
          "ROLE_IS_ASSIGNED_TO_MEMBERS",
        ],
      },
      async ({ req, body, session, json }) => {
        const caller = callerOf(req, session);
        const { role } = await call(organization, organization.updateRole, {
          caller,
          organizationId: body.organizationId,
          role: refOf(body),
          name: body.data.roleName,
          permissions: actionsOf(body.data.permission ?? {}),
          setPermissions: body.data.permission !== undefined,
        });
        json({ success: true, roleData: publicRole(role!) });
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/organization/delete-role",
        tag: "Organizations",
        session: "required",
        summary: "Delete a custom role no member holds",
        body: deleteRoleBody,
        response: successSchema,
        errors: ["NO_ACTIVE_ORGANIZATION", NOT_MEMBER, "YOU_ARE_NOT_ALLOWED_TO_DELETE_A_ROLE", "CANNOT_DELETE_A_PRE_DEFINED_ROLE", "ROLE_NOT_FOUND", "ROLE_IS_ASSIGNED_TO_MEMBERS"],
      },
      async ({ req, body, session, json }) => {
        const caller = callerOf(req, session);
        await call(organization, organization.deleteRole, { caller, organizationId: body.organizationId, role: refOf(body) });
        json({ success: true });
      },
    ),
    defineRoute(
      {
        method: "get",
        path: "/organization/list-roles",
        tag: "Organizations",
        session: "required",
        summary: "The organization's custom roles",
        query: listRolesQuery,
        response: z.array(organizationRoleSchema),
        errors: ["NO_ACTIVE_ORGANIZATION", NOT_MEMBER, "YOU_ARE_NOT_ALLOWED_TO_LIST_A_ROLE"],
      },
      async ({ req, query, session, json }) => {
        const caller = callerOf(req, session);
        const { roles } = await call(organization, organization.listRoles, { caller, organizationId: query.organizationId });
        json(roles.map(publicRole));
      },
    ),
    defineRoute(
      {
        method: "get",
        path: "/organization/get-role",
        tag: "Organizations",
        session: "required",
        summary: "One custom role",
        query: getRoleQuery,
        response: organizationRoleSchema,
        errors: ["NO_ACTIVE_ORGANIZATION", NOT_MEMBER, "YOU_ARE_NOT_ALLOWED_TO_READ_A_ROLE", "ROLE_NOT_FOUND"],
      },
      async ({ req, query, session, json }) => {
        const caller = callerOf(req, session);
        const { role } = await call(organization, organization.getRole, { caller, organizationId: query.organizationId, role: refOf(query) });
        json(publicRole(role!));
      },
    ),
  ];
}
