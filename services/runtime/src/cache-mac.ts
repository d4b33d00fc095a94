/**
 * Integrity of the records in the shared cache that authorise a request (session-cache.ts): HMAC-SHA256
 * under a key derived from AUTH_SECRET for this purpose only (HKDF, as session-token.ts derives its keys),
 * over the record's cache key and its exact serialised bytes. Whoever can write to Redis but does not hold
 * AUTH_SECRET can neither edit a record (a role, a user id) nor move a valid record to another key.
 */
import { createHmac, createSecretKey, timingSafeEqual } from "node:crypto";
import { deriveKey } from "./session-token.js";

export const CACHE_MAC_PURPOSE = "session-cache-record-mac";
/** A MAC as stored: 32 bytes, base64url. */
export const CACHE_MAC_LENGTH = 43;

export interface CacheMac {
  /** The MAC of `bytes` stored under `key` (base64url, CACHE_MAC_LENGTH characters). */
  sign(key: string, bytes: string): string;
  /** Whether `mac` is sign(key, bytes), compared in constant time. */
  verify(key: string, bytes: string, mac: string): boolean;
}

/**
 * How many keys remember the record last verified under them. A warm session is read again and again with
 * the same bytes until it is rewritten; the HMAC took the gateway's CPU per warm get-session from 0.084 to
 * 0.099 ms (bench/run.ts get-session --redis), and comparing the bytes with those already verified costs
 * next to nothing. About 1 KB per key.
 */
const VERIFIED_KEPT = 2_048;

export function cacheMac(secret: string): CacheMac {
  // A KeyObject, made once (a raw Buffer key is imported again on every createHmac: session-token.ts).
  const key = createSecretKey(deriveKey(secret, CACHE_MAC_PURPOSE));
  // Cache keys never hold a NUL (they are a kind and a base64url hash), so key and bytes cannot run together.
  const digest = (cacheKey: string, bytes: string) => createHmac("sha256", key).update(cacheKey).update("\0").update(bytes).digest();
  // Per instance (per secret): verify is a pure function of key, bytes and MAC, so the same three verify
  // again without the HMAC. What is compared is what Redis holds, no secret, so the comparison may be plain.
  const verified = new Map<string, { bytes: string; mac: string }>();
  return {
    sign: (cacheKey, bytes) => digest(cacheKey, bytes).toString("base64url"),
    verify(cacheKey, bytes, mac) {
      const known = verified.get(cacheKey);
      if (known && known.mac === mac && known.bytes === bytes) return true;
      const given = Buffer.from(mac, "base64url");
      const expected = digest(cacheKey, bytes);
      if (!(given.length === expected.length && timingSafeEqual(given, expected))) return false;
      verified.delete(cacheKey);
      verified.set(cacheKey, { bytes, mac });
      // The oldest verified first: dropping it only costs its next read an HMAC.
      if (verified.size > VERIFIED_KEPT) verified.delete(verified.keys().next().value!);
      return true;
    },
  };
}
