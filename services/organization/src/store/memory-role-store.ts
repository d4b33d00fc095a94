/** The custom roles of the memory organization store (the contract's reference: mikro-role-store.ts). */
import { AuthError } from "@auth-platform/proto/errors";
import { rolesOf } from "../domain/roles.js";
import type { ActorCheck, CustomRoleRecord, InvitationRecord, MemberRecord, OrganizationStore } from "./organization-store.js";

type RoleMethods = Pick<OrganizationStore, "createRole" | "findRole" | "listRoles" | "updateRole" | "deleteRole">;

interface Rows {
  roles: Map<string, CustomRoleRecord>;
  members: Map<string, MemberRecord>;
  invitations: Map<string, InvitationRecord>;
  checkActor(organizationId: string, actor: ActorCheck | undefined): void;
}

const copy = (role: CustomRoleRecord): CustomRoleRecord => ({
  ...role,
  permissions: Object.fromEntries(Object.entries(role.permissions).map(([resource, actions]) => [resource, [...actions]])),
});

/** Every method runs to its write without awaiting: the organization's rows cannot change in between. */
export function memoryRoleMethods({ roles, members, invitations, checkActor }: Rows): RoleMethods {
  const rolesOfOrganization = (organizationId: string) => [...roles.values()].filter((r) => r.organizationId === organizationId);
  const held = (organizationId: string, name: string) =>
    [...members.values()].some((m) => m.organizationId === organizationId && rolesOf(m.role).includes(name)) ||
    [...invitations.values()].some((i) => i.organizationId === organizationId && i.status === "pending" && rolesOf(i.role).includes(name));
  const taken = (organizationId: string, name: string, except?: string) =>
    rolesOfOrganization(organizationId).some((r) => r.name === name && r.id !== except) || held(organizationId, name);
  return {
    async createRole(role, actor, limit) {
      checkActor(role.organizationId, actor);
      if (rolesOfOrganization(role.organizationId).length >= limit) throw new AuthError("TOO_MANY_ROLES");
      if (taken(role.organizationId, role.name)) throw new AuthError("ROLE_NAME_IS_ALREADY_TAKEN");
      roles.set(role.id, copy(role));
    },
    async findRole(organizationId, ref) {
      const found = rolesOfOrganization(organizationId).find((r) => ("id" in ref ? r.id === ref.id : r.name === ref.name));
      return found ? copy(found) : null;
    },
    async listRoles(organizationId) {
      return rolesOfOrganization(organizationId)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1))
        .map(copy);
    },
    async updateRole(id, { name, permissions, updatedAt }, actor) {
      const role = roles.get(id);
      if (!role) return null;
      checkActor(role.organizationId, actor);
      if (name !== undefined && name !== role.name) {
        if (held(role.organizationId, role.name)) throw new AuthError("ROLE_IS_ASSIGNED_TO_MEMBERS");
        if (taken(role.organizationId, name, id)) throw new AuthError("ROLE_NAME_IS_ALREADY_TAKEN");
      }
      const updated = copy({ ...role, ...(name !== undefined ? { name } : {}), ...(permissions ? { permissions } : {}), updatedAt });
      roles.set(id, updated);
      return copy(updated);
    },
    async deleteRole(id, actor) {
      const role = roles.get(id);
      if (!role) return false;
      checkActor(role.organizationId, actor);
      if (held(role.organizationId, role.name)) throw new AuthError("ROLE_IS_ASSIGNED_TO_MEMBERS");
      return roles.delete(id);
    },
  };
}
