/**
 * Sign-in by a mailed link (magic link) or a mailed six-digit code (email OTP), and email verification and
 * password reset by code (docs/adr/0061-mail-sign-in.md). Asking only queues a mail request, the same single
 * insert for any address; the worker looks the address up afterwards. A link is used once within its
 * lifetime; a code is used once, and void after the allowed tries. Only keyed hashes are stored (the
 * two-factor code keys). A proof of the mailbox ends in completeSignIn: a banned user is told there, a
 * two-factor user gets the challenge.
 */
import { timingSafeEqual } from "node:crypto";
import { AuthError, type ErrorCode } from "@auth-platform/proto/errors";
import type { Language } from "@auth-platform/runtime/language";
import { newId, randomString } from "@auth-platform/runtime/random";
import type { EmailCodePurpose } from "../store/email-code-store.js";
import type { MailRequestDetails, UserRecord } from "../store/identity-store.js";
import { completeSignIn, type SignInOutcome } from "./complete-sign-in.js";
import { apiLink, mailKey } from "./links.js";
import { enqueueMailRequest } from "./mail-requests.js";
import { openSession } from "./open-session.js";
import { setResetPassword, type UnprovenSetupRemoved } from "./password-reset.js";
import type { ClientInfo, Registry, SignInMethod } from "./ports.js";
import { codeHash, codeHashCandidates } from "./secret-box.js";
import { newOtp } from "./two-factor-codes.js";
import { checkImage, checkName, checkPasswordLength, normaliseEmail } from "./validation.js";
import { admitUser, clearExpiredBan } from "./bans.js";
import { newUser } from "./new-user.js";

type Deps = Pick<Registry, "config" | "store" | "sessions" | "organizations" | "mail" | "now" | "log">;

const LINK_TOKEN_LENGTH = 32;
const LINK_PREFIX = "magic-link:";

/** The record names a keyed hash of the token: a dump of the verification table signs no one in. */
const linkIdentifiers = (deps: Pick<Registry, "config">, token: string) =>
  codeHashCandidates(deps.config.twoFactor.keys, `${LINK_PREFIX}${token}`).map((hash) => `${LINK_PREFIX}${hash}`);
/** The code is hashed with its purpose and address: a stored hash matches no other address's code. */
const codeInput = (purpose: EmailCodePurpose, email: string, code: string) => `email-otp:${purpose}:${email}:${code}`;

export function mailSignInOptions(deps: Pick<Registry, "config">): { magicLink: boolean; emailOtp: boolean } {
  return { magicLink: deps.config.magicLink.enabled, emailOtp: deps.config.emailOtp.enabled };
}

function requireMagicLink(deps: Pick<Registry, "config">): void {
  if (!deps.config.magicLink.enabled) throw new AuthError("MAGIC_LINK_SIGN_IN_ISNT_ENABLED");
}

function requireEmailOtp(deps: Pick<Registry, "config">, purpose: EmailCodePurpose): void {
  if (!deps.config.emailOtp.enabled) throw new AuthError("EMAIL_OTP_ISNT_ENABLED");
  if (purpose === "forget-password" && !deps.config.resetPassword.enabled) throw new AuthError("RESET_PASSWORD_ISNT_ENABLED");
  if (purpose === "email-verification" && !deps.config.emailVerification.enabled) throw new AuthError("VERIFICATION_EMAIL_ISNT_ENABLED");
}

/** Without undefined values (a request's details are stored as JSON). */
const defined = (details: Record<string, string | undefined>): MailRequestDetails =>
  Object.fromEntries(Object.entries(details).filter((entry): entry is [string, string] => entry[1] !== undefined));

export interface MagicLinkRequest {
  email: string;
  name?: string;
  callbackUrl?: string;
  newUserCallbackUrl?: string;
  errorCallbackUrl?: string;
  language?: Language;
}

/** Answers the same, in the same time, whether or not the address belongs to a user (no enumeration). */
export async function requestMagicLink(deps: Pick<Registry, "config" | "store" | "now" | "mailRequests">, input: MagicLinkRequest): Promise<void> {
  requireMagicLink(deps);
  const email = normaliseEmail(input.email);
  const name = input.name === undefined ? undefined : checkName(input.name);
  await enqueueMailRequest(deps, {
    kind: "magic-link",
    email,
    callbackUrl: input.callbackUrl,
    language: input.language,
    details: defined({ name, newUserCallbackUrl: input.newUserCallbackUrl, errorCallbackUrl: input.errorCallbackUrl }),
  });
}

