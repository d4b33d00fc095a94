/**
 * Passkeys (WebAuthn, docs/adr/0059-passkeys.md): the signed-in user registers, lists, renames and deletes
 * them; anyone signs in with one; a two-factor user answers the challenge with one
 * (two-factor-challenge.ts). Each ceremony is a challenge stored under the keyed hash of an attempt token
 * the browser holds in an HttpOnly cookie, taken once and good for CEREMONY_SECONDS; a registration is bound
 * to the session that started it. @simplewebauthn/server checks the authenticator's answers.
 */
import type { AuthenticationResponseJSON, RegistrationResponseJSON, VerifiedRegistrationResponse } from "@simplewebauthn/server";
import type { Session } from "@auth-platform/proto/gen/auth/session/v1/session";
import { AuthError } from "@auth-platform/proto/errors";
import type { Caller } from "@auth-platform/runtime/caller";
import type { Language } from "@auth-platform/runtime/language";
import { newId, randomString } from "@auth-platform/runtime/random";
import type { UserRecord } from "../store/identity-store.js";
import type { PasskeyChallengeRecord, PasskeyRecord } from "../store/passkey-store.js";
import { admitUser } from "./bans.js";
import { requireFreshSession } from "./freshness.js";
import { openSession } from "./open-session.js";
import type { ClientInfo, Registry } from "./ports.js";
import { tokenHash } from "./trusted-devices.js";
import { mailVerificationLink } from "./verification.js";

/**
 * @simplewebauthn/server, with the ASN.1 and X.509 packages under it, is loaded by the first passkey
 * ceremony: loaded at start it held 3.5 MiB of identity's heap in every process, used or not (docs/capacity.md).
 */
let webauthnLibrary: Promise<typeof import("@simplewebauthn/server")> | undefined;
const webauthn = () => (webauthnLibrary ??= import("@simplewebauthn/server"));

/** A ceremony (and its cookie) lasts 5 minutes, better-auth's passkey plugin's time too. */
export const CEREMONY_SECONDS = 300;

type Deps = Pick<Registry, "config" | "store" | "sessions" | "organizations" | "mail" | "now" | "log">;

/** What the browser passes to navigator.credentials, and the attempt token its cookie keeps. */
export interface Ceremony {
  /** The WebAuthn options as JSON (PublicKeyCredentialCreationOptionsJSON or ...RequestOptionsJSON). */
  options: string;
  token: string;
  expiresAt: Date;
  issuedAt: Date;
}

async function startCeremony(
  deps: Pick<Deps, "store" | "now">,
  fields: Pick<PasskeyChallengeRecord, "kind" | "challenge" | "userId" | "sessionId">,
  options: object,
): Promise<Ceremony> {
  const now = deps.now();
  const token = randomString(32);
  const expiresAt = new Date(now.getTime() + CEREMONY_SECONDS * 1000);
  await deps.store.createPasskeyChallenge({ id: tokenHash(token), ...fields, expiresAt, createdAt: now }, now);
  return { options: JSON.stringify(options), token, expiresAt, issuedAt: now };
}

/** The live challenge of this kind the token names, taken (it is gone after this call, whatever follows). */
async function takeCeremony(deps: Pick<Deps, "store" | "now">, token: string, kind: PasskeyChallengeRecord["kind"]): Promise<PasskeyChallengeRecord> {
  const challenge = token ? await deps.store.takePasskeyChallenge(tokenHash(token)) : null;
  if (!challenge || challenge.kind !== kind || challenge.expiresAt <= deps.now()) throw new AuthError("CHALLENGE_NOT_FOUND");
  return challenge;
}

/** The authenticator's answer as the browser serialised it; anything else is not an answer. */
function parseResponse<T>(json: string, failure: "FAILED_TO_VERIFY_REGISTRATION" | "AUTHENTICATION_FAILED"): T {
  try {
    const parsed = JSON.parse(json) as unknown;
    if (parsed && typeof parsed === "object" && typeof (parsed as { id?: unknown }).id === "string") return parsed as T;
  } catch {}
  throw new AuthError(failure);
}

/**
 * An admin acting as the user changes no credential: an added one would sign the admin in as the user after
 * the impersonation, and renaming or deleting the user's own is theirs to do.
 */
function refuseImpersonation(caller: Pick<Caller, "impersonatedBy">): void {
  if (caller.impersonatedBy) throw new AuthError("SIGN_IN_METHODS_CANNOT_BE_CHANGED_WHILE_IMPERSONATING");
}

export interface StartRegistrationInput {
  caller: Caller;
  /** The user name the authenticator shows (better-auth's `name` query); the email by default. */
  name?: string;
  authenticatorAttachment?: "platform" | "cross-platform";
}

