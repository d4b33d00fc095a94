/**
 * Session tokens at rest. A token is a bearer credential, so no store or cache keeps it as it is:
 *   - lookup(token): HMAC-SHA256 under a key derived from AUTH_SECRET (HKDF, purpose "session-token-lookup"),
 *     the key of the session row and of every cache key. Without AUTH_SECRET it cannot be turned back into
 *     a token nor computed for a guessed one.
 *   - seal/open: AES-256-GCM under another derived key (purpose "session-token-encryption"), for the one
 *     place the API shows a token again (list-sessions). The session id is the associated data, so a
 *     sealed token copied onto another row does not open.
 * The gateway needs only lookup (one HMAC per request on the warm path of get-session). The handles some
 * listings show instead of tokens have a sealer of their own (session-handles.ts).
 */
import { createCipheriv, createDecipheriv, createHmac, createSecretKey, hkdfSync, randomBytes } from "node:crypto";

const SALT = "auth-platform/session-token";
export const LOOKUP_PURPOSE = "session-token-lookup";
export const SEAL_PURPOSE = "session-token-encryption";
const FORMAT = "v1";

/** A 32-byte key derived from the secret for one purpose. */
export function deriveKey(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, SALT, purpose, 32));
}

export interface TokenLookup {
  /** The keyed hash of a token (base64url, 43 characters). */
  lookup(token: string): string;
}

export interface TokenVault extends TokenLookup {
  /** The token encrypted for this session id. */
  seal(token: string, sessionId: string): string;
  /** The token back, or an Error when the sealed value was not made by seal for this id and secret. */
  open(sealed: string, sessionId: string): string;
}

export function tokenLookup(secret: string): TokenLookup {
  // A KeyObject, made once: createHmac with a raw Buffer key imports the key on every call (about 28 us
  // against 2.5 us per lookup on Node 24).
  const key = createSecretKey(deriveKey(secret, LOOKUP_PURPOSE));
  return { lookup: (token) => createHmac("sha256", key).update(token).digest("base64url") };
}

export function tokenVault(secret: string): TokenVault {
  // The session id is the sealed token's context.
  return { ...tokenLookup(secret), ...sealer(secret, SEAL_PURPOSE) };
}

export interface Sealer {
  /** The text encrypted and bound to `context` (associated data). */
  seal(text: string, context: string): string;
  /** The text back, or an Error when the sealed value was not made by seal for this context and secret. */
  open(sealed: string, context: string): string;
}

/** Nonces of `size` bytes drawn from the system's random source a few hundred at a time: drawn one by one, they cost more than the encryption. */
function nonceSource(size: number, perDraw = 256): () => Buffer {
  let pool = Buffer.alloc(0);
  let at = 0;
  return () => {
    if (at + size > pool.length) {
      pool = randomBytes(size * perDraw);
      at = 0;
    }
    at += size;
    return pool.subarray(at - size, at);
  };
}

/**
 * AES-256-GCM under a key derived from the secret for `purpose`, a fresh nonce per value:
 * `format.iv.ciphertext.tag`, base64url parts (`format` tells one kind of sealed value from another).
 */
export function sealer(secret: string, purpose: string, format = FORMAT): Sealer {
  const key = createSecretKey(deriveKey(secret, purpose));
  const nonce = nonceSource(12);
  return {
    seal(text, context) {
      const iv = nonce();
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
      return [format, iv.toString("base64url"), body.toString("base64url"), cipher.getAuthTag().toString("base64url")].join(".");
    },
    open(sealed, context) {
      const [given, iv, body, tag] = sealed.split(".");
      if (given !== format || !iv || body === undefined || !tag) throw new Error("not a sealed value");
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
    },
  };
}
