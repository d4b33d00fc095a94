/** What a provider yields: the profile identity needs and the tokens it granted. */
import type { Json } from "./http.js";

export interface MappedProfile {
  /** The provider's id of the user. */
  accountId: string;
  /** Lower-cased by identity; null when the provider disclosed none. */
  email: string | null;
  emailVerified: boolean;
  name: string;
  image: string | null;
}

export interface ProviderTokens {
  accessToken?: string;
  refreshToken?: string;
  idToken?: string;
  accessTokenExpiresAt?: Date;
  refreshTokenExpiresAt?: Date;
  scopes: string[];
}

export interface SignInResult {
  profile: MappedProfile;
  tokens: ProviderTokens;
  /** The provider's raw profile (user info or id-token claims). */
  raw: Json;
}

/** The user's name as a client got it from the provider beside an id token (Apple's first authorization). */
export interface ClientGivenUser {
  firstName?: string;
  lastName?: string;
}

/** One configured provider, as the sign-in flow uses it. */
export interface Provider {
  id: string;
  /** Where the provider sends the browser back, under AUTH_BASE_URL (the redirect URI registered with it). */
  callbackPath: string;
  /** The name the sign-in screen shows (generic providers); the app names the built-in ones itself. */
  displayName?: string;
  /** The authorization URL the browser is sent to. */
  authorizationUrl(input: { state: string; codeVerifier: string; nonce: string; redirectUri: string; scopes: string[]; loginHint?: string }): Promise<string>;
  /** Exchanges the code (with the PKCE verifier when the provider takes one) and reads the profile. */
  complete(input: { code: string; state: string; codeVerifier: string; nonce: string; redirectUri: string; userJson?: string; iss?: string }): Promise<SignInResult>;
  /** Renews the tokens with a refresh token (grant_type=refresh_token at the token endpoint). */
  refresh(refreshToken: string): Promise<ProviderTokens>;
  /** The provider's profile read with stored tokens (the id token's claims were verified when it was stored). */
  accountInfo(input: { accessToken?: string; idToken?: string }): Promise<SignInResult>;
  /** Verifies an id token the client obtained itself (Google, Apple); undefined for the others. */
  verifyIdToken?(input: { idToken: string; nonce?: string; accessToken?: string; user?: ClientGivenUser }): Promise<SignInResult>;
}
