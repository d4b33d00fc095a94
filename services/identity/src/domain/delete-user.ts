/**
 * Delete user: at once with a mailed token; with the password, or from a fresh session, a confirmation mail
 * when confirmation by mail is configured, else at once. Deletion removes the accounts and the user in one
 * transaction with its session outbox row, whose delivery ends the sessions and removes the memberships
 * (organization service): at once, or when those services can be reached again (session-outbox.ts).
 */
import { AuthError } from "@auth-platform/proto/errors";
import type { Language } from "@auth-platform/runtime/language";
import { LOWER_ALPHANUMERIC, newId, randomString } from "@auth-platform/runtime/random";
import { CREDENTIAL_PROVIDER, type UserRecord } from "../store/identity-store.js";
import { requireFreshSession } from "./freshness.js";
import { apiLink, mailKey } from "./links.js";
import { voidResetLinks } from "./password-reset.js";
import type { CallerFacts, Registry } from "./ports.js";
import { tokenHash } from "./trusted-devices.js";

type Deps = Pick<Registry, "config" | "store" | "mail" | "sessions" | "organizations" | "now" | "passwords">;

const DELETE_TOKEN_LENGTH = 32;
const DELETE_TOKEN_SECONDS = 86_400;
// The record names the token's hash: a dump of the verification table deletes no one.
const DELETE_PREFIX = "delete-account-";
const identifierOf = (token: string) => `${DELETE_PREFIX}${tokenHash(token)}`;

export interface DeleteUserInput {
  userId: string;
  password?: string;
  token?: string;
  callbackUrl?: string;
  /** The language of the confirmation mail (the request's). */
  language?: Language;
  caller?: CallerFacts;
  /** When the caller stops waiting (epoch ms): hashing that would end later is refused (SERVICE_UNAVAILABLE). */
  deadline?: number;
}

/**
 * Removes everything the user owns here; the sessions and memberships follow through the outbox. A membership
 * written after the delivery (an accept in flight) is removed by the organization service, which then finds
 * the user gone.
 */
export async function removeUser(deps: Pick<Deps, "store">, userId: string): Promise<void> {
  // The user's mailed reset and deletion links name a user no one has now: their records go too (first: a
  // failure here leaves the user, and a retry runs every step again).
  await voidResetLinks(deps, userId);
  await deps.store.deleteVerifications(DELETE_PREFIX, userId);
  await deps.store.deleteUserAndAccounts(userId);
}

export async function deleteUser(deps: Deps, input: DeleteUserInput): Promise<{ deleted: boolean }> {
  const { config } = deps;
  if (!config.deleteUser.enabled) throw new AuthError("NOT_FOUND");
  const user = await deps.store.findUserById(input.userId);
  if (!user) throw new AuthError("USER_NOT_FOUND");

  if (input.password !== undefined) {
    const credential = await deps.store.findAccount(user.id, CREDENTIAL_PROVIDER);
    if (!credential?.password) throw new AuthError("CREDENTIAL_ACCOUNT_NOT_FOUND");
    if (!(await deps.passwords.verify(credential.password, input.password, input.deadline))) throw new AuthError("INVALID_PASSWORD");
    // The password proves who asks; with confirmation by mail configured, the mailed link still decides.
    if (config.deleteUser.verification) return mailDeleteConfirmation(deps, user, input);
    await removeUser(deps, user.id);
    return { deleted: true };
  }
  if (input.token !== undefined) {
    await consumeDeleteToken(deps, input.token, user.id);
    await removeUser(deps, user.id);
    return { deleted: true };
  }

  requireFreshSession(input.caller, config.freshAgeSeconds, deps.now());
  if (!config.deleteUser.verification) {
    await removeUser(deps, user.id);
    return { deleted: true };
  }
  return mailDeleteConfirmation(deps, user, input);
}

/** Stores a single-use delete token and mails its link to the user. */
async function mailDeleteConfirmation(deps: Deps, user: UserRecord, { callbackUrl, language }: Pick<DeleteUserInput, "callbackUrl" | "language">): Promise<{ deleted: false }> {
  const { config } = deps;
  const now = deps.now();
  const token = randomString(DELETE_TOKEN_LENGTH, LOWER_ALPHANUMERIC);
  await deps.store.createVerification({
    id: newId(),
    identifier: identifierOf(token),
    value: user.id,
    expiresAt: new Date(now.getTime() + DELETE_TOKEN_SECONDS * 1000),
    createdAt: now,
    updatedAt: now,
  });
  const url = apiLink(config.baseUrl, "/delete-user/callback", { token, callbackURL: callbackUrl });
  await deps.mail.send(user.email, "delete-account", { url, name: user.name, email: user.email }, mailKey("delete", token), language);
  return { deleted: false };
}

/** The token must be live and issued to this user; it is used at most once. */
async function consumeDeleteToken(deps: Pick<Deps, "store" | "now">, token: string, userId: string): Promise<void> {
  if (!/^[0-9a-z]{32}$/.test(token)) throw new AuthError("INVALID_TOKEN");
  const record = await deps.store.findVerification(identifierOf(token));
  if (!record || record.expiresAt <= deps.now() || record.value !== userId) throw new AuthError("INVALID_TOKEN");
  if (!(await deps.store.consumeVerification(record.id))) throw new AuthError("INVALID_TOKEN");
}
