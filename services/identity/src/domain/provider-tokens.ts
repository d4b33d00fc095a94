/**
 * Tokens an identity provider granted for one of the user's accounts. The credential account is not a
 * provider account and holds none. Provider configuration (and with it token storage and renewal) arrives
 * with social sign-in; until then no provider is configured, so a provider account found here answers
 * PROVIDER_NOT_FOUND, the answer for an account whose provider was removed from the configuration.
 */
import { AuthError } from "@auth-platform/proto/errors";
import { CREDENTIAL_PROVIDER, type AccountRecord } from "../store/identity-store.js";
import type { Registry } from "./ports.js";

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

/** Tokens and profile of a provider account both need the provider's configuration. */
export async function requireConfiguredProvider(deps: Pick<Registry, "store">, selection: ProviderAccountSelection): Promise<never> {
  await findProviderAccount(deps, selection);
  throw new AuthError("PROVIDER_NOT_FOUND");
}
