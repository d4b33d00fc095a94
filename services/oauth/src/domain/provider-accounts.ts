/**
 * What the current better-auth client asks of a linked provider account beyond its stored access token:
 * a renewed token (POST /refresh-token) and the provider's profile (GET /account-info). identity keeps the
 * tokens; oauth holds the provider configuration, so it reads them from identity, asks the provider, and
 * (refresh) hands the new tokens back to identity.
 */
import { AuthError } from "@auth-platform/proto/errors";
import { ProfileError } from "../providers/provider.js";
import { fromIdentity } from "./from-identity.js";
import type { AccountSelection, Registry, StoredTokens } from "./ports.js";

type Deps = Pick<Registry, "providers" | "identity" | "log">;

async function withProvider(deps: Deps, selection: AccountSelection) {
  const stored = await fromIdentity(() => deps.identity.providerTokens(selection));
  const provider = deps.providers.get(stored.account.providerId);
  if (!provider) throw new AuthError("PROVIDER_NOT_FOUND");
  return { stored, provider };
}

export async function refreshProviderTokens(deps: Deps, selection: AccountSelection): Promise<StoredTokens> {
  const { stored, provider } = await withProvider(deps, selection);
  if (!stored.refreshToken) throw new AuthError("INVALID_TOKEN");
  let tokens;
  try {
    tokens = await provider.refresh(stored.refreshToken);
  } catch (error) {
    if (!(error instanceof ProfileError)) throw error;
    deps.log.info("provider refused a refresh", { providerId: provider.id, error: error.message });
    throw new AuthError("INVALID_TOKEN");
  }
  await fromIdentity(() => deps.identity.storeProviderTokens(selection.userId, stored.account.id, tokens));
  return {
    account: { ...stored.account, scopes: tokens.scopes.length ? tokens.scopes : stored.account.scopes },
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken ?? stored.refreshToken,
    idToken: tokens.idToken ?? stored.idToken,
    accessTokenExpiresAt: tokens.accessTokenExpiresAt,
    refreshTokenExpiresAt: tokens.refreshTokenExpiresAt ?? stored.refreshTokenExpiresAt,
  };
}

export async function providerAccountInfo(deps: Deps, selection: AccountSelection) {
  const { stored, provider } = await withProvider(deps, selection);
  try {
    const { profile, raw } = await provider.accountInfo({ accessToken: stored.accessToken, idToken: stored.idToken });
    return {
      account: stored.account,
      user: { id: profile.accountId, name: profile.name, email: profile.email, image: profile.image, emailVerified: profile.emailVerified },
      data: raw,
    };
  } catch (error) {
    if (!(error instanceof ProfileError)) throw error;
    deps.log.info("provider profile unavailable", { providerId: provider.id, error: error.message });
    throw new AuthError("FAILED_TO_GET_USER_INFO");
  }
}
