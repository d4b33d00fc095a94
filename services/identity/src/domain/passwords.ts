/** Change password (knowing the current one) and set password (a first one, for users without one). */
import type { Session } from "@auth-platform/proto/gen/auth/session/v1/session";
import { AuthError } from "@auth-platform/proto/errors";
import { CREDENTIAL_PROVIDER, type UserRecord } from "../store/identity-store.js";
import { admissibleUser } from "./bans.js";
import { voidResetLinks } from "./password-reset.js";
import type { CallerFacts, ClientInfo, Registry } from "./ports.js";
import { requireFreshSession } from "./freshness.js";
import { newId } from "@auth-platform/runtime/random";
import { openSession } from "./open-session.js";
import { checkPasswordLength } from "./validation.js";

type Deps = Pick<Registry, "config" | "store" | "sessions" | "organizations" | "now" | "passwords" | "log">;

export interface ChangePasswordInput {
  userId: string;
  currentPassword: string;
  newPassword: string;
  revokeOtherSessions: boolean;
  /** The session the request acts in. */
  caller?: CallerFacts;
  client: ClientInfo;
  /** When the caller stops waiting (epoch ms): hashing that would end later is refused (SERVICE_UNAVAILABLE). */
  deadline?: number;
}

export async function changePassword(deps: Deps, input: ChangePasswordInput): Promise<{ user: UserRecord; session?: Session }> {
  // Revoking would end the user's own sessions and hand the admin a plain session of the user (unflagged,
  // audited as the user's): refused before anything is checked or changed.
  if (input.revokeOtherSessions && input.caller?.impersonatedBy) throw new AuthError("YOU_CANNOT_REVOKE_SESSIONS_WHILE_IMPERSONATING");
  checkPasswordLength(input.newPassword, deps.config);
  const user = await deps.store.findUserById(input.userId);
  if (!user) throw new AuthError("USER_NOT_FOUND");
  const credential = await deps.store.findAccount(user.id, CREDENTIAL_PROVIDER);
  if (!credential?.password) throw new AuthError("CREDENTIAL_ACCOUNT_NOT_FOUND");
  if (!(await deps.passwords.verify(credential.password, input.currentPassword, input.deadline))) throw new AuthError("INVALID_PASSWORD");
  const previous = credential.password;
  await deps.store.setAccountPassword(credential.id, await deps.passwords.hash(input.newPassword, input.deadline));
  // A new password ends the trust given to browsers (the next sign-in anywhere asks for the second factor),
  // the sign-ins the old one opened that wait for their second factor, and the reset links mailed before it.
  await deps.store.deleteTrustedDevices(user.id);
  await deps.store.deleteUserChallenges(user.id);
  await voidResetLinks(deps, user.id);
  if (!input.revokeOtherSessions) return { user };
  // The new password and the end of every session go together or not at all: if the revocation fails, the
  // previous password is put back and the caller gets the error (a retry starts from where it was). The
  // revocation itself does not fail for a Redis outage (the session service records it durably).
  try {
    await deps.sessions.revokeUserSessions(user.id, undefined, "password-changed");
  } catch (error) {
    await deps.store.setAccountPassword(credential.id, previous);
    throw error;
  }
  // Every session ended, the caller's too; the caller continues on a new one, unless a ban was stored since
  // the user was read (two scrypts ago): the ban ended the sessions, and a banned user gets no new one.
  const current = await admissibleUser(deps, user.id);
  if (!current) return { user };
  // The caller just proved the password (its own session ended with the others).
  const session = await openSession(deps, current, { rememberMe: true, client: input.client, authentication: { method: "password" } });
  return { user: current, session };
}

/**
 * Gives a user without a password (signed up by a mailed link or code, or through a provider) a first one.
 * No current password to prove, so the session must be fresh (freshness.ts), as for unlinking an account.
 */
export async function setPassword(deps: Deps, input: { userId: string; newPassword: string; caller?: CallerFacts; deadline?: number }): Promise<void> {
  // An admin acting as the user would leave with a password of the user's, audited as the user's own.
  if (input.caller?.impersonatedBy) throw new AuthError("SIGN_IN_METHODS_CANNOT_BE_CHANGED_WHILE_IMPERSONATING");
  requireFreshSession(input.caller, deps.config.freshAgeSeconds, deps.now());
  checkPasswordLength(input.newPassword, deps.config);
  const user = await deps.store.findUserById(input.userId);
  if (!user) throw new AuthError("USER_NOT_FOUND");
  if (await deps.store.findAccount(user.id, CREDENTIAL_PROVIDER)) throw new AuthError("USER_ALREADY_HAS_A_PASSWORD");
  const hash = await deps.passwords.hash(input.newPassword, input.deadline);
  const now = deps.now();
  try {
    await deps.store.createAccount({ id: newId(), accountId: user.id, providerId: CREDENTIAL_PROVIDER, userId: user.id, password: hash, createdAt: now, updatedAt: now });
  } catch (error) {
    // Two at once: the unique (provider, account id) index lets one in; the other is told it has one now.
    if (await deps.store.findAccount(user.id, CREDENTIAL_PROVIDER)) throw new AuthError("USER_ALREADY_HAS_A_PASSWORD");
    throw error;
  }
}
