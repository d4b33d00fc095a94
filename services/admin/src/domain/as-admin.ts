/** Runs an admin action for a caller: authorisation, then the action, with the audit record of both. */
import { AuthError } from "@auth-platform/proto/errors";
import { audited, record } from "./audit.js";
import type { Admin } from "./authorize.js";
import { actorOf, isAdminRole } from "./authorize.js";
import type { Caller, Registry } from "./ports.js";

type Deps = Pick<Registry, "config" | "store" | "now" | "log">;

export interface AdminAction<T = unknown> {
  /** The audit action name; absent for reads, which are not recorded. */
  action?: string;
  targetId?: string;
  /** The target known only once the action is done (the user create-user made). */
  targetOf?: (result: T) => string;
  details?: Record<string, unknown>;
  /** Record a non-admin's refused attempt only, not the admin's (a check before reporting bad input). */
  refusalOnly?: boolean;
}

/**
 * The caller must hold an admin role: a non-admin's attempt at an action is recorded as a failure, then
 * refused with ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT; no caller is UNAUTHORIZED (not recorded: no actor).
 */
export async function asAdmin<T>(deps: Deps, caller: Caller | undefined, what: AdminAction<T>, run: (admin: Admin) => Promise<T>): Promise<T> {
  const { caller: valid, ...admin } = actorOf(caller);
  if (!isAdminRole(deps.config, valid.role)) {
    if (what.action) {
      await record(deps, {
        action: what.action,
        actorId: admin.actorId,
        impersonatorId: admin.impersonatorId,
        targetId: what.targetId || null,
        ipAddress: admin.ipAddress ?? null,
        userAgent: admin.userAgent ?? null,
        outcome: "failure",
        details: { ...what.details, error: "ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT" },
      });
    }
    throw new AuthError("ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT");
  }
  if (!what.action || what.refusalOnly) return run(admin);
  return audited(deps, admin, what.action, what.targetId ?? null, () => run(admin), what.details, what.targetOf);
}

/** The audit action of each admin route that changes something (reads are not recorded). */
const ROUTE_ACTIONS: Record<string, string> = {
  "create-user": "user.create",
  "update-user": "user.update",
  "set-role": "user.set-role",
  "set-user-password": "user.set-password",
  "ban-user": "user.ban",
  "unban-user": "user.unban",
  "impersonate-user": "user.impersonate.start",
  "revoke-user-session": "session.revoke",
  "revoke-user-sessions": "session.revoke-all",
  "remove-user": "user.remove",
};

/**
 * Whether the caller may use the admin area, asked by the gateway before it reports a request's bad input.
 * A non-admin's attempt at an action is recorded as refused, as it is with valid input.
 */
export async function checkAdmin(deps: Deps, caller: Caller | undefined, route: string): Promise<void> {
  const action = Object.hasOwn(ROUTE_ACTIONS, route) ? ROUTE_ACTIONS[route] : undefined;
  await asAdmin(deps, caller, { action, details: { input: "invalid" }, refusalOnly: true }, async () => undefined);
}
