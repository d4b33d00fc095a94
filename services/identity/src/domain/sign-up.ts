/** Email-and-password sign-up (optionally with a username), then auto sign-in when configured. */
import type { Session } from "@auth-platform/proto/gen/auth/session/v1/session";
import { AuthError } from "@auth-platform/proto/errors";
import type { Language } from "@auth-platform/runtime/language";
import { newId } from "@auth-platform/runtime/random";
import { CREDENTIAL_PROVIDER, type UserRecord } from "../store/identity-store.js";
import type { ClientInfo, Registry } from "./ports.js";
import { openSession } from "./open-session.js";
import { checkExtraFields, checkImage, checkName, checkPasswordLength, normaliseEmail, normaliseUsername } from "./validation.js";
import { runMailRequest } from "./mail-request-worker.js";
import { newUser } from "./new-user.js";

export interface SignUpInput {
  name: string;
  email: string;
  password: string;
  image?: string;
  username?: string;
  displayUsername?: string;
  extraFields: Record<string, unknown>;
  rememberMe: boolean;
  client: ClientInfo;
  /** Where the verification link leads after verifying. */
  callbackUrl?: string;
  /** The language of the verification mail (the request's). */
  language?: Language;
  /** When the caller stops waiting (epoch ms): hashing that would end later is refused (SERVICE_UNAVAILABLE). */
  deadline?: number;
}

export async function signUpEmail(
  deps: Pick<Registry, "config" | "store" | "sessions" | "organizations" | "mail" | "now" | "passwords" | "log">,
  input: SignUpInput,
): Promise<{ user: UserRecord; session?: Session }> {
  const { config, store } = deps;
  if (!config.emailPasswordEnabled) throw new AuthError("EMAIL_AND_PASSWORD_IS_NOT_ENABLED");
  checkName(input.name);
  const email = normaliseEmail(input.email);
  checkPasswordLength(input.password, config);
  const username = input.username !== undefined ? normaliseUsername(input.username) : null;
  const image = input.image !== undefined ? checkImage(input.image) : null;
  const extraFields = checkExtraFields(input.extraFields, config.userFields);

  // Cheap early answers; the unique indexes decide races (50 concurrent sign-ups make one user).
  if (await store.findUserByEmail(email)) throw new AuthError("USER_ALREADY_EXISTS");
  if (username && (await store.findUserByUsername(username))) throw new AuthError("USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER");

  const now = deps.now();
  const user = newUser(now, {
    name: input.name,
    email,
    emailVerified: false,
    image,
    username,
    displayUsername: username ? (input.displayUsername ?? input.username ?? null) : null,
    // Set by configuration only: sign-up never reads a role (or any admin field) from the request.
    role: config.defaultRole,
    extraFields,
  });
  const passwordHash = await deps.passwords.hash(input.password, input.deadline);
  const verification = config.emailVerification;
  // The verification mail is queued with the user (one transaction) and sent right after: with the
  // notification service away the sign-up still succeeds, and the mail follows when it is back.
  const mailRequest =
    verification.enabled && (verification.sendOnSignUp || verification.required)
      ? { id: newId(), kind: "email-verification" as const, email, callbackUrl: input.callbackUrl ?? null, language: input.language ?? null, nextAttemptAt: now, createdAt: now }
      : undefined;
  const account = { id: newId(), accountId: user.id, providerId: CREDENTIAL_PROVIDER, userId: user.id, password: passwordHash, createdAt: now, updatedAt: now };
  await store.createUserWithAccount(user, account, mailRequest);
  if (mailRequest) await runMailRequest(deps, { ...mailRequest, attempts: 0, leaseUntil: null });
  // With verification required, the first session comes after the address is verified.
  if (!config.autoSignIn || verification.required) return { user };
  const session = await openSession(deps, user, { rememberMe: input.rememberMe, client: input.client, authentication: { method: "password" } });
  return { user, session };
}
