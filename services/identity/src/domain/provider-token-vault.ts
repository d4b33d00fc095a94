/**
 * Provider tokens at rest: AES-256-GCM under a key derived from AUTH_SECRET for this purpose only, the
 * account's own id as associated data (a sealed token copied onto another account does not open). A dump
 * of the account table alone yields no token a provider would accept.
 */
import { sealer } from "@auth-platform/runtime/session-token";

const PURPOSE = "provider-token-encryption";
const FORMAT = "p1";

export interface ProviderTokenVault {
  seal(token: string, accountId: string): string;
  /** The token back; throws when the value was not sealed for this account under this secret. */
  open(sealed: string, accountId: string): string;
}

export function providerTokenVault(secret: string): ProviderTokenVault {
  return sealer(secret, PURPOSE, FORMAT);
}
