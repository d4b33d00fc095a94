/** Session records and cache records <-> contract messages. */
import type { User } from "@auth-platform/proto/gen/auth/common/v1/user";
import type { Session } from "@auth-platform/proto/gen/auth/session/v1/session";
import type { CachedSessionFields, CachedUser } from "@auth-platform/runtime/session-cache";
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
    activeTeamId: session.activeTeamId ?? undefined,
    authMethod: session.authMethod ?? undefined,
    secondFactor: session.secondFactor ?? undefined,
    authenticatedAt: session.authenticatedAt ?? undefined,
  };
}

export function sessionMessageFromCache(session: CachedSessionFields): Session {
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
    activeTeamId: session.activeTeamId ?? undefined,
    authMethod: session.authMethod ?? undefined,
    secondFactor: session.secondFactor ?? undefined,
    authenticatedAt: session.authenticatedAt ? new Date(session.authenticatedAt) : undefined,
  };
}

/** The user a session is served with, as the cache and the store keep it, as GetSession answers it. */
export function toUserMessage(user: CachedUser): User {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    emailVerified: user.emailVerified,
    image: user.image ?? undefined,
    createdAt: new Date(user.createdAt),
    updatedAt: new Date(user.updatedAt),
    username: user.username ?? undefined,
    displayUsername: user.displayUsername ?? undefined,
    extraFields: user.extraFields,
    twoFactorEnabled: user.twoFactorEnabled,
    role: user.role ?? undefined,
    banned: user.banned,
    banReason: user.banReason ?? undefined,
    banExpires: user.banExpires ? new Date(user.banExpires) : undefined,
  };
}

/** The user a request carries (CreateSession, PutUserCopy), as the cache and the store keep it. */
export function userFromMessage(user: User): CachedUser {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    emailVerified: user.emailVerified,
    image: user.image ?? null,
    createdAt: (user.createdAt ?? new Date(0)).toISOString(),
    updatedAt: (user.updatedAt ?? new Date(0)).toISOString(),
    username: user.username ?? null,
    displayUsername: user.displayUsername ?? null,
    extraFields: user.extraFields ?? {},
    twoFactorEnabled: user.twoFactorEnabled ?? false,
    role: user.role ?? null,
    banned: user.banned ?? false,
    banReason: user.banReason ?? null,
    banExpires: user.banExpires ? user.banExpires.toISOString() : null,
  };
}
