/** Linked accounts: list, and unlink (never the last one; needs a fresh session). */
import { AuthError } from "@auth-platform/proto/errors";
import type { AccountRecord } from "../store/identity-store.js";
import { requireFreshSession } from "./freshness.js";
import type { CallerFacts, Registry } from "./ports.js";

type Deps = Pick<Registry, "config" | "store" | "now">;

export async function listAccounts(deps: Pick<Deps, "store">, userId: string): Promise<AccountRecord[]> {
  return deps.store.listAccounts(userId);
}

/** The account is named by its own id, or by provider (and the provider's account id). */
export interface UnlinkAccountInput {
  userId: string;
  id?: string;
  providerId: string;
  accountId?: string;
  caller?: CallerFacts;
}

export async function unlinkAccount(deps: Deps, input: UnlinkAccountInput): Promise<void> {
  requireFreshSession(input.caller, deps.config.freshAgeSeconds, deps.now());
  const accounts = await deps.store.listAccounts(input.userId);
  const target = accounts.find((a) => (input.id !== undefined ? a.id === input.id : a.providerId === input.providerId && (!input.accountId || a.accountId === input.accountId)));
  if (!target) throw new AuthError("ACCOUNT_NOT_FOUND");
  // Checked again where it is deleted: two unlinks at once must not both see the other account and remove both.
  if (accounts.length === 1 || !(await deps.store.deleteAccountUnlessLast(input.userId, target.id))) throw new AuthError("YOU_CANT_UNLINK_YOUR_LAST_ACCOUNT");
}
