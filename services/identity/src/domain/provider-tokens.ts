/**
 * Tokens an identity provider granted for one of the user's accounts, opened from their sealed copies. The
 * credential account is not a provider account and holds none. Renewing tokens and reading the provider's
 * profile need the provider's configuration, which the oauth service holds: the gateway asks oauth for
 * those (refresh-token, account-info), which reads the tokens here (LoadProviderTokens) and stores renewed
 * ones with storeProviderTokens. identity's own GetProviderTokens with refresh and GetProviderAccountInfo
 * still answer PROVIDER_NOT_FOUND (no route calls them).
 */
import { AuthError } from "@auth-platform/proto/errors";
import { CREDENTIAL_PROVIDER, type AccountRecord } from "../store/identity-store.js";
import type { Registry } from "./ports.js";
import { type ProviderProfile, sealedTokens } from "./provider-sign-in.js";

export interface ProviderAccountSelection {
  userId: string;
  accountId?: string;
  providerId?: string;
}

/** The user's provider account named by id or provider, else ACCOUNT_NOT_FOUND. */
export async function findProviderAccount(deps: Pick<Registry, "store">, selection: ProviderAccountSelection): Promise<AccountRecord> {
  const accounts = await deps.store.listAccounts(selection.userId);
  const found = accounts.find(
    (account) =>
      account.providerId !== CREDENTIAL_PROVIDER &&
      (selection.accountId === undefined || account.id === selection.accountId) &&
      (selection.providerId === undefined || account.providerId === selection.providerId),
  );
  if (!found || (selection.accountId === undefined && selection.providerId === undefined)) throw new AuthError("ACCOUNT_NOT_FOUND");
  return found;
}

export interface OpenedTokens {
  account: AccountRecord;
  accessToken?: string;
  refreshToken?: string;
  idToken?: string;
  accessTokenExpiresAt?: Date;
  refreshTokenExpiresAt?: Date;
}

/** The account's tokens in the clear (a token sealed under another secret is treated as absent). */
export async function providerTokens(deps: Pick<Registry, "store" | "providerTokens" | "log">, selection: ProviderAccountSelection): Promise<OpenedTokens> {
  const account = await findProviderAccount(deps, selection);
  const open = (sealed: string | null | undefined) => {
    if (!sealed) return undefined;
    try {
      return deps.providerTokens.open(sealed, account.id);
    } catch {
      deps.log.warn("a provider token does not open under the current AUTH_SECRET", { accountId: account.id });
      return undefined;
    }
  };
  return {
    account,
    accessToken: open(account.accessToken),
    refreshToken: open(account.refreshToken),
    idToken: open(account.idToken),
    accessTokenExpiresAt: account.accessTokenExpiresAt ?? undefined,
    refreshTokenExpiresAt: account.refreshTokenExpiresAt ?? undefined,
  };
}

/** Renewal and the provider's profile both need the provider's configuration (held by oauth). */
export async function requireConfiguredProvider(deps: Pick<Registry, "store">, selection: ProviderAccountSelection): Promise<never> {
  await findProviderAccount(deps, selection);
  throw new AuthError("PROVIDER_NOT_FOUND");
}

/** Replaces an account's tokens after a refresh; a token the provider did not send again is kept. */
export async function storeProviderTokens(
  deps: Pick<Registry, "store" | "providerTokens">,
  selection: { userId: string; accountId: string },
  tokens: Pick<ProviderProfile, "accessToken" | "refreshToken" | "idToken" | "accessTokenExpiresAt" | "refreshTokenExpiresAt" | "scopes">,
): Promise<void> {
  const account = await findProviderAccount(deps, selection);
  const sealed = sealedTokens(deps.providerTokens, account.id, {
    providerId: account.providerId,
    accountId: account.accountId,
    email: "",
    emailVerified: false,
    name: "",
    ...tokens,
  });
  await deps.store.updateAccountTokens(account.id, {
    accessToken: sealed.accessToken ?? account.accessToken ?? null,
    refreshToken: sealed.refreshToken ?? account.refreshToken ?? null,
    idToken: sealed.idToken ?? account.idToken ?? null,
    accessTokenExpiresAt: sealed.accessTokenExpiresAt,
    refreshTokenExpiresAt: sealed.refreshTokenExpiresAt ?? account.refreshTokenExpiresAt ?? null,
    scope: sealed.scope ?? account.scope ?? null,
  });
}
