/**
 * The JSON shapes the HTTP API serves for a user and a session (SPEC.md §7), built here and nowhere else.
 * The inputs are the contracts' messages (dates as Date) or the session cache's record (dates as ISO
 * strings, absent values as null); both carry the same field names, so one function serves each shape.
 */

type When = Date | string | undefined;
type Maybe<T> = T | null | undefined;

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
  role: string | null;
  banned: boolean;
  banReason: string | null;
  banExpires: string | null;
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

/** A user as auth.identity.v1.User, auth.session.v1.SessionUser or the session cache carry it. */
export interface UserFields {
  id: string;
  name: string;
  email: string;
  emailVerified: boolean;
  image?: Maybe<string>;
  createdAt?: When;
  updatedAt?: When;
  username?: Maybe<string>;
  displayUsername?: Maybe<string>;
  extraFields?: Record<string, unknown> | undefined;
  role?: Maybe<string>;
  banned?: boolean;
  banReason?: Maybe<string>;
  banExpires?: When | null;
}

/** A session as auth.session.v1.Session or the session cache (with its token put back) carry it. */
export interface SessionFields {
  id: string;
  token: string;
  userId: string;
  expiresAt?: When;
  ipAddress?: Maybe<string>;
  userAgent?: Maybe<string>;
  createdAt?: When;
  updatedAt?: When;
  impersonatedBy?: Maybe<string>;
  activeOrganizationId?: Maybe<string>;
}

const iso = (date: When) => (typeof date === "string" ? date : (date ?? new Date(0)).toISOString());

export function publicUser(user: UserFields): PublicUser {
  return {
    ...user.extraFields,
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
    // The admin fields (SPEC.md §3), after the extra fields so a configured field can never shadow them.
    role: user.role ?? null,
    banned: user.banned ?? false,
    banReason: user.banReason ?? null,
    banExpires: user.banExpires ? iso(user.banExpires) : null,
  };
}

export function publicSession(session: SessionFields): PublicSession {
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
