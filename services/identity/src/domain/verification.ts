/** Email verification: sending the link, and following it (verify, or move to the updateTo address). */
import { AuthError } from "@auth-platform/proto/errors";
import type { Session } from "@auth-platform/proto/gen/auth/session/v1/session";
import type { Language } from "@auth-platform/runtime/language";
import type { UserRecord } from "../store/identity-store.js";
import { clearExpiredBan } from "./bans.js";
import { apiLink, mailKey } from "./links.js";
import { enqueueMailRequest } from "./mail-requests.js";
import { voidResetLinks } from "./password-reset.js";
import type { ClientInfo, Registry } from "./ports.js";
import { openSession } from "./open-session.js";
import { signVerificationToken, verifyVerificationToken } from "./tokens.js";
import { normaliseEmail } from "./validation.js";

type Deps = Pick<Registry, "config" | "store" | "mail" | "sessions" | "organizations" | "now" | "log">;

/**
 * Mails a link that verifies the user's address: the email-verification mail, or step 2 of an approved email
 * change (change-email-new-address), which verifies the new address the same way.
 */
export async function mailVerificationLink(
  deps: Pick<Registry, "config" | "mail" | "now">,
  user: UserRecord,
  options: { callbackUrl?: string; language?: Language; template?: "email-verification" | "change-email-new-address" } = {},
): Promise<void> {
  const { config } = deps;
  const token = await signVerificationToken({ userId: user.id, email: user.email }, config.secret, config.emailVerification.expiresInSeconds, deps.now());
  const url = apiLink(config.baseUrl, "/verify-email", { token, callbackURL: options.callbackUrl });
  await deps.mail.send(user.email, options.template ?? "email-verification", { url, name: user.name, email: user.email }, mailKey("verify", token), options.language);
}

/**
 * Moves a user to a new address. The early lookup of the callers is no lock: an address taken meanwhile (by
 * another change or a sign-up) fails on the unique index, and that loser gets change-email's answer too.
 */
export async function moveToEmail(deps: Pick<Registry, "store">, userId: string, email: string, emailVerified?: boolean): Promise<UserRecord | null> {
  try {
    return await deps.store.updateUser(userId, emailVerified === undefined ? { email } : { email, emailVerified });
  } catch (error) {
    if (error instanceof AuthError && error.code === "USER_ALREADY_EXISTS") throw new AuthError("COULDNT_UPDATE_YOUR_EMAIL");
    throw error;
  }
}

/**
 * Answers the same, in the same time, whether the address is unknown, unverified or verified (no
 * enumeration): it only queues a mail request; the worker looks the address up afterwards.
 */
export async function sendVerificationEmail(
  deps: Pick<Registry, "config" | "store" | "now" | "mailRequests">,
  input: { email: string; callbackUrl?: string; language?: Language },
): Promise<void> {
  if (!deps.config.emailVerification.enabled) throw new AuthError("VERIFICATION_EMAIL_ISNT_ENABLED");
  await enqueueMailRequest(deps, { kind: "email-verification", email: normaliseEmail(input.email), callbackUrl: input.callbackUrl, language: input.language });
}

/** The worker's half: mails a link if the address is a user's and not verified yet. */
export async function mailVerificationIfUnverified(
  deps: Pick<Registry, "config" | "store" | "mail" | "now">,
  input: { email: string; callbackUrl?: string; language?: Language },
): Promise<void> {
  const user = await deps.store.findUserByEmail(input.email);
  if (user && !user.emailVerified) await mailVerificationLink(deps, user, input);
}

/** `callbackUrl`: the link's own, where the new address's verification link lands after an approved change. */
export async function verifyEmail(
  deps: Deps,
  input: { token: string; client: ClientInfo; sessionUserId?: string; callbackUrl?: string; language?: Language },
): Promise<{ user: UserRecord; session?: Session }> {
  const payload = await verifyVerificationToken(input.token, deps.config.secret, deps.now());
  const user = await deps.store.findUserByEmail(payload.email.toLowerCase());
  // The link is for the user it was mailed to, at the address it was mailed to. Within its hour the address
  // may have passed to another account (the first deleted, or moved away): that account was never proven to
  // own the mailbox, so the link neither verifies it nor signs into it. Answered as a bad link, whether the
  // address is someone else's now or no one's, so the link tells its holder nothing about who has it.
  if (!user || user.id !== payload.userId) throw new AuthError("INVALID_TOKEN");

  if (payload.updateTo) {
    // An approval counts only in a session of the user it was issued to: a leaked link alone moves nothing.
    if (input.sessionUserId !== user.id) throw new AuthError("UNAUTHORIZED");
    // Confirmed from the current address: move to the new one, which must now be verified in turn.
    const newEmail = normaliseEmail(payload.updateTo);
    if (await deps.store.findUserByEmail(newEmail)) throw new AuthError("COULDNT_UPDATE_YOUR_EMAIL");
    const updated = (await moveToEmail(deps, user.id, newEmail, false))!;
    // Reset links went to the old address, whose mailbox is not the user's any more.
    await voidResetLinks(deps, user.id);
    // Step 2 of 2, in the language of the browser that approved the change; where the approval landed, the
    // verification lands too (the app's "your address is changed" screen).
    await mailVerificationLink(deps, updated, { callbackUrl: input.callbackUrl, language: input.language, template: "change-email-new-address" });
    return { user: updated };
  }

  // Only the use that verifies the address signs in: a link followed again (later, or at the same time)
  // verifies nothing more and is no standing sign-in link for whoever else holds the mail.
  if (user.emailVerified) return { user };
  const verified = await deps.store.markEmailVerified(user.id, user.email);
  // Another use of the link won the race (or the address moved meanwhile): this one changes nothing.
  if (!verified) return { user: (await deps.store.findUserById(user.id)) ?? user };
  // A verification link is not a second factor: with two-factor on, the user signs in the usual way.
  if (!deps.config.emailVerification.autoSignIn || verified.twoFactorEnabled) return { user: verified };
  // Nor a way round a ban: the address is verified, but a banned user gets no session here either.
  const current = await clearExpiredBan(deps, verified);
  if (current.banned) return { user: current };
  const session = await openSession(deps, current, { rememberMe: true, client: input.client, authentication: { method: "email-verification" } });
  return { user: current, session };
}
