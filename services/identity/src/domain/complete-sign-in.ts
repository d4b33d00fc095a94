/**
 * The end of every sign-in that proved who the user is (password today; social sign-in routes here too):
 * the ban check (BANNED_USER, told only now that the user proved who they are), then either a two-factor challenge (two-factor on, and no live trusted device) or the session.
 * Nothing here depends on how the user proved themselves; the session (or the challenge) records it.
 */
import type { Session } from "@auth-platform/proto/gen/auth/session/v1/session";
import { AuthError, type ErrorCode } from "@auth-platform/proto/errors";
import type { Language } from "@auth-platform/runtime/language";
import type { UserRecord } from "../store/identity-store.js";
import type { ClientInfo, Registry, SignInMethod } from "./ports.js";
import { openSession } from "./open-session.js";
import { type ChallengeToken, createChallenge } from "./two-factor-challenge.js";
import { type DeviceToken, useTrustedDevice } from "./trusted-devices.js";
import { mailVerificationLink } from "./verification.js";
import { admitUser } from "./bans.js";

type Deps = Pick<Registry, "config" | "store" | "sessions" | "organizations" | "mail" | "now" | "log">;

export interface CompleteSignInOptions {
  /** How the user proved who they are: recorded on the session, or on the challenge until its second factor. */
  method: SignInMethod;
  rememberMe: boolean;
  client: ClientInfo;
  /** The token of the browser's trusted-device cookie, if it has one. */
  trustedDevice?: string;
  /** The error for a user gone since the proof (each sign-in method answers its own); a banned user gets BANNED_USER. */
  refusal: ErrorCode;
  /** When email verification is required and the user is unverified: mail a new link, then fail with this. */
  unverified?: ErrorCode;
  /** The language of that mail (the request's). */
  language?: Language;
}

export type SignInOutcome =
  | { user: UserRecord; session: Session; challenge?: undefined; trustedDevice?: DeviceToken }
  | { user: UserRecord; session?: undefined; challenge: ChallengeToken; trustedDevice?: undefined };

export async function completeSignIn(deps: Deps, user: UserRecord, options: CompleteSignInOptions): Promise<SignInOutcome> {
  const current = await admitUser(deps, user, options.refusal);
  if (options.unverified && deps.config.emailVerification.required && !current.emailVerified) {
    // Only a caller who proved who they are learns the address is unverified; a new link is mailed.
    await mailVerificationLink(deps, current, { language: options.language });
    throw new AuthError(options.unverified);
  }
  let trustedDevice: DeviceToken | undefined;
  if (current.twoFactorEnabled) {
    const device = await useTrustedDevice(deps, current.id, options.trustedDevice);
    if (!device) return { user: current, challenge: await createChallenge(deps, current, { rememberMe: options.rememberMe, client: options.client, method: options.method }) };
    trustedDevice = device;
  }
  const authentication = { method: options.method, secondFactor: trustedDevice ? ("trusted-device" as const) : undefined };
  const session = await openSession(deps, current, { rememberMe: options.rememberMe, client: options.client, refusal: options.refusal, authentication });
  return { user: current, session, trustedDevice };
}
