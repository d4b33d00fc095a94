/**
 * Who may use the admin area (docs/http-api/admin.md#who-is-an-admin): a live session whose user holds one of the configured admin roles.
 * The role is read from the session service's record of the session's user, which identity refreshes on
 * every role change (SetRole drops the cached copies), so a demoted admin is refused at once.
 */
import { AuthError } from "@auth-platform/proto/errors";
import type { AuditActor } from "./audit.js";
import type { CallerInput, Registry, Session, User } from "./ports.js";

/** A user's roles: better-auth stores several as one comma-separated string. */
export const rolesOf = (role: string | undefined | null): string[] =>
  (role ?? "")
    .split(",")
    .map((r) => r.trim())
    .filter(Boolean);

export function isAdminRole(config: Registry["config"], role: string | undefined | null): boolean {
  return rolesOf(role).some((r) => config.adminRoles.includes(r));
}

/** A ban in force at `now`; one whose expiry has passed only waits to be lifted. */
export const banHolds = (user: { banned: boolean; banExpires?: Date | string | null }, now: Date): boolean => user.banned && !(user.banExpires && new Date(user.banExpires) <= now);

export interface Admin extends AuditActor {
  actorId: string;
  session: Session;
  user: User;
}

/** The caller's live session and user, or UNAUTHORIZED. */
export async function callerSession(deps: Pick<Registry, "sessions">, caller: CallerInput | undefined): Promise<{ session: Session; user: User }> {
  const found = caller?.sessionToken ? await deps.sessions.getSession(caller.sessionToken) : null;
  if (!found) throw new AuthError("UNAUTHORIZED");
  return found;
}

/** The caller as an admin, or UNAUTHORIZED (no session) / ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT. */
export async function requireAdmin(deps: Pick<Registry, "config" | "sessions">, caller: CallerInput | undefined): Promise<Admin> {
  const { session, user } = await callerSession(deps, caller);
  if (!isAdminRole(deps.config, user.role)) throw new AuthError("ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT");
  return {
    actorId: user.id,
    impersonatorId: session.impersonatedBy ?? null,
    ipAddress: caller?.ipAddress,
    userAgent: caller?.userAgent,
    session,
    user,
  };
}
