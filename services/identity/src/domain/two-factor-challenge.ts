/**
 * The two-factor sign-in challenge: a sign-in that proved the first factor waits here, server-side, for a
 * second one. The browser holds only the challenge token (in a signed, 10-minute cookie); the record is
 * single use and counts every code tried (all methods together), so neither a stolen cookie nor guessing
 * goes far.
 */
import { AuthError } from "@auth-platform/proto/errors";
import type { Language } from "@auth-platform/runtime/language";
import { newId, randomString } from "@auth-platform/runtime/random";
import type { Session } from "@auth-platform/proto/gen/auth/session/v1/session";
import type { UserRecord } from "../store/identity-store.js";
import type { TwoFactorChallengeRecord } from "../store/two-factor-store.js";
import { admitUser } from "./bans.js";
import type { ClientInfo, Registry, SignInMethod } from "./ports.js";
import { openSession } from "./open-session.js";
import { verifyPasskeyAssertion } from "./passkeys.js";
import { codeHash } from "./secret-box.js";
import { type DeviceToken, tokenHash, trustDevice } from "./trusted-devices.js";
import { newOtp, otpMatches } from "./two-factor-codes.js";
import { checkBackupCode, checkTotp, type SecondFactor } from "./two-factor.js";

/** The two-factor cookie lives 10 minutes (docs/http-api/two-factor.md). */
export const CHALLENGE_SECONDS = 600;
/** A mailed code is good for 5 minutes. */
export const OTP_SECONDS = 300;
/**
 * A user's challenges of the last CHALLENGE_SECONDS take this many challenges' worth of codes together. Each
 * sign-in with the password opens a new challenge with attempts of its own, so without it a password holder
 * signing in again and again (from many addresses, past the rate limit) could guess on and on.
 */
export const USER_CHALLENGES_WORTH = 2;

type Deps = Pick<Registry, "config" | "store" | "sessions" | "organizations" | "mail" | "now" | "log">;

export interface ChallengeToken {
  token: string;
  expiresAt: Date;
  /** What the user can answer with ("totp" needs a verified authenticator). */
  methods: string[];
  /** The user it signs in. */
  userId: string;
  /** When it was opened (the cookie lives expiresAt - issuedAt). */
  issuedAt: Date;
}

export async function createChallenge(
  deps: Pick<Deps, "store" | "now">,
  user: UserRecord,
  options: { rememberMe: boolean; client: ClientInfo; method: SignInMethod },
): Promise<ChallengeToken> {
  const now = deps.now();
  const token = randomString(32);
  const expiresAt = new Date(now.getTime() + CHALLENGE_SECONDS * 1000);
  await deps.store.createChallenge({
    id: tokenHash(token),
    userId: user.id,
    rememberMe: options.rememberMe,
    ipAddress: options.client.ipAddress ?? null,
    userAgent: options.client.userAgent ?? null,
    attempts: 0,
    otpHash: null,
    otpExpiresAt: null,
    expiresAt,
    createdAt: now,
    method: options.method,
  });
  const enrolment = await deps.store.findTwoFactor(user.id);
  const hasPasskey = (await deps.store.listPasskeys(user.id)).length > 0;
  const methods = [...(enrolment?.verified ? ["totp"] : []), "otp", ...(hasPasskey ? ["passkey"] : [])];
  return { token, expiresAt, methods, userId: user.id, issuedAt: now };
}

/** The live challenge a token names, or INVALID_TWO_FACTOR_COOKIE. */
async function liveChallenge(deps: Pick<Deps, "store" | "now">, token: string): Promise<TwoFactorChallengeRecord> {
  const challenge = token ? await deps.store.findChallenge(tokenHash(token)) : null;
  if (!challenge || challenge.expiresAt <= deps.now()) throw new AuthError("INVALID_TWO_FACTOR_COOKIE");
  return challenge;
}

/** Mails a one-time code for the challenge (a new code replaces the previous one), in the request's language. */
export async function sendChallengeOtp(deps: Deps, token: string, language?: Language): Promise<void> {
  const challenge = await liveChallenge(deps, token);
  const user = await deps.store.findUserById(challenge.userId);
  if (!user) throw new AuthError("INVALID_TWO_FACTOR_COOKIE");
  const code = newOtp();
  const expiresAt = new Date(Math.min(deps.now().getTime() + OTP_SECONDS * 1000, challenge.expiresAt.getTime()));
  await deps.store.setChallengeOtp(challenge.id, codeHash(deps.config.twoFactor.keys, code), expiresAt);
  await deps.mail.send(user.email, "sign-in-code", { code, name: user.name }, `two-factor-otp:${newId()}`, language);
}

