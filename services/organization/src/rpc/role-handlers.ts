/** The custom-role RPCs of OrganizationService (docs/adr/0066-custom-organization-roles.md): decode, call one use case, encode. */
import type { Actions, OrganizationServiceServer, Role, RoleRef as RoleRefMessage } from "@auth-platform/proto/gen/auth/organization/v1/organization";
import { AuthError } from "@auth-platform/proto/errors";
import type { RpcServer } from "@auth-platform/proto/rpc-server";
import * as roles from "../domain/custom-roles.js";
import type { Registry } from "../domain/ports.js";
import { roleName } from "../domain/roles.js";
import type { CustomRoleRecord, RoleRef } from "../store/organization-store.js";
import { callerOf } from "./mappers.js";
import * as valid from "./validation.js";

const GATEWAY = ["gateway"] as const;

/** Who may call the role RPCs (docs/internal-api.md): the gateway, for the signed-in member. */
export const ROLE_ACCESS = {
  CreateRole: GATEWAY,
  UpdateRole: GATEWAY,
  DeleteRole: GATEWAY,
  ListRoles: GATEWAY,
  GetRole: GATEWAY,
};

const MAX_RESOURCES = 16;
const MAX_ACTIONS = 16;

/** A role name as asked: lower-cased, then lower-case letters, digits, - and _ (at most 32). */
function name(value: string): string {
  const lower = value.toLowerCase();
  if (!roleName.safeParse(lower).success) throw new AuthError("VALIDATION_ERROR", "role must be 1 to 32 letters, digits, - and _, starting with a letter");
  return lower;
}

function permissions(map: { [resource: string]: Actions }): Record<string, string[]> {
  const entries = Object.entries(map);
  if (entries.length > MAX_RESOURCES || entries.some(([, { actions }]) => actions.length > MAX_ACTIONS)) throw new AuthError("VALIDATION_ERROR", "permission is too long");
  return Object.fromEntries(entries.map(([resource, { actions }]) => [resource, actions]));
}

function ref(message: RoleRefMessage | undefined): RoleRef {
  const value = message?.ref;
  if (value?.$case === "id") return { id: valid.id("roleId", value.value) };
  if (value?.$case === "name" && value.value && value.value.length <= 64) return { name: value.value };
  throw new AuthError("VALIDATION_ERROR", "roleName or roleId is required");
}

export function toRoleMessage(role: CustomRoleRecord): Role {
  return {
    id: role.id,
    organizationId: role.organizationId,
    name: role.name,
    permissions: Object.fromEntries(Object.entries(role.permissions).map(([resource, actions]) => [resource, { actions }])),
    createdAt: role.createdAt,
    updatedAt: role.updatedAt ?? undefined,
  };
}

type RoleHandlers = Pick<OrganizationServiceServer, "createRole" | "updateRole" | "deleteRole" | "listRoles" | "getRole">;

export function roleHandlers(registry: Registry, rpc: RpcServer): RoleHandlers {
  return {
    createRole: rpc.unary("CreateRole", async (req) => {
      const role = await roles.createRole(registry, callerOf(req.caller), {
        organizationId: valid.optionalId("organizationId", req.organizationId),
        name: name(req.name),
        permissions: permissions(req.permissions),
      });
      return { role: toRoleMessage(role) };
    }),
    updateRole: rpc.unary("UpdateRole", async (req) => {
      const role = await roles.updateRole(registry, callerOf(req.caller), {
        organizationId: valid.optionalId("organizationId", req.organizationId),
        ref: ref(req.role),
        name: req.name === undefined ? undefined : name(req.name),
        permissions: req.setPermissions ? permissions(req.permissions) : undefined,
      });
      return { role: toRoleMessage(role) };
    }),
    deleteRole: rpc.unary("DeleteRole", async (req) => {
      await roles.deleteRole(registry, callerOf(req.caller), { organizationId: valid.optionalId("organizationId", req.organizationId), ref: ref(req.role) });
      return {};
    }),
    listRoles: rpc.unary("ListRoles", async (req) => ({
      roles: (await roles.listRoles(registry, callerOf(req.caller), { organizationId: valid.optionalId("organizationId", req.organizationId) })).map(toRoleMessage),
    })),
    getRole: rpc.unary("GetRole", async (req) => ({
      role: toRoleMessage(await roles.getRole(registry, callerOf(req.caller), { organizationId: valid.optionalId("organizationId", req.organizationId), ref: ref(req.role) })),
    })),
  };
}