/** Registration options for the signed-in user, whose session must be fresh (SESSION_IS_NOT_FRESH). */
export async function startPasskeyRegistration(deps: Deps, input: StartRegistrationInput): Promise<Ceremony> {
  const { caller } = input;
  refuseImpersonation(caller);
  requireFreshSession(caller, deps.config.freshAgeSeconds, deps.now());
  const user = await deps.store.findUserById(caller.userId);
  if (!user) throw new AuthError("UNAUTHORIZED");
  const { rpId, rpName } = deps.config.passkeys;
  const existing = await deps.store.listPasskeys(user.id);
  const options = await (await webauthn()).generateRegistrationOptions({
    rpName,
    rpID: rpId,
    // The user handle: the user's id, random and stable, so an authenticator replaces its own earlier passkey.
    userID: new TextEncoder().encode(user.id),
    userName: input.name || user.email,
    userDisplayName: user.name || user.email,
    timeout: CEREMONY_SECONDS * 1000,
    attestationType: "none",
    excludeCredentials: existing.map((passkey) => ({ id: passkey.credentialId, transports: passkey.transports as never })),
    authenticatorSelection: {
      residentKey: "preferred",
      userVerification: "preferred",
      ...(input.authenticatorAttachment ? { authenticatorAttachment: input.authenticatorAttachment } : {}),
    },
  });
  return startCeremony(deps, { kind: "registration", challenge: options.challenge, userId: user.id, sessionId: caller.sessionId }, options);
}

export interface FinishRegistrationInput {
  caller: Caller;
  /** The attempt token of the registration cookie. */
  token: string;
  /** The RegistrationResponseJSON the browser produced. */
  response: string;
  name?: string;
}

/** Checks the authenticator's answer to the caller's registration and stores the passkey. */
export async function finishPasskeyRegistration(deps: Deps, input: FinishRegistrationInput): Promise<PasskeyRecord> {
  refuseImpersonation(input.caller);
  const challenge = await takeCeremony(deps, input.token, "registration");
  // Started by another user or another session (a cookie carried over): not this caller's to finish.
  if (challenge.userId !== input.caller.userId || challenge.sessionId !== input.caller.sessionId) throw new AuthError("YOU_ARE_NOT_ALLOWED_TO_REGISTER_THIS_PASSKEY");
  const response = parseResponse<RegistrationResponseJSON>(input.response, "FAILED_TO_VERIFY_REGISTRATION");
  const { rpId, origins } = deps.config.passkeys;
  let verified: VerifiedRegistrationResponse;
  try {
    verified = await (await webauthn()).verifyRegistrationResponse({
      response,
      expectedChallenge: challenge.challenge,
      expectedOrigin: origins,
      expectedRPID: rpId,
      requireUserVerification: false,
    });
  } catch (error) {
    deps.log.info("passkey registration refused", { userId: input.caller.userId, reason: (error as Error).message });
    throw new AuthError("FAILED_TO_VERIFY_REGISTRATION");
  }
  if (!verified.verified || !verified.registrationInfo) throw new AuthError("FAILED_TO_VERIFY_REGISTRATION");
  const { credential, credentialDeviceType, credentialBackedUp, aaguid } = verified.registrationInfo;
  const passkey: PasskeyRecord = {
    id: newId(),
    userId: input.caller.userId,
    name: input.name?.trim() || null,
    credentialId: credential.id,
    publicKey: Buffer.from(credential.publicKey).toString("base64url"),
    counter: credential.counter,
    deviceType: credentialDeviceType,
    backedUp: credentialBackedUp,
    transports: (response.response.transports ?? []).filter((t) => typeof t === "string").slice(0, 8),
    aaguid: aaguid || null,
    createdAt: deps.now(),
  };
  await deps.store.createPasskey(passkey);
  return passkey;
}

/**
 * Authentication options. With `userId` (a signed-in user, or the user of a two-factor challenge) the
 * options list that user's passkeys; without, the browser offers its discoverable ones (and autofill).
 */
export async function startPasskeyAuthentication(deps: Deps, userId?: string): Promise<Ceremony> {
  const passkeys = userId ? await deps.store.listPasskeys(userId) : [];
  const options = await (await webauthn()).generateAuthenticationOptions({
    rpID: deps.config.passkeys.rpId,
    timeout: CEREMONY_SECONDS * 1000,
    userVerification: "preferred",
    ...(passkeys.length ? { allowCredentials: passkeys.map((p) => ({ id: p.credentialId, transports: p.transports as never })) } : {}),
  });
  return startCeremony(deps, { kind: "authentication", challenge: options.challenge, userId: userId ?? null, sessionId: null }, options);
}

