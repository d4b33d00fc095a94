/**
 * The JSON shapes the HTTP API serves for a user and a session (SPEC.md §7), built in one place from the
 * contracts' messages. The identity service uses publicUser for the cached user; the gateway for responses.
 */
import type { User } from "./gen/auth/identity/v1/identity.js";
import type { Session } from "./gen/auth/session/v1/session.js";

export type PublicUser = Record<string, unknown> & {
  id: string;
  name: string;
  email: string;
  emailVerified: boolean;
  image: string | null;
  createdAt: string;
  updatedAt: string;
  username: string | null;
  displayUsername: string | null;
};

export interface PublicSession {
  id: string;
  token: string;
  userId: string;
  expiresAt: string;
  ipAddress: string | null;
  userAgent: string | null;
  createdAt: string;
  updatedAt: string;
  impersonatedBy?: string | null;
  activeOrganizationId?: string | null;
}

const iso = (date: Date | undefined) => (date ?? new Date(0)).toISOString();

export function publicUser(user: User): PublicUser {
  const extra = user.extraFieldsJson ? (JSON.parse(user.extraFieldsJson) as Record<string, unknown>) : {};
  return {
    ...extra,
    id: user.id,
    name: user.name,
    email: user.email,
    emailVerified: user.emailVerified,
    image: user.image ?? null,
    createdAt: iso(user.createdAt),
    updatedAt: iso(user.updatedAt),
    // Always present, null when unset, so the shape does not change with the sign-up method.
    username: user.username ?? null,
    displayUsername: user.displayUsername ?? user.username ?? null,
  };
}

export function publicSession(session: Session): PublicSession {
  return {
    id: session.id,
    token: session.token,
    userId: session.userId,
    expiresAt: iso(session.expiresAt),
    ipAddress: session.ipAddress ?? null,
    userAgent: session.userAgent ?? null,
    createdAt: iso(session.createdAt),
    updatedAt: iso(session.updatedAt),
    impersonatedBy: session.impersonatedBy ?? null,
    activeOrganizationId: session.activeOrganizationId ?? null,
  };
}