/** The worker's half: a link for a user's address, or for a new one while sign-up by link is on. */
export async function mailMagicLink(
  deps: Pick<Registry, "config" | "store" | "mail" | "now">,
  input: { email: string; callbackUrl?: string; details: MailRequestDetails; language?: Language },
): Promise<void> {
  const { config } = deps;
  const user = await deps.store.findUserByEmail(input.email);
  if (!user && !config.magicLink.signUp) return;
  const now = deps.now();
  const token = randomString(LINK_TOKEN_LENGTH);
  await deps.store.createVerification({
    id: newId(),
    identifier: `${LINK_PREFIX}${codeHash(config.twoFactor.keys, `${LINK_PREFIX}${token}`)}`,
    value: JSON.stringify({ email: input.email, name: input.details.name }),
    expiresAt: new Date(now.getTime() + config.magicLink.expiresInSeconds * 1000),
    createdAt: now,
    updatedAt: now,
  });
  const url = apiLink(config.baseUrl, "/magic-link/verify", {
    token,
    callbackURL: input.callbackUrl,
    newUserCallbackURL: input.details.newUserCallbackUrl,
    errorCallbackURL: input.details.errorCallbackUrl,
  });
  await deps.mail.send(input.email, "magic-link", { url, ...(user ? { name: user.name } : {}) }, mailKey("magic-link", token), input.language);
}

export type MailSignInOutcome = SignInOutcome & { isNewUser: boolean };

interface ProofOptions {
  client: ClientInfo;
  trustedDevice?: string;
}

/** Uses a link once: the sign-in of its address's user, or of a new one. */
export async function verifyMagicLink(deps: Deps, input: ProofOptions & { token: string }): Promise<MailSignInOutcome> {
  requireMagicLink(deps);
  if (!/^[A-Za-z0-9]{1,64}$/.test(input.token)) throw new AuthError("INVALID_TOKEN");
  let record = null;
  for (const identifier of linkIdentifiers(deps, input.token)) {
    record = await deps.store.findVerification(identifier);
    if (record) break;
  }
  if (!record || record.expiresAt <= deps.now()) throw new AuthError("INVALID_TOKEN");
  // Of two uses at once (a mail scanner and the person), one deletes the record: the other is refused.
  if (!(await deps.store.consumeVerification(record.id))) throw new AuthError("INVALID_TOKEN");
  const { email, name } = JSON.parse(record.value) as { email: string; name?: string };
  return signInByMail(
    deps,
    email,
    { name },
    { ...input, method: "magic-link", signUp: deps.config.magicLink.signUp, noSignUp: "NEW_USER_SIGNUP_DISABLED", refusal: "INVALID_TOKEN" },
  );
}

/**
 * The user the mailbox's owner signs in as: the address's user, or a new one (verified: the mailbox is
 * proven). An unverified user found is taken over by the owner as a reset of an unverified user is
 * (docs/adr/0014-reset-of-an-unverified-account.md): whatever was set up before the proof, by whoever
 * registered the address first, goes (accounts with their password, two-factor, sessions).
 */
async function signInByMail(
  deps: Deps,
  email: string,
  profile: { name?: string; image?: string },
  options: ProofOptions & { method: SignInMethod; signUp: boolean; noSignUp: ErrorCode; refusal: ErrorCode },
): Promise<MailSignInOutcome> {
  let user = await deps.store.findUserByEmail(email);
  let isNewUser = false;
  if (!user) {
    if (!options.signUp) throw new AuthError(options.noSignUp);
    ({ user, isNewUser } = await createMailUser(deps, email, profile));
  } else {
    // A banned user is told now, before anything of theirs is taken over.
    user = await admitUser(deps, user, options.refusal);
    if (!user.emailVerified) user = await claimUnprovenUser(deps, user, options.refusal);
  }
  const outcome = await completeSignIn(deps, user, {
    rememberMe: true,
    client: options.client,
    trustedDevice: options.trustedDevice,
    refusal: options.refusal,
    method: options.method,
  });
  return { ...outcome, isNewUser };
}

