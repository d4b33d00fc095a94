/**
 * Sign-in with an id token the client obtained from the provider itself (Google, Apple): verified against
 * the provider's key set (audience our client id, the nonce when given, Apple's under 1 h old), then the
 * same linking rules as a callback.
 */
import { AuthError, isErrorCode } from "@auth-platform/proto/errors";
import { ProfileError } from "../providers/provider.js";
import { lowerCaseAddress } from "./complete-sign-in.js";
import type { ClientGivenUser } from "../providers/types.js";
import type { ClientInfo, ProviderSignIn, Registry } from "./ports.js";

export interface IdTokenSignInInput {
  providerId: string;
  idToken: string;
  nonce?: string;
  accessToken?: string;
  refreshToken?: string;
  expiresAt?: Date;
  client: ClientInfo;
  /** The token of the browser's trusted-device cookie, if it has one. */
  trustedDevice?: string;
  /** The name the client got beside the token (Apple's first authorization). */
  user?: ClientGivenUser;
}

export async function signInWithIdToken(deps: Pick<Registry, "config" | "providers" | "identity" | "log">, input: IdTokenSignInInput): Promise<ProviderSignIn> {
  const provider = deps.providers.get(input.providerId);
  if (!provider) throw new AuthError("PROVIDER_NOT_FOUND");
  if (!provider.verifyIdToken) throw new AuthError("ID_TOKEN_NOT_SUPPORTED");
  let result;
  try {
    result = await provider.verifyIdToken({ idToken: input.idToken, nonce: input.nonce, accessToken: input.accessToken, user: input.user });
  } catch (error) {
    if (!(error instanceof ProfileError)) throw error;
    deps.log.info("id token refused", { providerId: provider.id, error: error.message });
    throw new AuthError("INVALID_TOKEN");
  }
  if (!result.profile.email) throw new AuthError("USER_EMAIL_NOT_FOUND");
  const tokens = { ...result.tokens, refreshToken: input.refreshToken, accessTokenExpiresAt: input.expiresAt };
  try {
    return await deps.identity.signInWithProvider(
      { ...result.profile, email: lowerCaseAddress(result.profile.email), providerId: provider.id, tokens },
      {
        trusted: deps.config.trustedProviders.includes(provider.id),
        disableImplicitLinking: deps.config.disableImplicitLinking,
        client: input.client,
        trustedDevice: input.trustedDevice,
      },
    );
  } catch (error) {
    // identity's answer is meant for our caller (a peer error escaping would be a generic 500).
    if (error instanceof AuthError && isErrorCode(error.code) && error.code !== "INTERNAL_SERVER_ERROR") throw new AuthError(error.code, undefined, { fields: error.fields });
    throw error;
  }
}
