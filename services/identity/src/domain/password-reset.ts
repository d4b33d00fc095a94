/**
 * Password reset: a 24-character token valid one hour, mailed as a link, used at most once; a newer token
 * voids the older ones, and so does a change of the password or of the address; only its hash is stored.
 * Asking for one only queues a mail request (the same single insert for any address), so the answer takes
 * as long whether or not the address is a user's; the worker does the rest afterwards.
 * A reset ends what the old password had opened: other reset links, trusted devices, pending two-factor
 * challenges and (by default) sessions; for a user whose address is not verified, the provider accounts and
 * the two-factor setup too.
 */
import { AuthError } from "@auth-platform/proto/errors";
import type { Language } from "@auth-platform/runtime/language";
import { newId, randomString } from "@auth-platform/runtime/random";
import { CREDENTIAL_PROVIDER, type UserRecord } from "../store/identity-store.js";
import { apiLink, mailKey } from "./links.js";
import { enqueueMailRequest } from "./mail-requests.js";
import type { Registry } from "./ports.js";
import { tokenHash } from "./trusted-devices.js";
import { checkPasswordLength, normaliseEmail } from "./validation.js";

type Deps = Pick<Registry, "config" | "store" | "mail" | "now">;

const RESET_TOKEN_LENGTH = 24;
const RESET_PREFIX = "reset-password:";
// The record names the token's hash: a dump of the verification table resets no one's password.
const identifierOf = (token: string) => `${RESET_PREFIX}${tokenHash(token)}`;

/**
 * Voids every reset link of the user: the password changed (the link was asked for the old one), or the
 * address did (the link went to a mailbox that is no longer the user's).
 */
export async function voidResetLinks(deps: Pick<Registry, "store">, userId: string): Promise<void> {
  await deps.store.deleteVerifications(RESET_PREFIX, userId);
}

/** Answers the same, in the same time, whether or not the address belongs to a user (no enumeration). */
export async function requestPasswordReset(
  deps: Pick<Registry, "config" | "store" | "now" | "mailRequests">,
  input: { email: string; redirectTo?: string; language?: Language },
): Promise<void> {
  if (!deps.config.resetPassword.enabled) throw new AuthError("RESET_PASSWORD_ISNT_ENABLED");
  let email: string;
  try {
    email = normaliseEmail(input.email);
  } catch {
    return;
  }
  await enqueueMailRequest(deps, { kind: "password-reset", email, callbackUrl: input.redirectTo, language: input.language });
}

/** The worker's half: for a user's address, a new token (voiding the older ones) mailed as a link. */
export async function mailResetLink(deps: Deps, input: { email: string; redirectTo?: string; language?: Language }): Promise<void> {
  const { config } = deps;
  const user = await deps.store.findUserByEmail(input.email);
  if (!user) return;
  const now = deps.now();
  const token = randomString(RESET_TOKEN_LENGTH);
  await voidResetLinks(deps, user.id);
  await deps.store.createVerification({
    id: newId(),
    identifier: identifierOf(token),
    value: user.id,
    expiresAt: new Date(now.getTime() + config.resetPassword.expiresInSeconds * 1000),
    createdAt: now,
    updatedAt: now,
  });
  const url = apiLink(config.baseUrl, `/reset-password/${token}`, { callbackURL: input.redirectTo });
  await deps.mail.send(user.email, "password-reset", { url, name: user.name, email: user.email }, mailKey("reset", token), input.language);
}

async function liveRecord(deps: Pick<Deps, "store" | "now">, token: string) {
  if (!/^[A-Za-z0-9]{1,64}$/.test(token)) throw new AuthError("INVALID_TOKEN");
  const record = await deps.store.findVerification(identifierOf(token));
  if (!record || record.expiresAt <= deps.now()) throw new AuthError("INVALID_TOKEN");
  // The record outlives a removed user: its link must not give a credential account to a user id no one has.
  const user = await deps.store.findUserById(record.value);
  if (!user) throw new AuthError("INVALID_TOKEN");
  return { record, user };
}

