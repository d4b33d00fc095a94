/**
 * Impersonation (docs/adr/0036-bans-and-impersonation.md): an admin starts a short, non-persistent session for another user, flagged
 * with the admin's id; stopping ends it and hands back the admin's own session, whose token the gateway kept
 * in a signed cookie (the gateway resolves it and names it here by id and user). Admins are not impersonated unless configured (ADMIN_IMPERSONATE_ADMINS), and never from
 * an impersonation session: the gateway keeps one admin token per browser, so a second impersonation would
 * replace it with the first impersonation's token, and stopping twice would leave the admin's own session
 * unreachable (still live, its token no longer held anywhere).
 */
import { AuthError } from "@auth-platform/proto/errors";
import { asAdmin } from "./as-admin.js";
import { audited } from "./audit.js";
import { actorOf, banHolds, isAdminRole } from "./authorize.js";
import type { Caller, Registry, Session, User } from "./ports.js";

export async function impersonateUser(deps: Registry, caller: Caller | undefined, userId: string): Promise<{ session: Session; user: User }> {
  return asAdmin(deps, caller, { action: "user.impersonate.start", targetId: userId }, async (admin) => {
    if (admin.impersonatorId) throw new AuthError("YOU_CANNOT_IMPERSONATE_WHILE_IMPERSONATING");
    const target = userId ? await deps.identity.getUser(userId) : null;
    if (!target) throw new AuthError("USER_NOT_FOUND");
    if (isAdminRole(deps.config, target.role) && !deps.config.impersonateAdmins) throw new AuthError("YOU_CANNOT_IMPERSONATE_ADMINS");
    const user = await admittedTarget(deps, target);
    const session = await deps.sessions
      .createImpersonationSession({
        user,
        impersonatedBy: admin.actorId,
        expiresInSeconds: deps.config.impersonationSeconds,
        ipAddress: admin.ipAddress,
        userAgent: admin.userAgent,
      })
      .catch((error: unknown) => refusedForBan(deps, user.id, error));
    return { session, user };
  });
}

/**
 * The session service refuses a user it holds a banned copy of: a ban stored after the read above (BanUser
 * hands the copy over before it ends the sessions). With the ban in force, that is the banned-user refusal an
 * earlier ban gets, not a server failure; any other failure stays unexpected.
 */
async function refusedForBan(deps: Pick<Registry, "identity" | "now">, userId: string, error: unknown): Promise<never> {
  if (error instanceof AuthError && error.code === "FAILED_TO_CREATE_SESSION") {
    const current = await deps.identity.getUser(userId);
    if (current && banHolds(current, deps.now())) throw new AuthError("YOU_CANNOT_IMPERSONATE_BANNED_USERS");
  }
  throw error;
}

/**
 * The target as an impersonation session may be created for, by the rule of every session creation
 * (docs/adr/0036-bans-and-impersonation.md): a live ban refuses it (a ban ends the user's sessions, so an admin must not open one), an expired ban
 * is lifted first.
 */
async function admittedTarget(deps: Pick<Registry, "identity" | "now">, target: User): Promise<User> {
  if (!target.banned) return target;
  if (banHolds(target, deps.now())) throw new AuthError("YOU_CANNOT_IMPERSONATE_BANNED_USERS");
  return deps.identity.unbanUser(target.id);
}

/** The admin's own session the gateway resolved from the cookie it kept: absent when none came or it ended. */
export interface KeptAdminSession {
  sessionId?: string;
  userId?: string;
}

/**
 * Ends the caller's impersonation session, the admin's own session being live to go back to. Needs no admin
 * role: only a session flagged as impersonating, and a kept session that is the impersonator's own.
 */
export async function stopImpersonating(deps: Registry, caller: Caller | undefined, kept: KeptAdminSession): Promise<void> {
  const { caller: valid, ...actor } = actorOf(caller);
  await audited(deps, actor, "user.impersonate.stop", valid.userId, async () => {
    if (!valid.impersonatedBy) throw new AuthError("YOU_ARE_NOT_IMPERSONATING_ANYONE");
    // The kept session must be the impersonator's own: anyone else's session is refused.
    if (!kept.sessionId || kept.userId !== valid.impersonatedBy) throw new AuthError("FAILED_TO_FIND_ADMIN_SESSION");
    await deps.sessions.revokeSession(valid.sessionId);
  });
}
