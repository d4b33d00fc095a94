/**
 * The WebAuthn ceremonies of the passkey routes (docs/http-api/passkeys.md), through @simplewebauthn/browser:
 * it turns the options' base64url fields into the buffers navigator.credentials takes and the answer back,
 * runs autofill (conditional mediation), and aborts a pending ceremony when another starts, which the
 * sign-in screen needs (its autofill request waits while the button starts another). A passkey the platform
 * does not know (deleted here, still on the device) is reported to the device, which stops offering it.
 */
import {
  type AuthenticationResponseJSON,
  browserSupportsWebAuthn,
  browserSupportsWebAuthnAutofill,
  type PublicKeyCredentialRequestOptionsJSON,
  startAuthentication,
  startRegistration,
  WebAuthnAbortService,
  WebAuthnError,
} from "@simplewebauthn/browser";
import { ApiError, api, errorMessage } from "./api";
import { translate } from "./i18n";

export const passkeysSupported = (): boolean => browserSupportsWebAuthn();

/** Whether the browser offers passkeys in the autofill of a field marked `autocomplete="username webauthn"`. */
export const passkeyAutofillSupported = (): Promise<boolean> => browserSupportsWebAuthnAutofill();

/**
 * Counts the ceremonies started or stopped on this page. Autofill waits for its options before its ceremony
 * starts, and starting one aborts whichever is pending: an autofill whose options arrive after the button's
 * ceremony began would close the button's dialog, so it starts only if nothing happened in between.
 */
let ceremonies = 0;

/** Creates a passkey on an authenticator of the person's choice and stores it for the signed-in user. */
export async function addPasskey(name?: string) {
  ceremonies++;
  const optionsJSON = await api.passkey.registerOptions();
  return api.passkey.verifyRegistration(await startRegistration({ optionsJSON }), name);
}

/**
 * Tells the device that this site no longer knows the passkey, through WebAuthn's Signal API where the
 * browser has it: its passkey manager then hides or removes it, and stops offering it at sign-in.
 */
async function forgetOnDevice(optionsJSON: PublicKeyCredentialRequestOptionsJSON, answer: AuthenticationResponseJSON): Promise<void> {
  type Signals = { signalUnknownCredential?: (details: { rpId: string; credentialId: string }) => Promise<void> };
  const { signalUnknownCredential } = (globalThis.PublicKeyCredential ?? {}) as Signals;
  if (!signalUnknownCredential) return;
  try {
    // Without rpId in the options, the browser took the page's host as the relying party.
    await signalUnknownCredential.call(PublicKeyCredential, { rpId: optionsJSON.rpId ?? location.hostname, credentialId: answer.id });
  } catch {
    // Refused by the browser: the device keeps offering the passkey, and the platform keeps refusing it.
  }
}

/** Signs in with the device's answer; a passkey refused as unknown is forgotten on the device first. */
async function verifySignIn(optionsJSON: PublicKeyCredentialRequestOptionsJSON, answer: AuthenticationResponseJSON) {
  try {
    return await api.passkey.verifyAuthentication(answer);
  } catch (error) {
    if (error instanceof ApiError && error.code === "PASSKEY_NOT_FOUND") await forgetOnDevice(optionsJSON, answer);
    throw error;
  }
}

/** Signs in with a passkey picked in the browser's dialog. */
export async function signInWithPasskey() {
  ceremonies++;
  const optionsJSON = await api.passkey.authenticateOptions();
  return verifySignIn(optionsJSON, await startAuthentication({ optionsJSON }));
}

/**
 * Autofill: waits until the person picks a passkey among the suggestions of the field marked
 * `autocomplete="username webauthn"`, then signs in. Opportunistic: when no options come (the API busy or
 * rate limited), or another ceremony started or the screen was left while they came, the field just offers
 * no passkey, and this resolves to undefined without a word.
 */
export async function signInWithPasskeyAutofill() {
  const startedAt = ++ceremonies;
  const optionsJSON = await api.passkey.authenticateOptions().catch(() => undefined);
  if (!optionsJSON || ceremonies !== startedAt) return undefined;
  return verifySignIn(optionsJSON, await startAuthentication({ optionsJSON, useBrowserAutofill: true }));
}

/** Answers the pending two-factor sign-in with one of the user's passkeys. */
export async function answerWithPasskey(trustDevice: boolean) {
  ceremonies++;
  const optionsJSON = await api.passkey.authenticateOptions();
  // No signal here: the challenge refuses an unknown passkey as any wrong answer, without saying which.
  return api.twoFactor.verifyPasskey(await startAuthentication({ optionsJSON }), trustDevice);
}

/** Stops a pending ceremony (the screen that started it is left). */
export const cancelPasskeyCeremony = (): void => {
  ceremonies++;
  WebAuthnAbortService.cancelCeremony();
};

/** The browser's answer when the authenticator already holds one of this account's passkeys (on adding one). */
const alreadyOnDevice = (error: unknown): boolean => error instanceof WebAuthnError && error.code === "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED";

/**
 * Whether an error is the browser's passkey dialog closed, timed out or replaced by another ceremony (the
 * browser tells these apart from nothing else), as opposed to a refusal by the server.
 */
export const passkeyDialogClosed = (error: unknown): boolean =>
  (error instanceof WebAuthnError && !alreadyOnDevice(error)) || (error instanceof DOMException && (error.name === "NotAllowedError" || error.name === "AbortError"));

/** What a failed ceremony says to the person: the browser's reason in our words, or the server's refusal. */
export function passkeyFailureMessage(error: unknown): string {
  if (alreadyOnDevice(error)) return translate("passkeys.alreadyOnDevice");
  return passkeyDialogClosed(error) ? translate("passkeys.cancelled") : errorMessage(error);
}