async function createMailUser(deps: Deps, email: string, profile: { name?: string; image?: string }): Promise<{ user: UserRecord; isNewUser: boolean }> {
  const user = newUser(deps.now(), { name: profile.name ?? "", email, emailVerified: true, image: profile.image ?? null, role: deps.config.defaultRole });
  try {
    // No account: the user signs in by mail until they set a password or link a provider.
    return { user: await deps.store.createUserWithAccount(user, null), isNewUser: true };
  } catch (error) {
    // Two first uses for one new address raced: the loser signs in as the user the winner created.
    const winner = error instanceof AuthError && error.code === "USER_ALREADY_EXISTS" ? await deps.store.findUserByEmail(email) : null;
    if (!winner) throw error;
    return { user: winner, isNewUser: false };
  }
}

async function claimUnprovenUser(deps: Deps, user: UserRecord, refusal: ErrorCode): Promise<UserRecord> {
  for (const account of await deps.store.listAccounts(user.id)) await deps.store.deleteAccount(account.id);
  if (user.twoFactorEnabled || (await deps.store.findTwoFactor(user.id))) await deps.store.deleteTwoFactor(user.id);
  await deps.store.deleteTrustedDevices(user.id);
  await deps.store.deleteUserChallenges(user.id);
  // The sessions end with the write (the session outbox), before the owner's new session opens.
  const claimed = await deps.store.updateUser(user.id, { emailVerified: true }, { revokeSessions: true });
  if (!claimed) throw new AuthError(refusal);
  return claimed;
}

/** Answers the same, in the same time, whether or not the address belongs to a user (no enumeration). */
export async function sendEmailOtp(
  deps: Pick<Registry, "config" | "store" | "now" | "mailRequests">,
  input: { email: string; purpose: EmailCodePurpose; language?: Language },
): Promise<void> {
  requireEmailOtp(deps, input.purpose);
  const email = normaliseEmail(input.email);
  await enqueueMailRequest(deps, { kind: "email-otp", email, language: input.language, details: { purpose: input.purpose } });
}

/**
 * The worker's half. A code is stored for every address, a user's or not, and mailed only where it has a
 * use (a user's address; for sign-in, any address while sign-up by code is on; for verification, an
 * unverified user's): so tries at an unknown address are answered, and counted, as at a known one.
 */
export async function mailEmailOtp(
  deps: Pick<Registry, "config" | "store" | "mail" | "now">,
  input: { email: string; purpose: EmailCodePurpose; language?: Language },
): Promise<void> {
  const { config } = deps;
  const user = await deps.store.findUserByEmail(input.email);
  const now = deps.now();
  const code = newOtp();
  const id = newId();
  await deps.store.putEmailCode({
    id,
    purpose: input.purpose,
    email: input.email,
    codeHash: codeHash(config.twoFactor.keys, codeInput(input.purpose, input.email, code)),
    attempts: 0,
    expiresAt: new Date(now.getTime() + config.emailOtp.expiresInSeconds * 1000),
    createdAt: now,
  });
  const useful = input.purpose === "sign-in" ? user !== null || config.emailOtp.signUp : input.purpose === "email-verification" ? user?.emailVerified === false : user !== null;
  if (!useful) return;
  await deps.mail.send(input.email, "email-otp", { code, purpose: input.purpose, ...(user ? { name: user.name } : {}) }, `email-otp:${id}`, input.language);
}

/**
 * Tries a code: counts the try (refused once the allowed ones are counted), then compares in constant time.
 * Used, the code is deleted (`keep`: left for the call that uses it, the try given back).
 */
