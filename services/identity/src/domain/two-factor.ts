/**
 * Two-factor enrolment, as the signed-in user manages it: enable (a TOTP secret and backup codes; active
 * once a first code is verified), disable, the otpauth URI again, new backup codes, and checking a code
 * without a sign-in challenge (which is how the first code activates two-factor). Every change that weakens
 * or replaces a factor asks for the password.
 */
import { randomBytes } from "node:crypto";
import { AuthError } from "@auth-platform/proto/errors";
import { CREDENTIAL_PROVIDER, type UserRecord } from "../store/identity-store.js";
import type { Session } from "@auth-platform/proto/gen/auth/session/v1/session";
import { type Rotation, refuseRotationWhileImpersonating, rotateSession } from "./open-session.js";
import type { Registry } from "./ports.js";
import { open, seal } from "./secret-box.js";
import { matchTotp, otpauthUri } from "./totp.js";
import { backupCodeCandidates, newBackupCodes } from "./two-factor-codes.js";

type Deps = Pick<Registry, "config" | "store" | "sessions" | "organizations" | "now" | "passwords" | "log">;

/** The factors a code can be checked against outside a challenge. */
export type SecondFactor = "totp" | "backup-code";

/** RFC 4226 §4: a shared secret of at least 128 bits; 160 is the recommended length. */
const SECRET_BYTES = 20;

export interface PasswordInput {
  userId: string;
  password: string;
  deadline?: number;
}

async function requirePassword(deps: Deps, input: PasswordInput): Promise<UserRecord> {
  const user = await deps.store.findUserById(input.userId);
  if (!user) throw new AuthError("USER_NOT_FOUND");
  const credential = await deps.store.findAccount(user.id, CREDENTIAL_PROVIDER);
  if (!credential?.password) throw new AuthError("CREDENTIAL_ACCOUNT_NOT_FOUND");
  if (!(await deps.passwords.verify(credential.password, input.password, input.deadline))) throw new AuthError("INVALID_PASSWORD");
  return user;
}

const uriFor = (deps: Deps, secret: Buffer, user: UserRecord, issuer?: string) => otpauthUri(secret, issuer?.trim() || deps.config.twoFactor.appName, user.email);

/** Starts (or restarts, while not yet active) a TOTP enrolment: the URI to scan and fresh backup codes. */
export async function enableTwoFactor(deps: Deps, input: PasswordInput & { issuer?: string }): Promise<{ totpUri: string; backupCodes: string[] }> {
  const user = await requirePassword(deps, input);
  const existing = await deps.store.findTwoFactor(user.id);
  // Replacing an active authenticator goes through disable (which also revokes trusted devices).
  if (existing?.verified && user.twoFactorEnabled) throw new AuthError("TOTP_IS_ALREADY_ENABLED");
  const { keys } = deps.config.twoFactor;
  const secret = randomBytes(SECRET_BYTES);
  const { codes, hashes } = newBackupCodes(keys);
  const now = deps.now();
  await deps.store.saveTwoFactor({ userId: user.id, secret: seal(keys, secret), verified: false, lastTotpStep: null, createdAt: now, updatedAt: now }, hashes);
  return { totpUri: uriFor(deps, secret, user, input.issuer), backupCodes: codes };
}

/**
 * Turns two-factor off: the secret, backup codes, pending challenges and trusted devices go with it. With
 * `rotation` (the gateway asks for it), the caller continues on a new session and the old one ends.
 */
export async function disableTwoFactor(deps: Deps, input: PasswordInput & { rotation?: Rotation }): Promise<{ user: UserRecord; session?: Session }> {
  refuseRotationWhileImpersonating(input.rotation);
  const user = await requirePassword(deps, input);
  await deps.store.deleteTwoFactor(user.id);
  const current = (await deps.store.findUserById(user.id)) ?? user;
  if (!input.rotation) return { user: current };
  return { user: current, session: await rotateSession(deps, current, input.rotation) };
}

export async function getTotpUri(deps: Deps, input: PasswordInput): Promise<string> {
  const user = await requirePassword(deps, input);
  const enrolment = await deps.store.findTwoFactor(user.id);
  if (!enrolment) throw new AuthError("TOTP_NOT_ENABLED");
  return uriFor(deps, open(deps.config.twoFactor.keys, enrolment.secret).plaintext, user);
}

/** Replaces the backup codes (the old ones stop working). */
export async function generateBackupCodes(deps: Deps, input: PasswordInput): Promise<string[]> {
  const user = await requirePassword(deps, input);
  if (!user.twoFactorEnabled || !(await deps.store.findTwoFactor(user.id))) throw new AuthError("TWO_FACTOR_ISNT_ENABLED");
  const { codes, hashes } = newBackupCodes(deps.config.twoFactor.keys);
  await deps.store.replaceBackupCodes(user.id, hashes);
  return codes;
}

/**
 * Whether `code` is the user's current TOTP code (one step of skew either side), used for the first time:
 * the step is recorded, so the same code, or an older one, is refused afterwards.
 */
export async function checkTotp(deps: Pick<Deps, "config" | "store" | "now">, userId: string, code: string, options: { requireVerified: boolean }): Promise<boolean> {
  const enrolment = await deps.store.findTwoFactor(userId);
  if (!enrolment || (options.requireVerified && !enrolment.verified)) return false;
  const { keys } = deps.config.twoFactor;
  const { plaintext, stale } = open(keys, enrolment.secret);
  const step = matchTotp(plaintext, code.trim(), deps.now());
  if (step === null || !(await deps.store.useTotpStep(userId, step))) return false;
  // Key rotation completes as users sign in: a secret sealed under an older key moves to the current one.
  if (stale) await deps.store.resealTwoFactor(userId, seal(keys, plaintext), deps.now());
  return true;
}

/** Whether `code` is one of the user's unused backup codes; if so it is used up. */
export async function checkBackupCode(deps: Pick<Deps, "config" | "store">, userId: string, code: string): Promise<boolean> {
  const candidates = backupCodeCandidates(deps.config.twoFactor.keys, code);
  return candidates.length > 0 && (await deps.store.useBackupCode(userId, candidates));
}

/**
 * A code checked by the signed-in user (no challenge). The first valid TOTP code activates two-factor; with
 * `rotation`, that activation moves the caller to a new session (the old one ends). Any other code checked
 * leaves the session as it is. Wrong code: INVALID_TWO_FACTOR_AUTHENTICATION.
 */
export async function verifySignedInUser(
  deps: Deps,
  input: { userId: string; method: SecondFactor; code: string; rotation?: Rotation },
): Promise<{ user: UserRecord; session?: Session }> {
  const enrolment = await deps.store.findTwoFactor(input.userId);
  if (!enrolment) throw new AuthError(input.method === "totp" ? "TOTP_NOT_ENABLED" : "BACKUP_CODES_ARENT_ENABLED");
  const activates = input.method === "totp" && !enrolment.verified;
  // Refused before the code is checked (and its step used up).
  if (activates) refuseRotationWhileImpersonating(input.rotation);
  const valid = input.method === "totp" ? await checkTotp(deps, input.userId, input.code, { requireVerified: false }) : await checkBackupCode(deps, input.userId, input.code);
  if (!valid) throw new AuthError("INVALID_TWO_FACTOR_AUTHENTICATION");
  if (activates) await deps.store.activateTwoFactor(input.userId, deps.now());
  const user = await deps.store.findUserById(input.userId);
  if (!user) throw new AuthError("USER_NOT_FOUND");
  if (!activates || !input.rotation) return { user };
  return { user, session: await rotateSession(deps, user, input.rotation) };
}
