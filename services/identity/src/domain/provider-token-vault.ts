/**
 * Provider tokens at rest: AES-256-GCM under a key derived from AUTH_SECRET for this purpose only, the
 * account's own id as associated data (a sealed token copied onto another account does not open). A dump
 * of the account table alone yields no token a provider would accept.
 */
import { createCipheriv, createDecipheriv, createSecretKey, randomBytes } from "node:crypto";
import { deriveKey } from "@auth-platform/runtime/session-token";

const PURPOSE = "provider-token-encryption";
const FORMAT = "p1";

export interface ProviderTokenVault {
  seal(token: string, accountId: string): string;
  /** The token back; throws when the value was not sealed for this account under this secret. */
  open(sealed: string, accountId: string): string;
}

export function providerTokenVault(secret: string): ProviderTokenVault {
  const key = createSecretKey(deriveKey(secret, PURPOSE));
  return {
    seal(token, accountId) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(Buffer.from(accountId));
      const body = Buffer.concat([cipher.update(token, "utf8"), cipher.final()]);
      return [FORMAT, iv.toString("base64url"), body.toString("base64url"), cipher.getAuthTag().toString("base64url")].join(".");
    },
    open(sealed, accountId) {
      const [format, iv, body, tag] = sealed.split(".");
      if (format !== FORMAT || !iv || body === undefined || !tag) throw new Error("not a sealed provider token");
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAAD(Buffer.from(accountId));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
    },
  };
}
