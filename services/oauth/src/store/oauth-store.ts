/** The oauth store port: the sign-in state (a record keyed by the state). */

/** The signed-in user a provider account is to be linked to (/link-social). */
export interface LinkIntent {
  userId: string;
  email: string;
}

export interface SignInState {
  /** The state parameter itself (32 characters): the key, and the callback's CSRF protection. */
  state: string;
  providerId: string;
  /** PKCE code verifier (128 characters). */
  codeVerifier: string;
  /** OpenID Connect nonce the id token must carry. */
  nonce: string;
  /** Absolute URLs the gateway checked against the trusted origins. */
  callbackUrl: string;
  errorUrl: string | null;
  newUserUrl: string | null;
  link: LinkIntent | null;
  expiresAt: Date;
  createdAt: Date;
}

export interface OAuthStore {
  saveState(state: SignInState): Promise<void>;
  /**
   * Deletes the state and answers it, expired or not; null when there is none. Only one of two racing
   * callers gets it (one conditional DELETE), so a state is used at most once.
   */
  consumeState(state: string): Promise<SignInState | null>;
  /** Deletes states that expired before `now`; answers how many. */
  deleteExpired(now: Date): Promise<number>;
  close(): Promise<void>;
}
