/** The admin area's user and session operations: authorise, orchestrate identity and session, audit. */
import { AuthError } from "@auth-platform/proto/errors";
import type { ListUsersRequest } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import { asAdmin } from "./as-admin.js";
import { type Admin, banHolds, isAdminRole, rolesOf } from "./authorize.js";
import type { Caller, Registry, Session, User } from "./ports.js";

type Deps = Registry;

async function existingUser(deps: Pick<Deps, "identity">, userId: string): Promise<User> {
  const user = userId ? await deps.identity.getUser(userId) : null;
  if (!user) throw new AuthError("USER_NOT_FOUND");
  return user;
}

/** Refuses a role (each of a comma-separated list) that is not configured: a typo would otherwise stick silently. */
function checkAssignableRole(config: Deps["config"], role: string): void {
  const roles = rolesOf(role);
  if (roles.length === 0 || !roles.every((r) => config.assignableRoles.includes(r))) throw new AuthError("YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE");
}

/** How many users whose role contains an admin role's name the last-admin check reads: enough to pass over banned ones. */
const ADMIN_HOLDERS_READ = 100;

/**
 * Whether a user other than `userId` holds an admin role and may sign in (no ban in force). The calling
 * admin first, read afresh (they may have been demoted a moment ago); then, per admin role, one bounded read,
 * oldest first, of the users whose role contains its name (identity's contains filter, case-insensitive),
 * kept when the role's comma-separated list really holds an admin role ("superadmin" does not make an
 * "admin"). An admin past the first ADMIN_HOLDERS_READ matches is not seen and the answer errs towards "no"
 * (docs/adr/0035-the-last-admin-and-bootstrap.md).
 */
async function anotherAdmin(deps: Pick<Deps, "config" | "identity" | "now">, admin: Admin, userId: string): Promise<boolean> {
  const mayActAsAdmin = (user: User) => user.id !== userId && isAdminRole(deps.config, user.role) && !banHolds(user, deps.now());
  if (admin.actorId !== userId) {
    const caller = await deps.identity.getUser(admin.actorId);
    if (caller && mayActAsAdmin(caller)) return true;
  }
  for (const role of deps.config.adminRoles) {
    const { users } = await deps.identity.listUsers({
      filterField: "role",
      filterOperator: "contains",
      filterValue: role,
      sortBy: "createdAt",
      limit: ADMIN_HOLDERS_READ,
      offset: 0,
      countLimit: ADMIN_HOLDERS_READ,
    });
    if (users.some(mayActAsAdmin)) return true;
  }
  return false;
}

/**
 * Refuses a change that would leave the admin area with no one: `target` (as read under the lock) may act as
 * an admin now, the change takes that away (a role without an admin role, a ban, a removal), and no other
 * user could sign in as an admin (recovery is the operator's bootstrap command).
 */
async function checkAdminRemains(deps: Deps, admin: Admin, target: User, keepsAdminRole: boolean): Promise<void> {
  if (keepsAdminRole || !isAdminRole(deps.config, target.role) || banHolds(target, deps.now())) return;
  if (!(await anotherAdmin(deps, admin, target.id))) throw new AuthError("YOU_CANNOT_REMOVE_THE_LAST_ADMIN");
}

/**
 * Runs a change of who may act as an admin under the store's admin change lock, with the target read there:
 * two such changes at once (two admins stepping down, or demoting each other) are checked and written one
 * after the other, so the second sees the first.
 */
function changingAdmins<T>(deps: Deps, admin: Admin, userId: string, keepsAdminRole: boolean, change: (user: User) => Promise<T>): Promise<T> {
  return deps.store.withAdminChangeLock(async () => {
    const user = await existingUser(deps, userId);
    await checkAdminRemains(deps, admin, user, keepsAdminRole);
    return change(user);
  });
}

/** The roles admins may give (ADMIN_ASSIGNABLE_ROLES, then ADMIN_ROLES), for the admin area's choices. A read: not recorded. */
export const listRoles = (deps: Deps, caller: Caller | undefined) => asAdmin(deps, caller, {}, async () => deps.config.assignableRoles);

/** The total is counted up to the configured bound (a bounded scan at any table size), whatever the caller asked. */
export const listUsers = (deps: Deps, caller: Caller | undefined, query: ListUsersRequest) =>
  asAdmin(deps, caller, {}, () => deps.identity.listUsers({ ...query, countLimit: deps.config.listUsersCountLimit }));

export const getUser = (deps: Deps, caller: Caller | undefined, userId: string) => asAdmin(deps, caller, {}, () => existingUser(deps, userId));

export interface CreateUserInput {
  email: string;
  /** Absent: the user is created with no credential account (password reset or social sign-in gets them in). */
  password?: string;
  name: string;
  /** Absent: identity's default role, which no admin chose, so not checked here. */
  role?: string;
  extraFields: Record<string, unknown>;
}

