/**
 * Sealing a secret at rest that the service must read back (an SSO client secret, a webhook signing secret):
 * AES-256-GCM under a key derived from AUTH_SECRET by HKDF, one key per purpose, with the owning row's id as
 * authenticated data, so a sealed value copied to another row does not open.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

export interface SecretBox {
  seal(plaintext: string, ownerId: string): string;
  /** Throws when the value was sealed under another secret or for another owner. */
  open(sealed: string, ownerId: string): string;
}

const KEY_ID = "s1";

/** `salt` and `info` name the purpose (HKDF): each purpose gets its own key from the one AUTH_SECRET. */
export function secretBox(authSecret: string, purpose: { salt: string; info: string }): SecretBox {
  const key = Buffer.from(hkdfSync("sha256", authSecret, purpose.salt, purpose.info, 32));
  const aad = (ownerId: string) => Buffer.from(`${KEY_ID}:${ownerId}`);
  return {
    seal(plaintext, ownerId) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(aad(ownerId));
      const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return [KEY_ID, iv, ciphertext, cipher.getAuthTag()].map((part) => (typeof part === "string" ? part : part.toString("base64url"))).join(".");
    },
    open(sealed, ownerId) {
      const [id, iv, ciphertext, tag] = sealed.split(".");
      if (id !== KEY_ID || !iv || !ciphertext || !tag) throw new Error(`${purpose.info} sealed under an unknown key`);
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAAD(aad(ownerId));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
    },
  };
}
