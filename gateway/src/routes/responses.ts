/**
 * The JSON bodies of the routes whose shape a better-auth client declares, built in one place and typed,
 * so gateway/test/better-auth-client-types.test.ts can check at compile time that each one satisfies the
 * current client's declared types (ISO date strings become Dates in the client's JSON parser).
 */
import type { Account } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import type { PublicSession, PublicUser } from "../http/public-shapes.js";

/** Said for every well-formed address, known or not, so the answer reveals no account. */
export const RESET_REQUESTED = "If an account uses this address, a password reset link has been sent to it";

const iso = (date: Date | undefined) => (date ?? new Date(0)).toISOString();

export const signUpResponse = (token: string | null, user: PublicUser) => ({ token, user });

export const signInEmailResponse = (token: string, user: PublicUser, callbackURL: string | undefined) => ({
  redirect: Boolean(callbackURL),
  token,
  url: callbackURL,
  user,
});

/** redirect (declared by the current client) is true when the call named a callbackURL, echoed as url. */
export const signInUsernameResponse = (token: string, user: PublicUser, callbackURL: string | undefined) => ({
  redirect: Boolean(callbackURL),
  token,
  url: callbackURL,
  user,
});

export const sessionResponse = (session: PublicSession, user: PublicUser) => ({ session, user });

export const updateSessionResponse = (session: PublicSession) => ({ session });

/** `provider` for 1.1 clients, `providerId` and `userId` for the current one. */
export const accountListResponse = (accounts: Account[], userId: string) =>
  accounts.map((account) => ({
    id: account.id,
    provider: account.providerId,
    providerId: account.providerId,
    accountId: account.accountId,
    userId,
    createdAt: iso(account.createdAt),
    updatedAt: iso(account.updatedAt),
    scopes: account.scopes,
  }));

export const passwordResetRequestedResponse = () => ({ status: true, message: RESET_REQUESTED });

export const usernameAvailabilityResponse = (available: boolean) => ({ available });

/** POST /sign-in/social and /link-social: the provider's URL; redirect tells the client to go there. */
export const socialRedirectResponse = (url: string, redirect: boolean) => ({ url, redirect });

/** POST /sign-in/social with an id token: signed in directly. */
export const socialTokenResponse = (token: string, user: PublicUser, callbackURL?: string) => ({ redirect: false, token, url: callbackURL, user });
