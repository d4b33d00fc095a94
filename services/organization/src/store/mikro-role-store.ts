/** The custom roles of the organization store on MikroORM (docs/adr/0066-custom-organization-roles.md). */
import type { Permissions } from "@auth-platform/contract/permissions";
import { AuthError } from "@auth-platform/proto/errors";
import { isUniqueViolation } from "@auth-platform/runtime/store";
import type { EntityManager } from "@mikro-orm/sql";
import { rolesOf } from "../domain/roles.js";
import { InvitationEntity, MemberEntity, OrganizationRoleEntity, type OrganizationRoleRow } from "./entities.js";
import type { ActorCheck, CustomRoleRecord, OrganizationStore, RoleRef } from "./organization-store.js";

/** Runs `work` in a transaction under the organization's lock (lockedTransactions). */
export type Locked = <T>(key: string, work: (em: EntityManager) => Promise<T>) => Promise<T>;
type CheckActor = (em: EntityManager, organizationId: string, actor: ActorCheck | undefined) => Promise<void>;

const toRole = (row: OrganizationRoleRow): CustomRoleRecord => ({
  id: row.id,
  organizationId: row.organizationId,
  name: row.name,
  permissions: JSON.parse(row.permissions) as Permissions,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt ?? null,
});

/**
 * Whether a member or a pending invitation of the organization holds the role (a role value lists roles
 * with commas). LIKE narrows the rows ("_" may match any character there); rolesOf decides.
 */
async function held(em: EntityManager, organizationId: string, name: string): Promise<boolean> {
  const like = { $like: `%${name}%` };
  const [members, invitations] = await Promise.all([
    em.find(MemberEntity, { organizationId, role: like }, { fields: ["role"] }),
    em.find(InvitationEntity, { organizationId, status: "pending", role: like }, { fields: ["role"] }),
  ]);
  return [...members, ...invitations].some((row) => rolesOf(row.role).includes(name));
}

async function nameTaken<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw new AuthError("ROLE_NAME_IS_ALREADY_TAKEN", undefined, { cause: error });
    throw error;
  }
}

type RoleMethods = Pick<OrganizationStore, "createRole" | "findRole" | "listRoles" | "updateRole" | "deleteRole">;

export function mikroRoleMethods(em: () => EntityManager, locked: Locked, checkActor: CheckActor): RoleMethods {
  return {
    async createRole(role, actor, limit) {
      await nameTaken(() =>
        locked(role.organizationId, async (tx) => {
          await checkActor(tx, role.organizationId, actor);
          if ((await tx.count(OrganizationRoleEntity, { organizationId: role.organizationId })) >= limit) throw new AuthError("TOO_MANY_ROLES");
          if (await held(tx, role.organizationId, role.name)) throw new AuthError("ROLE_NAME_IS_ALREADY_TAKEN");
          await tx.insert(OrganizationRoleEntity, { ...role, permissions: JSON.stringify(role.permissions) });
        }),
      );
    },
    async findRole(organizationId, ref: RoleRef) {
      const row = await em().findOne(OrganizationRoleEntity, { organizationId, ...("id" in ref ? { id: ref.id } : { name: ref.name }) });
      return row ? toRole(row) : null;
    },
    async listRoles(organizationId) {
      return (await em().find(OrganizationRoleEntity, { organizationId }, { orderBy: { createdAt: "asc", id: "asc" } })).map(toRole);
    },
    async updateRole(id, { name, permissions, updatedAt }, actor) {
      const found = await em().findOne(OrganizationRoleEntity, { id });
      if (!found) return null;
      return nameTaken(() =>
        locked(found.organizationId, async (tx) => {
          const row = await tx.findOne(OrganizationRoleEntity, { id });
          if (!row) return null;
          await checkActor(tx, row.organizationId, actor);
          if (name !== undefined && name !== row.name) {
            if (await held(tx, row.organizationId, row.name)) throw new AuthError("ROLE_IS_ASSIGNED_TO_MEMBERS");
            if (await held(tx, row.organizationId, name)) throw new AuthError("ROLE_NAME_IS_ALREADY_TAKEN");
          }
          const changes = { ...(name !== undefined ? { name } : {}), ...(permissions ? { permissions: JSON.stringify(permissions) } : {}), updatedAt };
          await tx.nativeUpdate(OrganizationRoleEntity, { id }, changes);
          return toRole({ ...row, ...changes });
        }),
      );
    },
    async deleteRole(id, actor) {
      const found = await em().findOne(OrganizationRoleEntity, { id });
      if (!found) return false;
      return locked(found.organizationId, async (tx) => {
        const row = await tx.findOne(OrganizationRoleEntity, { id });
        if (!row) return false;
        await checkActor(tx, row.organizationId, actor);
        if (await held(tx, row.organizationId, row.name)) throw new AuthError("ROLE_IS_ASSIGNED_TO_MEMBERS");
        return (await tx.nativeDelete(OrganizationRoleEntity, { id })) > 0;
      });
    },
  };
}
