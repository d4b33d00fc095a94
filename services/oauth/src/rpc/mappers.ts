/** Domain <-> contract messages. */
import type { ProviderProfile } from "@auth-platform/proto/gen/auth/identity/v1/account";
import type { Client } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import type { ClientInfo, VerifiedProfile } from "../domain/ports.js";
import type { ProviderTokens } from "../providers/types.js";

export function toClient(client: Client | undefined): ClientInfo {
  return { ipAddress: client?.ipAddress, userAgent: client?.userAgent };
}

/** The profile as identity's SignInWithProvider and LinkProviderAccount take it. */
export function toProfileMessage(profile: VerifiedProfile): ProviderProfile {
  return {
    providerId: profile.providerId,
    accountId: profile.accountId,
    email: profile.email,
    emailVerified: profile.emailVerified,
    name: profile.name,
    image: profile.image ?? undefined,
    accessToken: profile.tokens.accessToken,
    refreshToken: profile.tokens.refreshToken,
    idToken: profile.tokens.idToken,
    accessTokenExpiresAt: profile.tokens.accessTokenExpiresAt,
    refreshTokenExpiresAt: profile.tokens.refreshTokenExpiresAt,
    scopes: profile.tokens.scopes,
  };
}

/** Renewed tokens as identity's StoreProviderTokens takes them (in a profile message, its ids unused). */
export function toTokensMessage(tokens: ProviderTokens): ProviderProfile {
  return {
    providerId: "",
    accountId: "",
    email: "",
    emailVerified: false,
    name: "",
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    idToken: tokens.idToken,
    accessTokenExpiresAt: tokens.accessTokenExpiresAt,
    refreshTokenExpiresAt: tokens.refreshTokenExpiresAt,
    scopes: tokens.scopes,
  };
}
