/** Domain records <-> contract messages. */
import type { ProviderProfile as ProfileMessage } from "@auth-platform/proto/gen/auth/identity/v1/account";
import type { User } from "@auth-platform/proto/gen/auth/common/v1/user";
import type { Account, Client, UpdateUserRequest } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import { AuthError } from "@auth-platform/proto/errors";
import type { ProviderProfile } from "../domain/provider-sign-in.js";
import type { SignInOutcome } from "../domain/complete-sign-in.js";
import type { Caller } from "@auth-platform/runtime/caller";
import type { ClientInfo } from "../domain/ports.js";
import type { AccountRecord, UserRecord } from "../store/identity-store.js";

export function toUserMessage(user: UserRecord): User {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    emailVerified: user.emailVerified,
    image: user.image ?? undefined,
    createdAt: user.createdAt,
    updatedAt: user.updatedAt,
    username: user.username ?? undefined,
    displayUsername: user.displayUsername ?? undefined,
    role: user.role ?? undefined,
    banned: user.banned,
    banReason: user.banReason ?? undefined,
    banExpires: user.banExpires ?? undefined,
    extraFields: user.extraFields,
    twoFactorEnabled: user.twoFactorEnabled,
  };
}

export function toAccountMessage(account: AccountRecord): Account {
  return {
    id: account.id,
    providerId: account.providerId,
    accountId: account.accountId,
    createdAt: account.createdAt,
    updatedAt: account.updatedAt,
    scopes: (account.scope ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  };
}

export function toClient(client: Client | undefined): ClientInfo {
  return { ipAddress: client?.ipAddress, userAgent: client?.userAgent };
}

/** The signed-in caller's device, as the gateway resolved it. */
export function callerClient(caller: Caller): ClientInfo {
  return { ipAddress: caller.ipAddress, userAgent: caller.userAgent };
}

/** The entries of `fields` that are set (a proto3 optional field left out reads as undefined). */
function definedOnly(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/** A profile change (UpdateUser for the caller, SetUserProfile for the user an admin names). */
export type ProfileChange = Pick<UpdateUserRequest, "name" | "image" | "clearImage" | "username" | "displayUsername" | "extraFields">;

/** The fields a profile change sets, by name (domain/update-user.ts); clearImage sets the image to null. */
export function profileFields(change: ProfileChange): Record<string, unknown> {
  if (change.clearImage && change.image !== undefined) throw new AuthError("VALIDATION_ERROR", "image and clearImage are exclusive");
  return {
    ...change.extraFields,
    ...definedOnly({ name: change.name, image: change.clearImage ? null : change.image, username: change.username, displayUsername: change.displayUsername }),
  };
}

/** A sign-in's outcome: the session (maybe let through by a trusted device) or the two-factor challenge. */
export function toSignInResponse(outcome: SignInOutcome) {
  return {
    user: toUserMessage(outcome.user),
    session: outcome.session,
    twoFactor: outcome.challenge,
    trustedDevice: outcome.trustedDevice,
  };
}

/** A provider profile from oauth; provider and account ids are required. */
export function toProviderProfile(message: ProfileMessage | undefined): ProviderProfile {
  if (!message?.providerId || !message.accountId) throw new AuthError("VALIDATION_ERROR", "profile.providerId and profile.accountId are required");
  return {
    providerId: message.providerId,
    accountId: message.accountId,
    email: message.email,
    emailVerified: message.emailVerified,
    name: message.name,
    image: message.image,
    accessToken: message.accessToken,
    refreshToken: message.refreshToken,
    idToken: message.idToken,
    accessTokenExpiresAt: message.accessTokenExpiresAt,
    refreshTokenExpiresAt: message.refreshTokenExpiresAt,
    scopes: message.scopes,
  };
}
