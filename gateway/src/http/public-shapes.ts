/**
 * The JSON shapes the HTTP API serves for a user and a session (docs/http-api/sessions.md#get-get-session-also-post), built here and nowhere else.
 * The inputs are the contracts' messages (dates as Date) or the session cache's record (dates as ISO
 * strings, absent values as null); both carry the same field names, so one function serves each shape.
 */

import type { Invitation, InvitationStatus, Member, Organization, Passkey, Session, TrustedDevice, User } from "@auth-platform/contract/shapes";
import type { Passkey as PasskeyMessage } from "@auth-platform/proto/gen/auth/identity/v1/passkey";
import type { User as UserMessage } from "@auth-platform/proto/gen/auth/common/v1/user";
import type { CachedUser } from "@auth-platform/runtime/session-cache";
import { safeImage } from "@auth-platform/runtime/user-image";

type When = Date | string | undefined;
type Maybe<T> = T | null | undefined;

/** The shapes as @auth-platform/contract declares them (z.infer of its schemas). */
export type PublicUser = User;
export type PublicSession = Session;
export type PublicTrustedDevice = TrustedDevice;
export type PublicOrganization = Organization;
export type PublicMember = Member;
export type PublicInvitation = Invitation;
export type { InvitationStatus };

/** Every field of T may be unset (absent, undefined or null). */
type Unset<T> = { [K in keyof T]?: T[K] | null };

/**
 * A user as auth.common.v1.User or the session cache's record (CachedUser) carry it, not declared again: the
 * four fields every user has, the others maybe unset (a message leaves them out, the cache holds nulls).
 */
export type UserFields = Pick<UserMessage, "id" | "name" | "email" | "emailVerified"> & (Unset<UserMessage> | Unset<CachedUser>);

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
  activeTeamId?: Maybe<string>;
  authMethod?: Maybe<string>;
  secondFactor?: Maybe<string>;
  authenticatedAt?: Date | string | null;
}

const iso = (date: When) => (typeof date === "string" ? date : (date ?? new Date(0)).toISOString());

export function publicUser(user: UserFields): PublicUser {
  return {
    ...user.extraFields,
    id: user.id,
    name: user.name,
    email: user.email,
    emailVerified: user.emailVerified,
    // Only an image safe in an <img src> (docs/http-api.md): one stored before the rule is answered as none.
    image: safeImage(user.image),
    createdAt: iso(user.createdAt ?? undefined),
    updatedAt: iso(user.updatedAt ?? undefined),
    // Always present, null when unset, so the shape does not change with the sign-up method.
    username: user.username ?? null,
    displayUsername: user.displayUsername ?? user.username ?? null,
    twoFactorEnabled: user.twoFactorEnabled ?? false,
    // The admin fields (docs/adr/0034-admin-roles-and-authorization.md), after the extra fields so a configured field can never shadow them.
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
    activeTeamId: session.activeTeamId ?? null,
    authMethod: session.authMethod ?? null,
    secondFactor: session.secondFactor ?? null,
    authenticatedAt: session.authenticatedAt ? iso(session.authenticatedAt) : null,
  };
}

/** A passkey as GET /passkey/list-user-passkeys shows it. */
export function publicPasskey(passkey: PasskeyMessage): Passkey {
  return {
    id: passkey.id,
    ...(passkey.name ? { name: passkey.name } : {}),
    userId: passkey.userId,
    credentialID: passkey.credentialId,
    publicKey: passkey.publicKey,
    counter: Number(passkey.counter),
    deviceType: passkey.deviceType === "multiDevice" ? "multiDevice" : "singleDevice",
    backedUp: passkey.backedUp,
    transports: passkey.transports.join(","),
    ...(passkey.aaguid ? { aaguid: passkey.aaguid } : {}),
    createdAt: iso(passkey.createdAt),
  };
}

/** A trusted device as GET /two-factor/list-trusted-devices shows it. */
export function publicTrustedDevice(device: {
  id: string;
  userAgent?: Maybe<string>;
  ipAddress?: Maybe<string>;
  createdAt?: When;
  lastUsedAt?: When;
  expiresAt?: When;
}): PublicTrustedDevice {
  return {
    id: device.id,
    userAgent: device.userAgent ?? null,
    ipAddress: device.ipAddress ?? null,
    createdAt: iso(device.createdAt),
    lastUsedAt: iso(device.lastUsedAt),
    expiresAt: iso(device.expiresAt),
  };
}

// Organizations (the better-auth organizationClient's shapes, 1.1 and current).

/** An organization as auth.organization.v1.Organization carries it. */
export interface OrganizationFields {
  id: string;
  name: string;
  slug: string;
  logo?: Maybe<string>;
  metadata: Record<string, string>;
  createdAt?: When;
}

export function publicOrganization(organization: OrganizationFields): PublicOrganization {
  return {
    id: organization.id,
    name: organization.name,
    slug: organization.slug,
    logo: organization.logo ?? null,
    metadata: Object.keys(organization.metadata).length ? organization.metadata : null,
    createdAt: iso(organization.createdAt),
  };
}

export function publicMember(member: {
  id: string;
  organizationId: string;
  userId: string;
  role: string;
  createdAt?: When;
  user?: { id: string; name: string; email: string; image?: Maybe<string> };
}): PublicMember {
  return {
    id: member.id,
    organizationId: member.organizationId,
    userId: member.userId,
    role: member.role,
    createdAt: iso(member.createdAt),
    ...(member.user ? { user: { id: member.user.id, name: member.user.name, email: member.user.email, image: safeImage(member.user.image) } } : {}),
  };
}

export function publicInvitation(invitation: {
  id: string;
  organizationId: string;
  email: string;
  role: string;
  status: string;
  inviterId: string;
  expiresAt?: When;
  createdAt?: When;
}): PublicInvitation {
  return {
    id: invitation.id,
    organizationId: invitation.organizationId,
    email: invitation.email,
    role: invitation.role,
    status: invitation.status as InvitationStatus,
    inviterId: invitation.inviterId,
    expiresAt: iso(invitation.expiresAt),
    createdAt: iso(invitation.createdAt),
  };
}