export interface AnswerChallengeInput {
  token: string;
  method: SecondFactor | "otp" | "passkey";
  /** The code; for "passkey", the authenticator's answer (AuthenticationResponseJSON). */
  code: string;
  /** "passkey": the attempt token of the passkey ceremony's cookie. */
  passkeyCeremony?: string;
  trustDevice: boolean;
  client: ClientInfo;
}

/** Whether the passkey assertion holds and the passkey is the challenged user's (any failure is a wrong answer). */
async function passkeyAnswers(deps: Deps, userId: string, input: AnswerChallengeInput): Promise<boolean> {
  try {
    // Possession is the second factor here: the password was the first, so no PIN or biometric is required.
    const passkey = await verifyPasskeyAssertion(deps, input.passkeyCeremony ?? "", input.code, false);
    return passkey.userId === userId;
  } catch (error) {
    if (error instanceof AuthError) return false;
    throw error;
  }
}

/**
 * Checks a code against the challenge. Valid: the challenge is used up and the session created (with a
 * trusted device if asked). Invalid: INVALID_TWO_FACTOR_AUTHENTICATION and nothing created; the attempt
 * counts, and the challenge is void once the attempts are spent. Once the user's challenges have taken
 * USER_CHALLENGES_WORTH challenges' worth of codes, no code is checked until some of them expire (429).
 */
export async function answerChallenge(deps: Deps, input: AnswerChallengeInput): Promise<{ user: UserRecord; session: Session; rememberMe: boolean; trustedDevice?: DeviceToken }> {
  const challenge = await liveChallenge(deps, input.token);
  const { maxAttempts, keys } = deps.config.twoFactor;
  // A spent challenge stays until it expires (refusing every code), so its attempts count for the user.
  if (!(await deps.store.countChallengeAttempt(challenge.id, maxAttempts))) throw new AuthError("INVALID_TWO_FACTOR_COOKIE");
  // Counted first, then compared: of guesses racing on many challenges, each sees at least the ones counted
  // before it, so no more than the limit get through.
  const userLimit = USER_CHALLENGES_WORTH * maxAttempts;
  // No retry hint: callers take one for a service at capacity (rpc-client.ts), and would refuse everyone's codes.
  if ((await deps.store.countUserChallengeAttempts(challenge.userId, deps.now(), userLimit + 1)) > userLimit) throw new AuthError("TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER");
  const user = await deps.store.findUserById(challenge.userId);
  if (!user) throw new AuthError("INVALID_TWO_FACTOR_COOKIE");
  const valid =
    input.method === "passkey"
      ? await passkeyAnswers(deps, challenge.userId, input)
      : input.method === "otp"
        ? challenge.otpHash !== null && challenge.otpExpiresAt !== null && challenge.otpExpiresAt > deps.now() && otpMatches(keys, input.code, challenge.otpHash)
        : input.method === "totp"
          ? await checkTotp(deps, user.id, input.code, { requireVerified: true })
          : await checkBackupCode(deps, user.id, input.code);
  if (!valid) throw new AuthError("INVALID_TWO_FACTOR_AUTHENTICATION");
  // Single use: of two requests racing with valid codes, only the one that deletes the challenge signs in.
  if (!(await deps.store.consumeChallenge(challenge.id))) throw new AuthError("INVALID_TWO_FACTOR_COOKIE");
  const current = await admitUser(deps, user, "INVALID_TWO_FACTOR_COOKIE");
  // The store keeps what createChallenge wrote; a challenge from before it was kept has none (recorded as unknown).
  const authentication = { method: challenge.method as SignInMethod | null, secondFactor: input.method };
  const session = await openSession(deps, current, { rememberMe: challenge.rememberMe, client: input.client, refusal: "INVALID_TWO_FACTOR_COOKIE", authentication });
  const trustedDevice = input.trustDevice ? await trustDevice(deps, current.id, input.client) : undefined;
  return { user: current, session, rememberMe: challenge.rememberMe, trustedDevice };
}
