/** What the oauth domain needs from outside itself: its store, the providers, identity, a clock. */
import type { User } from "@auth-platform/proto/gen/auth/common/v1/user";
import type { Account, TrustedDeviceToken, TwoFactorChallenge } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import type { Session } from "@auth-platform/proto/gen/auth/session/v1/session";
import type { Logger } from "@auth-platform/runtime/log";
import type { OAuthConfig } from "../config.js";
import type { Provider, ProviderTokens, MappedProfile } from "../providers/types.js";
import type { OAuthStore } from "../store/oauth-store.js";

export interface ClientInfo {
  ipAddress?: string;
  userAgent?: string;
}

/** A provider's verified profile with its tokens, as identity stores it. */
export interface VerifiedProfile extends MappedProfile {
  providerId: string;
  email: string;
  tokens: ProviderTokens;
}

export interface IdentityPort {
  /**
   * Signs in (or registers) the profile's user under the linking rules; catalogue errors pass through. A user
   * with two-factor on gets a challenge instead of a session, unless the browser's trusted device lets them through.
   */
  signInWithProvider(profile: VerifiedProfile, options: SignInOptions): Promise<ProviderSignIn>;
  /** Links the profile's provider account to the user. */
  linkProviderAccount(userId: string, profile: VerifiedProfile): Promise<void>;
  /** Refuses a link the callback would refuse whatever the provider answers (SOCIAL_ACCOUNT_ALREADY_LINKED passes through). */
  checkProviderLink(userId: string, providerId: string): Promise<void>;
  /** The stored tokens of one of the user's provider accounts (ACCOUNT_NOT_FOUND passes through). */
  providerTokens(selection: AccountSelection): Promise<StoredTokens>;
  /** Replaces the account's tokens after a refresh. */
  storeProviderTokens(userId: string, accountId: string, tokens: ProviderTokens): Promise<void>;
}

export interface SignInOptions {
  trusted: boolean;
  disableImplicitLinking: boolean;
  client: ClientInfo;
  /** The token of the browser's trusted-device cookie, if it has one. */
  trustedDevice?: string;
}

/** Either a session, or (two-factor on) a challenge for the browser to answer. */
export interface ProviderSignIn {
  user: User;
  session?: Session;
  twoFactor?: TwoFactorChallenge;
  trustedDevice?: TrustedDeviceToken;
  isNewUser: boolean;
}

export interface AccountSelection {
  userId: string;
  accountId?: string;
  providerId?: string;
}

export interface StoredTokens {
  account: Account;
  accessToken?: string;
  refreshToken?: string;
  idToken?: string;
  accessTokenExpiresAt?: Date;
  refreshTokenExpiresAt?: Date;
}

export interface Registry {
  config: OAuthConfig;
  store: OAuthStore;
  /** The configured providers by id. */
  providers: Map<string, Provider>;
  identity: IdentityPort;
  now: () => Date;
  log: Logger;
}
