/**
 * Sealing a provider's client secret at rest: AES-256-GCM under a key derived from AUTH_SECRET by HKDF,
 * with the provider id as authenticated data, so a sealed secret copied to another provider's row does not open.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

export interface SecretBox {
  seal(plaintext: string, providerId: string): string;
  /** Throws when the value was sealed under another secret or for another provider. */
  open(sealed: string, providerId: string): string;
}

const KEY_ID = "s1";

export function secretBox(authSecret: string): SecretBox {
  const key = Buffer.from(hkdfSync("sha256", authSecret, "auth-platform/sso", "client-secret", 32));
  const aad = (providerId: string) => Buffer.from(`${KEY_ID}:${providerId}`);
  return {
    seal(plaintext, providerId) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(aad(providerId));
      const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return [KEY_ID, iv, ciphertext, cipher.getAuthTag()].map((part) => (typeof part === "string" ? part : part.toString("base64url"))).join(".");
    },
    open(sealed, providerId) {
      const [id, iv, ciphertext, tag] = sealed.split(".");
      if (id !== KEY_ID || !iv || !ciphertext || !tag) throw new Error("client secret sealed under an unknown key");
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAAD(aad(providerId));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
    },
  };
}
