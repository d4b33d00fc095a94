/**
 * Custom roles: roles an organization defines at run time, a name and permissions drawn from the platform's
 * list (roles.ts RESOURCES), checked wherever the configured roles are (scoped()). The rules against
 * escalation and dangling roles are in docs/adr/0066-custom-organization-roles.md.
 */
import { AuthError, type ErrorCode } from "@auth-platform/proto/errors";
import { newId } from "@auth-platform/runtime/random";
import type { CustomRoleRecord, MemberRecord, RoleRef } from "../store/organization-store.js";
import { actorCheck, requireActor, requirePermission, tableOf, targetId } from "./access.js";
import type { Caller, Registry } from "./ports.js";
import { grants, type Permissions, RESOURCES, type Resource, type RoleTable } from "./roles.js";

type Deps = Pick<Registry, "config" | "store" | "now">;

/** The most custom roles one organization may define. */
export const MAX_ROLES_PER_ORGANIZATION = 100;

/** The organization's roles: its custom ones and the configured ones (whose names no custom role takes). */
export async function roleTableOf(deps: Pick<Registry, "config" | "store">, organizationId: string): Promise<RoleTable> {
  const table: RoleTable = { ...deps.config.roles };
  for (const role of await deps.store.listRoles(organizationId)) if (!Object.hasOwn(table, role.name)) table[role.name] = role.permissions;
  return table;
}

/** The dependencies with the organization's roles, for the checks of access.ts. */
export async function scoped<D extends Pick<Registry, "config" | "store">>(deps: D, organizationId: string): Promise<D & { roles: RoleTable }> {
  return { ...deps, roles: await roleTableOf(deps, organizationId) };
}

/**
 * The permissions as stored: every resource and action one of the platform's list (else INVALID_RESOURCE),
 * each action once, in the list's order; a resource with no action left out.
 */
export function permissionsOf(asked: Record<string, readonly string[]>): Permissions {
  const permissions: Permissions = {};
  for (const [resource, actions] of Object.entries(asked)) {
    if (!Object.hasOwn(RESOURCES, resource)) throw new AuthError("INVALID_RESOURCE");
    const known: readonly string[] = RESOURCES[resource as Resource];
    if (!actions.every((action) => known.includes(action))) throw new AuthError("INVALID_RESOURCE");
    const granted = known.filter((action) => actions.includes(action));
    if (granted.length) permissions[resource as Resource] = granted;
  }
  return permissions;
}

/** Role names are compared in lower case, as better-auth 1.7 stores them. */
const normalName = (name: string) => name.toLowerCase();

/**
 * The check of the member acting on roles: the `ac` action (else `refusal`), and holding every permission
 * in `granting` (what the role will grant, and for a change or deletion what it grants now), so no one
 * makes or reshapes a role beyond their own.
 */
function roleActor(deps: Deps & { roles: RoleTable }, caller: Caller, action: string, refusal: ErrorCode, granting: () => Permissions[]) {
  return actorCheck(
    caller,
    (member: MemberRecord) => {
      requirePermission(deps, member, "ac", action, refusal);
      for (const permissions of granting()) if (!grants(tableOf(deps), member.role, permissions)) throw new AuthError(refusal);
    },
    "YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION",
  );
}

export interface CreateRoleInput {
  organizationId?: string;
  name: string;
  permissions: Record<string, string[]>;
}

export async function createRole(deps: Deps, caller: Caller, input: CreateRoleInput): Promise<CustomRoleRecord> {
  const organizationId = targetId(caller, input.organizationId, "YOU_MUST_BE_IN_AN_ORGANIZATION_TO_CREATE_A_ROLE");
  const d = await scoped(deps, organizationId);
  const permissions = permissionsOf(input.permissions);
  const creator = roleActor(d, caller, "create", "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_ROLE", () => [permissions]);
  await requireActor(d, organizationId, creator);
  const name = normalName(input.name);
  if (Object.hasOwn(deps.config.roles, name)) throw new AuthError("ROLE_NAME_IS_ALREADY_TAKEN");
  const role: CustomRoleRecord = { id: newId(), organizationId, name, permissions, createdAt: deps.now(), updatedAt: null };
  // The store decides the name and the limit under the organization's lock, with the creator checked again.
  await deps.store.createRole(role, creator, MAX_ROLES_PER_ORGANIZATION);
  return role;
}

