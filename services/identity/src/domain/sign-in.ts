/**
 * Sign-in with email or username and password. Every failure (unknown user, no password, wrong password,
 * a banned user's wrong password) answers the one generic error and costs one scrypt verification, so neither
 * the message nor the timing tells whether an account exists. A proven password ends in completeSignIn
 * (session or challenge; a banned user is told the ban there, docs/adr/0052-a-banned-user-is-told-after-the-proof.md).
 */
import { AuthError, type ErrorCode } from "@auth-platform/proto/errors";
import type { Language } from "@auth-platform/runtime/language";
import { CREDENTIAL_PROVIDER, type UserRecord } from "../store/identity-store.js";
import { completeSignIn, type SignInOutcome } from "./complete-sign-in.js";
import type { ClientInfo, Registry } from "./ports.js";
import { normaliseEmail } from "./validation.js";

type Deps = Pick<Registry, "config" | "store" | "sessions" | "organizations" | "mail" | "now" | "passwords" | "log">;

export interface SignInInput {
  password: string;
  rememberMe: boolean;
  client: ClientInfo;
  /** The token of the browser's trusted-device cookie, if any (skips the second factor while it is live). */
  trustedDevice?: string;
  /** When the caller stops waiting (epoch ms): hashing that would end later is refused (SERVICE_UNAVAILABLE). */
  deadline?: number;
  /** The language of the verification mail an unverified user's sign-in sends (the request's). */
  language?: Language;
}

/** Never a user's id (ids are newId()s: no hyphen-free "-" sequence like this one). */
const NO_USER_ID = "-no-user-";

export async function signInEmail(deps: Deps, input: SignInInput & { email: string }) {
  if (!deps.config.emailPasswordEnabled) throw new AuthError("EMAIL_AND_PASSWORD_IS_NOT_ENABLED");
  // Refused at capacity before the lookups, known and unknown users alike (hashing-queue.ts, admit).
  deps.passwords.admit(input.deadline);
  let email: string;
  try {
    email = normaliseEmail(input.email);
  } catch {
    throw new AuthError("INVALID_EMAIL_OR_PASSWORD");
  }
  return signIn(deps, await deps.store.findUserByEmail(email), input, "INVALID_EMAIL_OR_PASSWORD", "EMAIL_NOT_VERIFIED");
}

export async function signInUsername(deps: Deps, input: SignInInput & { username: string }) {
  deps.passwords.admit(input.deadline);
  const username = input.username.trim().toLowerCase();
  // docs/http-api/sign-in.md: an unverified username sign-in gets a new mail and the generic failure.
  return signIn(deps, await deps.store.findUserByUsername(username), input, "INVALID_USERNAME_OR_PASSWORD", "INVALID_USERNAME_OR_PASSWORD");
}

async function signIn(deps: Deps, user: UserRecord | null, input: SignInInput, failure: ErrorCode, unverified: ErrorCode): Promise<SignInOutcome> {
  // The account lookup runs for an unknown user too (an id no user has), so both paths do the same queries.
  const account = await deps.store.findAccount(user?.id ?? NO_USER_ID, CREDENTIAL_PROVIDER);
  const valid = account?.password ? await deps.passwords.verify(account.password, input.password, input.deadline) : await deps.passwords.verifyNone(input.password, input.deadline);
  if (!user || !account?.password || !valid) throw new AuthError(failure);
  return completeSignIn(deps, user, {
    method: "password",
    rememberMe: input.rememberMe,
    client: input.client,
    trustedDevice: input.trustedDevice,
    refusal: failure,
    unverified,
    language: input.language,
  });
}
