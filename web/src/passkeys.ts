/**
 * The WebAuthn ceremonies of the passkey routes (docs/http-api/passkeys.md), through @simplewebauthn/browser:
 * it turns the options' base64url fields into the buffers navigator.credentials takes and the answer back,
 * runs autofill (conditional mediation), and aborts a pending ceremony when another starts, which the
 * sign-in screen needs (its autofill request waits while the button starts another).
 */
import { browserSupportsWebAuthn, browserSupportsWebAuthnAutofill, startAuthentication, startRegistration, WebAuthnAbortService, WebAuthnError } from "@simplewebauthn/browser";
import { api, errorMessage } from "./api";
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

/** Signs in with a passkey picked in the browser's dialog. */
export async function signInWithPasskey() {
  ceremonies++;
  const optionsJSON = await api.passkey.authenticateOptions();
  return api.passkey.verifyAuthentication(await startAuthentication({ optionsJSON }));
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
  return api.passkey.verifyAuthentication(await startAuthentication({ optionsJSON, useBrowserAutofill: true }));
}

/** Answers the pending two-factor sign-in with one of the user's passkeys. */
export async function answerWithPasskey(trustDevice: boolean) {
  ceremonies++;
  const optionsJSON = await api.passkey.authenticateOptions();
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
