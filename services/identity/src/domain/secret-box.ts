/**
 * Sealing the TOTP secret at rest (AES-256-GCM under a two-factor key), and the keyed hashes of backup and
 * mailed codes. Both carry the key id, so keys rotate: new writes use the current key, older ones still open.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import type { TwoFactorKeys } from "../two-factor-keys.js";

const b64 = (bytes: Buffer) => bytes.toString("base64url");

/** `keyId.iv.ciphertext.tag`, base64url parts. */
export function seal(keys: TwoFactorKeys, plaintext: Buffer): string {
  const { id, sealKey } = keys.current;
  // A fresh random 96-bit nonce per message, as GCM requires.
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealKey, iv);
  // The key id is authenticated data: a ciphertext moved under another id fails to open.
  cipher.setAAD(Buffer.from(id));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return [id, b64(iv), b64(ciphertext), b64(cipher.getAuthTag())].join(".");
}

/** The plaintext, and whether it was sealed under a key other than the current one (reseal it). */
export function open(keys: TwoFactorKeys, sealed: string): { plaintext: Buffer; stale: boolean } {
  const [id, iv, ciphertext, tag] = sealed.split(".");
  const key = keys.all.find((k) => k.id === id);
  if (!key || !iv || !ciphertext || !tag) throw new Error(`two-factor secret sealed under an unknown key "${id}" (IDENTITY_TWO_FACTOR_KEYS)`);
  const decipher = createDecipheriv("aes-256-gcm", key.sealKey, Buffer.from(iv, "base64url"));
  decipher.setAAD(Buffer.from(key.id));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  const plaintext = Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]);
  return { plaintext, stale: key.id !== keys.current.id };
}

/** The stored form of a code: `keyId:hmac`, under the current key. */
export function codeHash(keys: TwoFactorKeys, code: string): string {
  return hashUnder(keys.current, code);
}

/** The stored forms a code may have, one per key (current first): look a code up by any of them. */
export function codeHashCandidates(keys: TwoFactorKeys, code: string): string[] {
  return keys.all.map((key) => hashUnder(key, code));
}

function hashUnder(key: TwoFactorKeys["current"], code: string): string {
  return `${key.id}:${createHmac("sha256", key.hashKey).update(code).digest("base64url")}`;
}
