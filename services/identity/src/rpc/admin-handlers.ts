/** The admin RPCs of IdentityService (domain/admin-users.ts); only the admin service may call them. */
import type { IdentityServiceServer } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import type { RpcServer } from "@auth-platform/proto/rpc-server";
import type { AccessTable } from "@auth-platform/runtime/grpc-access";
import { banUser, createUser, listUsers, removeUser, setRole, setUserPassword, unbanUser } from "../domain/admin-users.js";
import type { Registry } from "../domain/ports.js";
import { updateUser } from "../domain/update-user.js";
import { profileFields, toUserMessage } from "./mappers.js";

const ADMIN = ["admin"] as const;

/** Who may call the admin RPCs (docs/internal-api.md). */
export const IDENTITY_ADMIN_ACCESS: AccessTable = {
  ListUsers: ADMIN,
  CreateUser: ADMIN,
  SetRole: ADMIN,
  SetUserPassword: ADMIN,
  BanUser: ADMIN,
  UnbanUser: ADMIN,
  RemoveUser: ADMIN,
  // The admin area's update-user: UpdateUser's use case for the user the admin names.
  SetUserProfile: ADMIN,
};

type AdminHandlers = Pick<IdentityServiceServer, "listUsers" | "createUser" | "setRole" | "setUserPassword" | "banUser" | "unbanUser" | "removeUser" | "setUserProfile">;

export function identityAdminHandlers(registry: Registry, rpc: RpcServer): AdminHandlers {
  return {
    listUsers: rpc.unary("ListUsers", async (req) => {
      const { users, total, totalIsLowerBound } = await listUsers(registry, { ...req, filterValue: req.filterValue as string | number | boolean | null | unknown[] | undefined });
      return { users: users.map(toUserMessage), total, totalIsLowerBound };
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
      const user = await banUser(registry, { userId: req.userId, reason: req.reason, expiresInSeconds: Number(req.expiresInSeconds) });
      return { user: toUserMessage(user) };
    }),
    unbanUser: rpc.unary("UnbanUser", async (req) => ({ user: toUserMessage(await unbanUser(registry, req.userId)) })),
    removeUser: rpc.unary("RemoveUser", async (req) => {
      await removeUser(registry, req.userId);
      return {};
    }),
    setUserProfile: rpc.unary("SetUserProfile", async (req) => ({
      user: toUserMessage(await updateUser(registry, { userId: req.userId, fields: profileFields(req) })),
    })),
  };
}
