/** Random identifiers and tokens. Always a cryptographically secure source: tokens are bearer secrets. */
import { randomBytes } from "node:crypto";

export const ALPHANUMERIC = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
export const LOWER_ALPHANUMERIC = "0123456789abcdefghijklmnopqrstuvwxyz";

/**
 * A string of `length` characters drawn uniformly from `alphabet`. Bytes past the largest multiple of the
 * alphabet size are rejected, so no character is more likely than another (no modulo bias).
 */
export function randomString(length: number, alphabet: string = ALPHANUMERIC): string {
  if (alphabet.length < 2 || alphabet.length > 256) throw new RangeError("alphabet must have 2 to 256 characters");
  const limit = 256 - (256 % alphabet.length);
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(Math.ceil((length - out.length) * 1.3) + 8)) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A new entity id: 32 alphanumeric characters. */
export const newId = (): string => randomString(32);