/** The audit record's role is null when none was given (identity's default role applied). */
export const createUser = (deps: Deps, caller: Caller | undefined, input: CreateUserInput) =>
  asAdmin(deps, caller, { action: "user.create", details: { role: input.role ?? null }, targetOf: (user) => user.id }, async () => {
    if (input.role !== undefined) checkAssignableRole(deps.config, input.role);
    return deps.identity.createUser(input);
  });

export const setRole = (deps: Deps, caller: Caller | undefined, userId: string, role: string) =>
  asAdmin(deps, caller, { action: "user.set-role", targetId: userId, details: { role } }, async (admin) => {
    checkAssignableRole(deps.config, role);
    return changingAdmins(deps, admin, userId, isAdminRole(deps.config, role), () => deps.identity.setRole(userId, role));
  });

export interface UpdateUserInput {
  userId: string;
  name?: string;
  image?: string;
  clearImage: boolean;
  role?: string;
  extraFields: Record<string, unknown>;
}

/** Changes profile fields and the role in one audited action; the role goes through SetRole (cached copies dropped). */
export const updateUser = (deps: Deps, caller: Caller | undefined, input: UpdateUserInput) =>
  asAdmin(deps, caller, { action: "user.update", targetId: input.userId, details: { fields: updatedFields(input) } }, async (admin) => {
    if (updatedFields(input).length === 0) throw new AuthError("NO_DATA_TO_UPDATE");
    const { role, userId, name, image, clearImage, extraFields } = input;
    if (role !== undefined) checkAssignableRole(deps.config, role);
    // Checked before any change: a refused role leaves the profile fields as they were too.
    const keepsAdminRole = role === undefined || isAdminRole(deps.config, role);
    return changingAdmins(deps, admin, userId, keepsAdminRole, async (user) => {
      if (name !== undefined || image !== undefined || clearImage || Object.keys(extraFields).length) {
        user = await deps.identity.updateUser({ userId, name, image, clearImage, extraFields });
      }
      if (role !== undefined) user = await deps.identity.setRole(userId, role);
      return user;
    });
  });

function updatedFields(input: UpdateUserInput): string[] {
  const named = (["name", "image", "role"] as const).filter((field) => input[field] !== undefined);
  return [...named, ...(input.clearImage ? ["image"] : []), ...Object.keys(input.extraFields)];
}

export const setUserPassword = (deps: Deps, caller: Caller | undefined, userId: string, newPassword: string) =>
  asAdmin(deps, caller, { action: "user.set-password", targetId: userId }, async () => {
    await existingUser(deps, userId);
    await deps.identity.setUserPassword(userId, newPassword);
  });

export const listUserSessions = (deps: Deps, caller: Caller | undefined, userId: string): Promise<Session[]> => asAdmin(deps, caller, {}, () => deps.sessions.listSessions(userId));

export interface BanInput {
  userId: string;
  reason?: string;
  expiresInSeconds: number;
}

/** Bans a user; every session of the user is gone (cache included) when this answers. */
export const banUser = (deps: Deps, caller: Caller | undefined, input: BanInput) =>
  asAdmin(deps, caller, { action: "user.ban", targetId: input.userId, details: { reason: input.reason ?? null, expiresInSeconds: input.expiresInSeconds } }, async (admin) => {
    if (input.userId === admin.actorId) throw new AuthError("YOU_CANNOT_BAN_YOURSELF");
    return changingAdmins(deps, admin, input.userId, false, () => deps.identity.banUser(input.userId, input.reason, input.expiresInSeconds));
  });

export const unbanUser = (deps: Deps, caller: Caller | undefined, userId: string) =>
  asAdmin(deps, caller, { action: "user.unban", targetId: userId }, async () => {
    await existingUser(deps, userId);
    return deps.identity.unbanUser(userId);
  });

/** Ends one session; the audit record names the session's user as the target. */
export const revokeUserSession = (deps: Deps, caller: Caller | undefined, sessionId: string) =>
  asAdmin(deps, caller, { action: "session.revoke", targetOf: (userId) => userId }, async () => {
    if (!sessionId) throw new AuthError("SESSION_NOT_FOUND");
    return deps.sessions.revokeSession(sessionId);
  });

export const revokeUserSessions = (deps: Deps, caller: Caller | undefined, userId: string) =>
  asAdmin(deps, caller, { action: "session.revoke-all", targetId: userId }, async () => {
    await existingUser(deps, userId);
    await deps.sessions.revokeUserSessions(userId);
  });

/** Removes a user, the user's sessions and accounts. An admin cannot remove themselves. */
export const removeUser = (deps: Deps, caller: Caller | undefined, userId: string) =>
  asAdmin(deps, caller, { action: "user.remove", targetId: userId }, async (admin) => {
    if (userId === admin.actorId) throw new AuthError("YOU_CANNOT_REMOVE_YOURSELF");
    await changingAdmins(deps, admin, userId, false, () => deps.identity.removeUser(userId));
  });