async function useCode(
  deps: Pick<Registry, "config" | "store" | "now">,
  purpose: EmailCodePurpose,
  rawEmail: string,
  otp: string,
  keep = false,
): Promise<{ email: string; id: string }> {
  requireEmailOtp(deps, purpose);
  const email = normaliseEmail(rawEmail);
  const record = await deps.store.findEmailCode(purpose, email);
  if (!record) throw new AuthError("INVALID_OTP");
  if (record.expiresAt <= deps.now()) {
    await deps.store.deleteEmailCode(record.id);
    throw new AuthError("OTP_EXPIRED");
  }
  const allowed = deps.config.emailOtp.allowedAttempts;
  if (!(await deps.store.countEmailCodeAttempt(record.id, allowed))) {
    // Replaced or used meanwhile: that code is no longer the one to try.
    const current = await deps.store.findEmailCode(purpose, email);
    throw new AuthError(current?.id === record.id ? "TOO_MANY_ATTEMPTS" : "INVALID_OTP");
  }
  const expected = Buffer.from(record.codeHash);
  const matches = codeHashCandidates(deps.config.twoFactor.keys, codeInput(purpose, email, otp.trim())).some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new AuthError("INVALID_OTP");
  if (keep) await deps.store.uncountEmailCodeAttempt(record.id);
  else if (!(await deps.store.deleteEmailCode(record.id))) throw new AuthError("INVALID_OTP");
  return { email, id: record.id };
}

/** Whether a code is right, leaving it for the call that uses it. */
export async function checkEmailOtp(deps: Pick<Registry, "config" | "store" | "now">, input: { email: string; purpose: EmailCodePurpose; otp: string }): Promise<void> {
  const { email } = await useCode(deps, input.purpose, input.email, input.otp, true);
  // Said only to the holder of a right code, who reads the mailbox anyway.
  if (!(await deps.store.findUserByEmail(email))) throw new AuthError("USER_NOT_FOUND");
}

/** Signs in with a sign-in code: the address's user, or a new one while sign-up by code is on. */
export async function signInEmailOtp(deps: Deps, input: ProofOptions & { email: string; otp: string; name?: string; image?: string }): Promise<MailSignInOutcome> {
  const name = input.name === undefined ? undefined : checkName(input.name);
  const image = input.image === undefined ? undefined : (checkImage(input.image) ?? undefined);
  const { email } = await useCode(deps, "sign-in", input.email, input.otp);
  // No code is mailed to an unknown address while sign-up is off: a right code here means the user went since.
  return signInByMail(deps, email, { name, image }, { ...input, method: "email-otp", signUp: deps.config.emailOtp.signUp, noSignUp: "INVALID_OTP", refusal: "INVALID_OTP" });
}

/** Verifies the address with an email-verification code; with auto sign-in after verification, a session too. */
export async function verifyEmailOtp(deps: Deps, input: { email: string; otp: string; client: ClientInfo }) {
  const { email } = await useCode(deps, "email-verification", input.email, input.otp);
  const user = await deps.store.findUserByEmail(email);
  if (!user) throw new AuthError("USER_NOT_FOUND");
  const verified = (await deps.store.markEmailVerified(user.id, email)) ?? user;
  // As the verification link: no way round the second factor or a ban (domain/verification.ts).
  if (!deps.config.emailVerification.autoSignIn || verified.twoFactorEnabled) return { user: verified };
  const current = await clearExpiredBan(deps, verified);
  if (current.banned) return { user: current };
  // Recorded as the verification link's session is: the code proved the mailbox, as the link does.
  return { user: current, session: await openSession(deps, current, { rememberMe: true, client: input.client, authentication: { method: "email-verification" } }) };
}

/** Sets a new password with a forget-password code, as the reset link does (password-reset.ts). */
export async function resetPasswordEmailOtp(
  deps: Deps & Pick<Registry, "passwords">,
  input: { email: string; otp: string; password: string; deadline?: number },
): Promise<{ userId: string; removed: UnprovenSetupRemoved }> {
  requireEmailOtp(deps, "forget-password");
  checkPasswordLength(input.password, deps.config);
  const { email, id } = await useCode(deps, "forget-password", input.email, input.otp, true);
  const user = await deps.store.findUserByEmail(email);
  if (!user) throw new AuthError("USER_NOT_FOUND");
  const hash = await deps.passwords.hash(input.password, input.deadline);
  // Used only now that the password is ready: a refusal at capacity leaves the code for another try.
  if (!(await deps.store.deleteEmailCode(id))) throw new AuthError("INVALID_OTP");
  const result = await setResetPassword(deps, user, hash);
  // The code proved the mailbox, as a verification would.
  await deps.store.markEmailVerified(user.id, email);
  return result;
}