/**
 * Takes the authentication ceremony and checks the assertion against the stored passkey: challenge, origin,
 * relying party, signature, and a counter that moves forward (a cloned authenticator's stale counter, or a
 * racing use of the same value, fails). `requireUserVerification`: the authenticator checked the user's
 * PIN or biometric (a sign-in by passkey alone needs it).
 */
export async function verifyPasskeyAssertion(deps: Deps, token: string, responseJson: string, requireUserVerification: boolean): Promise<PasskeyRecord> {
  const challenge = await takeCeremony(deps, token, "authentication");
  const response = parseResponse<AuthenticationResponseJSON>(responseJson, "AUTHENTICATION_FAILED");
  const passkey = await deps.store.findPasskeyByCredentialId(response.id);
  if (!passkey) throw new AuthError("PASSKEY_NOT_FOUND");
  const { rpId, origins } = deps.config.passkeys;
  let newCounter: number;
  try {
    const verified = await (await webauthn()).verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge.challenge,
      expectedOrigin: origins,
      expectedRPID: rpId,
      credential: { id: passkey.credentialId, publicKey: Buffer.from(passkey.publicKey, "base64url"), counter: passkey.counter, transports: passkey.transports as never },
      requireUserVerification,
    });
    if (!verified.verified) throw new Error("not verified");
    newCounter = verified.authenticationInfo.newCounter;
  } catch (error) {
    deps.log.info("passkey assertion refused", { passkeyId: passkey.id, reason: (error as Error).message });
    throw new AuthError("AUTHENTICATION_FAILED");
  }
  if (!(await deps.store.advancePasskeyCounter(passkey.id, passkey.counter, newCounter))) throw new AuthError("AUTHENTICATION_FAILED");
  return { ...passkey, counter: newCounter };
}

export interface PasskeySignInInput {
  token: string;
  response: string;
  rememberMe: boolean;
  client: ClientInfo;
  /** The language of a verification mail this sign-in may send. */
  language?: Language;
}

/**
 * Signs in with a passkey: a verified user's passkey is possession and a PIN or biometric at once, so the
 * session opens without the two-factor challenge (docs/adr/0059-passkeys.md). A banned user is refused
 * (BANNED_USER, told after the proof like every sign-in); so is an unverified address while verification is
 * required (EMAIL_NOT_VERIFIED, and a new link mailed), as a password sign-in is.
 */
export async function signInWithPasskey(deps: Deps, input: PasskeySignInInput): Promise<{ user: UserRecord; session: Session }> {
  const passkey = await verifyPasskeyAssertion(deps, input.token, input.response, true);
  const user = await deps.store.findUserById(passkey.userId);
  if (!user) throw new AuthError("AUTHENTICATION_FAILED");
  const current = await admitUser(deps, user, "AUTHENTICATION_FAILED");
  if (deps.config.emailVerification.required && !current.emailVerified) {
    await mailVerificationLink(deps, current, { language: input.language });
    throw new AuthError("EMAIL_NOT_VERIFIED");
  }
  const session = await openSession(deps, current, { rememberMe: input.rememberMe, client: input.client, refusal: "AUTHENTICATION_FAILED", authentication: { method: "passkey" } });
  return { user: current, session };
}

export const listPasskeys = (deps: Pick<Deps, "store">, userId: string) => deps.store.listPasskeys(userId);

export async function renamePasskey(deps: Pick<Deps, "store">, caller: Pick<Caller, "userId" | "impersonatedBy">, id: string, name: string): Promise<PasskeyRecord> {
  refuseImpersonation(caller);
  const renamed = await deps.store.renamePasskey(caller.userId, id, name.trim());
  if (!renamed) throw new AuthError("PASSKEY_NOT_FOUND");
  return renamed;
}

/**
 * Deletes one of the user's passkeys, unless it is the user's last way to sign in: the last passkey of a user
 * with no password and no linked account (docs/adr/0060-the-last-passkey.md).
 */
export async function deletePasskey(deps: Pick<Deps, "store">, caller: Pick<Caller, "userId" | "impersonatedBy">, id: string): Promise<void> {
  refuseImpersonation(caller);
  const outcome = await deps.store.deletePasskeyUnlessLast(caller.userId, id);
  if (outcome === "not-found") throw new AuthError("PASSKEY_NOT_FOUND");
  if (outcome === "last") throw new AuthError("YOU_CANT_DELETE_YOUR_LAST_WAY_TO_SIGN_IN");
}
