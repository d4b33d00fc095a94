/**
 * Who may use the admin area (docs/http-api/admin.md#who-is-an-admin): a caller whose role holds one of the
 * configured admin roles. The caller is the gateway's (auth.common.v1.Caller), built from the session it
 * resolved; the session's copy of the user is refreshed on every role change (identity publishes it and
 * the cached copies are dropped), so a demoted admin is refused at once.
 */
import type { AuditActor } from "./audit.js";
import { requireCaller } from "@auth-platform/runtime/caller";
import type { Caller, Registry } from "./ports.js";

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
}

/** The caller as an audit actor, or UNAUTHORIZED when the call acts for nobody. */
export function actorOf(caller: Caller | undefined): Admin & { caller: Caller } {
  const valid = requireCaller(caller);
  return { caller: valid, actorId: valid.userId, impersonatorId: valid.impersonatedBy ?? null, ipAddress: valid.ipAddress, userAgent: valid.userAgent };
}
