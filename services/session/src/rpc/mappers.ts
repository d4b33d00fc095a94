/** Session records <-> contract messages. */
import type { Session } from "@auth-platform/proto/gen/auth/session/v1/session";
import type { PublicSession } from "@auth-platform/proto/public-shapes";
import type { SessionRecord } from "../store/session-store.js";

export function toSessionMessage(session: SessionRecord): Session {
  return {
    id: session.id,
    token: session.token,
    userId: session.userId,
    expiresAt: session.expiresAt,
    ipAddress: session.ipAddress ?? undefined,
    userAgent: session.userAgent ?? undefined,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    impersonatedBy: session.impersonatedBy ?? undefined,
    activeOrganizationId: session.activeOrganizationId ?? undefined,
  };
}

export function sessionMessageFromPublic(session: PublicSession): Session {
  return {
    id: session.id,
    token: session.token,
    userId: session.userId,
    expiresAt: new Date(session.expiresAt),
    ipAddress: session.ipAddress ?? undefined,
    userAgent: session.userAgent ?? undefined,
    createdAt: new Date(session.createdAt),
    updatedAt: new Date(session.updatedAt),
    impersonatedBy: session.impersonatedBy ?? undefined,
    activeOrganizationId: session.activeOrganizationId ?? undefined,
  };
}
