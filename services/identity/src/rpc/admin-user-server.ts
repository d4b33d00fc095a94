/** AdminUserService over gRPC (domain/admin-users.ts): the admin area's user operations, for the admin service (and SCIM's three for sso). */
import { type AdminUserServiceServer, AdminUserServiceService } from "@auth-platform/proto/gen/auth/identity/v1/admin_user";
import type { RpcServer } from "@auth-platform/proto/rpc-server";
import type { AccessTable } from "@auth-platform/runtime/grpc-access";
import type { ServiceBinding } from "@auth-platform/runtime/grpc-server";
import { banUser, createUser, listUsers, removeUser, setRole, setUserPassword, unbanUser } from "../domain/admin-users.js";
import type { Registry } from "../domain/ports.js";
import { updateUser } from "../domain/update-user.js";
import { profileFields, toUserMessage } from "./mappers.js";

const ADMIN = ["admin"] as const;
/** SCIM provisioning (docs/adr/0070-scim-provisioning.md): sso creates, deactivates and reactivates the users an organization provisions. */
const ADMIN_AND_SSO = ["admin", "sso"] as const;

/**
 * Who may call what (docs/internal-api.md): the admin service, which checks its caller is an admin first;
 * and sso for the users an organization provisions over SCIM (it checks the bearer token's organization).
 */
export const ADMIN_USER_ACCESS: AccessTable = {
  ListUsers: ADMIN,
  CreateUser: ADMIN_AND_SSO,
  SetRole: ADMIN,
  SetUserPassword: ADMIN,
  BanUser: ADMIN_AND_SSO,
  UnbanUser: ADMIN_AND_SSO,
  RemoveUser: ADMIN,
  // The admin area's update-user: UpdateUser's use case for the user the admin names.
  SetUserProfile: ADMIN,
};

export function adminUserService(registry: Registry, rpc: RpcServer): ServiceBinding {
  const implementation: AdminUserServiceServer = {
    listUsers: rpc.unary("ListUsers", async (req) => {
      const { users, total, totalIsLowerBound, lastSignInAt } = await listUsers(registry, {
        ...req,
        filterValue: req.filterValue as string | number | boolean | null | unknown[] | undefined,
      });
      return { users: users.map(toUserMessage), total, totalIsLowerBound, lastSignInAt };
    }),
    createUser: rpc.unary("CreateUser", async (req, { deadline }) => {
      const user = await createUser(registry, { email: req.email, password: req.password, name: req.name, role: req.role, extraFields: req.extraFields ?? {}, deadline });
      return { user: toUserMessage(user) };
    }),
    setRole: rpc.unary("SetRole", async (req) => ({ user: toUserMessage(await setRole(registry, req.userId, req.role)) })),
    setUserPassword: rpc.unary("SetUserPassword", async (req, { deadline }) => {
      await setUserPassword(registry, { userId: req.userId, newPassword: req.newPassword, deadline });
      return {};
    }),
    banUser: rpc.unary("BanUser", async (req) => {
      const user = await banUser(registry, { userId: req.userId, reason: req.reason, expiresInSeconds: Number(req.expiresInSeconds), keepExisting: req.keepExisting });
      return { user: toUserMessage(user) };
    }),
    unbanUser: rpc.unary("UnbanUser", async (req) => ({ user: toUserMessage(await unbanUser(registry, req.userId, { onlyIfReason: req.onlyIfReason })) })),
    removeUser: rpc.unary("RemoveUser", async (req) => {
      await removeUser(registry, req.userId);
      return {};
    }),
    setUserProfile: rpc.unary("SetUserProfile", async (req) => ({
      user: toUserMessage(await updateUser(registry, { userId: req.userId, fields: profileFields(req) })),
    })),
  };
  return {
    definition: AdminUserServiceService,
    implementation: implementation as unknown as ServiceBinding["implementation"],
    name: "auth.identity.v1.AdminUserService",
    access: ADMIN_USER_ACCESS,
  };
}