/** The caller's membership, allowed `ac` `action` (else `refusal`); non-members get better-auth's refusal. */
async function readerOf(d: Deps & { roles: RoleTable }, caller: Caller, organizationId: string, refusal: ErrorCode): Promise<void> {
  await requireActor(
    d,
    organizationId,
    roleActor(d, caller, "read", refusal, () => []),
  );
}

export async function listRoles(deps: Deps, caller: Caller, input: { organizationId?: string }): Promise<CustomRoleRecord[]> {
  const organizationId = targetId(caller, input.organizationId);
  await readerOf(await scoped(deps, organizationId), caller, organizationId, "YOU_ARE_NOT_ALLOWED_TO_LIST_A_ROLE");
  return deps.store.listRoles(organizationId);
}

export async function getRole(deps: Deps, caller: Caller, input: { organizationId?: string; ref: RoleRef }): Promise<CustomRoleRecord> {
  const organizationId = targetId(caller, input.organizationId);
  await readerOf(await scoped(deps, organizationId), caller, organizationId, "YOU_ARE_NOT_ALLOWED_TO_READ_A_ROLE");
  const role = await deps.store.findRole(organizationId, normalRef(input.ref));
  if (!role) throw new AuthError("ROLE_NOT_FOUND");
  return role;
}

const normalRef = (ref: RoleRef): RoleRef => ("id" in ref ? ref : { name: normalName(ref.name) });

export interface UpdateRoleInput {
  organizationId?: string;
  ref: RoleRef;
  name?: string;
  permissions?: Record<string, string[]>;
}

export async function updateRole(deps: Deps, caller: Caller, input: UpdateRoleInput): Promise<CustomRoleRecord> {
  const organizationId = targetId(caller, input.organizationId);
  const d = await scoped(deps, organizationId);
  const permissions = input.permissions && permissionsOf(input.permissions);
  let role: CustomRoleRecord | null = null;
  const updater = roleActor(d, caller, "update", "YOU_ARE_NOT_ALLOWED_TO_UPDATE_A_ROLE", () => [role?.permissions ?? {}, permissions ?? {}]);
  const actor = await requireActor(d, organizationId, updater);
  role = await deps.store.findRole(organizationId, normalRef(input.ref));
  if (!role) throw new AuthError("ROLE_NOT_FOUND");
  updater.check(actor);
  const name = input.name === undefined ? undefined : normalName(input.name);
  if (name !== undefined && name !== role.name && Object.hasOwn(deps.config.roles, name)) throw new AuthError("ROLE_NAME_IS_ALREADY_TAKEN");
  const updated = await deps.store.updateRole(role.id, { name, permissions, updatedAt: deps.now() }, updater);
  if (!updated) throw new AuthError("ROLE_NOT_FOUND");
  return updated;
}

/**
 * Deletes a custom role that no member and no pending invitation holds (the store decides that under the
 * organization's lock: ROLE_IS_ASSIGNED_TO_MEMBERS otherwise). A configured role's name is
 * CANNOT_DELETE_A_PRE_DEFINED_ROLE.
 */
export async function deleteRole(deps: Deps, caller: Caller, input: { organizationId?: string; ref: RoleRef }): Promise<void> {
  const organizationId = targetId(caller, input.organizationId);
  const d = await scoped(deps, organizationId);
  let role: CustomRoleRecord | null = null;
  const deleter = roleActor(d, caller, "delete", "YOU_ARE_NOT_ALLOWED_TO_DELETE_A_ROLE", () => [role?.permissions ?? {}]);
  const actor = await requireActor(d, organizationId, deleter);
  const ref = normalRef(input.ref);
  if ("name" in ref && Object.hasOwn(deps.config.roles, ref.name)) throw new AuthError("CANNOT_DELETE_A_PRE_DEFINED_ROLE");
  role = await deps.store.findRole(organizationId, ref);
  if (!role) throw new AuthError("ROLE_NOT_FOUND");
  deleter.check(actor);
  if (!(await deps.store.deleteRole(role.id, deleter))) throw new AuthError("ROLE_NOT_FOUND");
}
