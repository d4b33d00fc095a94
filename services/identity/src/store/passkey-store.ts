/**
 * The passkey part of the identity store port: the user's WebAuthn credentials and the pending ceremonies
 * (challenges). A challenge is stored under the keyed hash of the attempt token the browser's cookie holds,
 * and is taken once; a credential's public key is public, so it is stored as is.
 */

/** Where an authenticator keeps the credential ("singleDevice" or "multiDevice", WebAuthn's backup eligibility). */
export type PasskeyDeviceType = "singleDevice" | "multiDevice";

export interface PasskeyRecord {
  id: string;
  userId: string;
  /** The user's label for it, null until named. */
  name: string | null;
  /** The credential id the authenticator gave (base64url), unique across users. */
  credentialId: string;
  /** The COSE public key (base64url). */
  publicKey: string;
  /** The signature counter last seen (0 for authenticators that keep none). */
  counter: number;
  deviceType: PasskeyDeviceType;
  backedUp: boolean;
  /** How the browser reached the authenticator ("internal", "usb", "hybrid"...), as it reported. */
  transports: string[];
  /** The authenticator model, all zeros when the authenticator keeps it private. */
  aaguid: string | null;
  createdAt: Date;
}

/** A WebAuthn ceremony waiting for the authenticator's answer. Single use, short-lived. */
export interface PasskeyChallengeRecord {
  /** The keyed hash of the attempt token the browser's cookie holds. */
  id: string;
  kind: "registration" | "authentication";
  /** The challenge sent to the authenticator (base64url). */
  challenge: string;
  /** Registration: the user adding the passkey. Authentication: null, or the signed-in user it was asked for. */
  userId: string | null;
  /** Registration: the session that asked for it (the answer must come from the same session). */
  sessionId: string | null;
  expiresAt: Date;
  createdAt: Date;
}

export interface PasskeyStore {
  /** Stores a challenge; challenges expired before `now` go in the same call, so none pile up. */
  createPasskeyChallenge(record: PasskeyChallengeRecord, now: Date): Promise<void>;
  /** Deletes the challenge and answers it: only the one caller that deleted it gets it (single use under races). */
  takePasskeyChallenge(id: string): Promise<PasskeyChallengeRecord | null>;
  /** Stores a new credential; PREVIOUSLY_REGISTERED when its credential id is already stored (for anyone). */
  createPasskey(record: PasskeyRecord): Promise<void>;
  /** The user's passkeys, oldest first. */
  listPasskeys(userId: string): Promise<PasskeyRecord[]>;
  findPasskeyByCredentialId(credentialId: string): Promise<PasskeyRecord | null>;
  /** Renames one of the user's passkeys: the updated record, null when the user has no passkey with this id. */
  renamePasskey(userId: string, id: string, name: string): Promise<PasskeyRecord | null>;
  /**
   * Moves the signature counter from `from` to `to`, in one conditional UPDATE: false when it is no longer
   * `from` (a racing sign-in with the same or an older counter value loses).
   */
  advancePasskeyCounter(id: string, from: number, to: number): Promise<boolean>;
}