/** What a reset took from a user whose address is not verified (the gateway records it in the security event). */
export interface UnprovenSetupRemoved {
  providerAccounts: number;
  twoFactor: boolean;
}

/**
 * Removes what was set up on a user whose address is not verified: its provider accounts and its two-factor
 * setup (secret, backup codes, trusted devices, pending challenges, the flag). Whoever set them up (a
 * squatter who registered the address first, or a provider that does not verify addresses; docs/adr/0014-reset-of-an-unverified-account.md) never
 * proved the mailbox the reset link just proved: the owner now recovering the account must neither share
 * it with the squatter's provider account nor pass a second factor the squatter holds.
 */
async function dropUnprovenSetup(deps: Pick<Deps, "store">, user: UserRecord): Promise<UnprovenSetupRemoved> {
  if (user.emailVerified) return { providerAccounts: 0, twoFactor: false };
  const providerAccounts = (await deps.store.listAccounts(user.id)).filter((account) => account.providerId !== CREDENTIAL_PROVIDER);
  for (const account of providerAccounts) await deps.store.deleteAccount(account.id);
  // An enrolment not yet activated counts too: its first code would turn the squatter's secret on.
  const twoFactor = user.twoFactorEnabled || (await deps.store.findTwoFactor(user.id)) !== null;
  if (twoFactor) await deps.store.deleteTwoFactor(user.id);
  return { providerAccounts: providerAccounts.length, twoFactor };
}

export async function checkResetToken(deps: Pick<Deps, "store" | "now">, token: string): Promise<void> {
  await liveRecord(deps, token);
}

export async function resetPassword(
  deps: Deps & Pick<Registry, "passwords">,
  input: { token: string; newPassword: string; deadline?: number },
): Promise<{ userId: string; removed: UnprovenSetupRemoved }> {
  checkPasswordLength(input.newPassword, deps.config);
  const { record, user } = await liveRecord(deps, input.token);
  if (!(await deps.store.consumeVerification(record.id))) throw new AuthError("INVALID_TOKEN");
  const hash = await deps.passwords.hash(input.newPassword, input.deadline);
  return setResetPassword(deps, user, hash);
}

/**
 * The reset itself, once a mailed proof (a reset link, a reset code: mail-sign-in.ts) named the user and the
 * new password is hashed.
 */
export async function setResetPassword(deps: Deps, user: UserRecord, hash: string): Promise<{ userId: string; removed: UnprovenSetupRemoved }> {
  const userId = user.id;
  // Before the new password is stored: a failure in between leaves no account the owner recovered with the
  // intruder's provider account or second factor still on it.
  const removed = await dropUnprovenSetup(deps, user);
  // An unverified user's sessions end whatever the configuration says: whoever opened them (a squatter's
  // password or provider account) never proved the mailbox the reset link just proved. The end of the
  // sessions is written with the password (the store's session outbox): delivered before the answer, or, with
  // the session service away, as soon as it is back, and before any new session of the user.
  const revokeSessions = deps.config.resetPassword.revokeSessions || !user.emailVerified;
  const credential = await deps.store.findAccount(userId, CREDENTIAL_PROVIDER);
  if (credential) {
    await deps.store.setAccountPassword(credential.id, hash, { revokeSessionsOf: revokeSessions ? userId : undefined });
  } else {
    const now = deps.now();
    await deps.store.createAccount({ id: newId(), accountId: userId, providerId: CREDENTIAL_PROVIDER, userId, password: hash, createdAt: now, updatedAt: now }, { revokeSessions });
  }
  // Any other reset link of the user dies with this one, and so does the trust given to any browser and
  // every sign-in waiting for its second factor (the old password proved its first).
  await voidResetLinks(deps, userId);
  await deps.store.deleteTrustedDevices(userId);
  await deps.store.deleteUserChallenges(userId);
  return { userId, removed };
}
