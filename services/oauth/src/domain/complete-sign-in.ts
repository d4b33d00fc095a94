/**
 * The provider's callback: the state is consumed (once, whatever happens next), then the code exchanged,
 * the profile read, and the user signed in (or the account linked) through identity. Every failure is an
 * outcome carrying the redirect code (docs/http-api.md#redirect-error-codes) and the state's error URL (absent: the default error page),
 * never a thrown error, so the gateway always answers the browser with a redirect.
 */
import { AuthError, type ErrorCode, redirectErrorCode, REDIRECT_ERRORS } from "@auth-platform/proto/errors";
import { describeError } from "@auth-platform/runtime/log";
import { CodeExchangeError, ProfileError } from "../providers/provider.js";
import type { SignInState } from "../store/oauth-store.js";
import type { ClientInfo, ProviderSignIn, Registry, VerifiedProfile } from "./ports.js";
import { redirectUriOf } from "./start-sign-in.js";

export interface CallbackInput {
  providerId: string;
  code?: string;
  state?: string;
  error?: string;
  errorDescription?: string;
  client: ClientInfo;
  userJson?: string;
  iss?: string;
  /** The token of the browser's trusted-device cookie, if it has one. */
  trustedDevice?: string;
}

export type CallbackOutcome =
  // A session, or a two-factor challenge the browser answers before redirectUrl.
  | ({ kind: "signed-in"; redirectUrl: string } & ProviderSignIn)
  | { kind: "linked"; redirectUrl: string }
  | { kind: "failed"; error: string; errorUrl?: string; errorDescription?: string };

/**
 * A provider's address with its ASCII letters lower-cased, and only those: String#toLowerCase maps a few
 * non-ASCII letters to ASCII (KELVIN SIGN to "k"), which would turn a look-alike the provider vouched for
 * into another user's address. Left as sent, such an address is refused by identity as invalid.
 */
export const lowerCaseAddress = (email: string): string => email.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

const codeOf = (code: ErrorCode): string => REDIRECT_ERRORS.socialCallback[code as keyof typeof REDIRECT_ERRORS.socialCallback] ?? "internal_server_error";
/** A provider's own error code (access_denied ...) is passed on only when it looks like one. */
const PROVIDER_ERROR = /^[a-z0-9_]{1,64}$/;

export async function completeSignIn(deps: Registry, input: CallbackInput): Promise<CallbackOutcome> {
  if (!input.state) return { kind: "failed", error: codeOf("STATE_NOT_FOUND") };
  const state = await deps.store.consumeState(input.state);
  if (!state) return { kind: "failed", error: codeOf("STATE_NOT_FOUND") };
  const failWith = (error: string, errorDescription?: string): CallbackOutcome => ({ kind: "failed", error, errorUrl: state.errorUrl ?? undefined, errorDescription });
  const fail = (code: ErrorCode, errorDescription?: string) => failWith(codeOf(code), errorDescription);
  if (state.expiresAt <= deps.now()) return fail("PLEASE_RESTART_THE_PROCESS");
  // The provider's own words (a refusal, or no code) are passed on, bounded.
  const description = input.errorDescription?.slice(0, 500);
  if (input.error) return PROVIDER_ERROR.test(input.error) ? failWith(input.error, description) : fail("INVALID_CALLBACK_REQUEST", description);
  if (!input.code) return fail("NO_CODE", description);
  // The callback's provider before the state's: a path naming no configured provider says so, as better-auth does.
  const provider = deps.providers.get(input.providerId);
  if (!provider) return fail("OAUTH_PROVIDER_NOT_FOUND");
  // A state is good for the provider it was made for only.
  if (state.providerId !== provider.id) return fail("INVALID_CALLBACK_REQUEST");

  let profile: VerifiedProfile;
  try {
    const result = await provider.complete({
      code: input.code,
      state: state.state,
      codeVerifier: state.codeVerifier,
      nonce: state.nonce,
      redirectUri: redirectUriOf(deps, provider),
      userJson: input.userJson,
      iss: input.iss,
    });
    if (!result.profile.email) return fail("EMAIL_NOT_FOUND");
    profile = { ...result.profile, email: lowerCaseAddress(result.profile.email), providerId: provider.id, tokens: result.tokens };
  } catch (error) {
    if (error instanceof CodeExchangeError) {
      deps.log.warn("social sign-in: the provider granted no tokens for the code", { providerId: provider.id, error: error.message });
      return fail("PLEASE_RESTART_THE_PROCESS");
    }
    if (!(error instanceof ProfileError)) throw error;
    deps.log.warn("social sign-in: provider answer refused", { providerId: provider.id, error: error.message });
    return fail("UNABLE_TO_GET_USER_INFO");
  }

  try {
    return state.link ? await link(deps, state, profile) : await signIn(deps, state, profile, input);
  } catch (error) {
    const code = redirectErrorCode("socialCallback", error);
    if (!code || code === "internal_server_error") deps.log.error("social sign-in failed", { providerId: provider.id, error: describeError(error) });
    return { kind: "failed", error: code ?? "internal_server_error", errorUrl: state.errorUrl ?? undefined };
  }
}

async function signIn(deps: Registry, state: SignInState, profile: VerifiedProfile, input: CallbackInput): Promise<CallbackOutcome> {
  const { config } = deps;
  const result = await deps.identity.signInWithProvider(profile, {
    trusted: config.trustedProviders.includes(profile.providerId),
    disableImplicitLinking: config.disableImplicitLinking,
    client: input.client,
    trustedDevice: input.trustedDevice,
  });
  const redirectUrl = result.isNewUser ? (state.newUserUrl ?? state.callbackUrl) : state.callbackUrl;
  return { kind: "signed-in", redirectUrl, ...result };
}

async function link(deps: Registry, state: SignInState, profile: VerifiedProfile): Promise<CallbackOutcome> {
  // The provider's address must be the signed-in user's own (email_doesn't_match).
  if (profile.email !== lowerCaseAddress(state.link!.email)) throw new AuthError("EMAIL_DOESNT_MATCH");
  await deps.identity.linkProviderAccount(state.link!.userId, profile);
  return { kind: "linked", redirectUrl: state.callbackUrl };
}
