/**
 * The caller every RPC that acts for the signed-in user carries (auth.common.v1.Caller), built in one place
 * from the session the request resolved and the client's device. It names the session by id: the token
 * stays in the gateway.
 */
import type { Request } from "express";
import type { Caller } from "@auth-platform/proto/gen/auth/common/v1/caller";
import type { CurrentSession } from "./session.js";

export function callerOf(req: Request, { session, user }: CurrentSession): Caller {
  return {
    sessionId: session.id,
    userId: user.id,
    role: user.role ?? undefined,
    impersonatedBy: session.impersonatedBy ?? undefined,
    sessionCreatedAt: new Date(session.createdAt),
    ipAddress: req.facts.ipAddress,
    userAgent: req.facts.userAgent,
    email: user.email,
    emailVerified: user.emailVerified,
    activeOrganizationId: session.activeOrganizationId ?? undefined,
    activeTeamId: session.activeTeamId ?? undefined,
  };
}
