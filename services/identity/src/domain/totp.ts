/**
 * RFC 6238 TOTP (HMAC-SHA1, 30 s steps, 6 digits: what every authenticator app defaults to) over RFC 4226
 * HOTP, and the otpauth:// URI apps scan. Small enough to own; totp.test.ts checks the RFC's vectors.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps of clock skew accepted either side of now (a code one step old or early still works). */
export const TOTP_SKEW_STEPS = 1;

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** RFC 4648 base32 without padding (the secret= parameter of an otpauth URI). */
export function base32Encode(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** The bytes of a base32 string (case and padding ignored); what an authenticator app does with secret=. */
export function base32Decode(text: string): Buffer {
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of text.toUpperCase().replace(/=+$/, "")) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error("not base32");
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** RFC 4226 HOTP: the `digits`-digit code of `counter` under `key`. */
export function hotp(key: Uint8Array, counter: number, digits = TOTP_DIGITS, algorithm: "sha1" | "sha256" | "sha512" = "sha1"): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm, key).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** digits;
  return binary.toString().padStart(digits, "0");
}

/** The time step of an instant. */
export const totpStep = (at: Date): number => Math.floor(at.getTime() / 1000 / TOTP_PERIOD_SECONDS);

/** The code of a time step. */
export const totpCode = (key: Uint8Array, step: number): string => hotp(key, step);

/**
 * The time step whose code `code` is, among now and TOTP_SKEW_STEPS either side, or null. Every candidate is
 * compared (in constant time), so the answer's timing says nothing about which step matched.
 */
export function matchTotp(key: Uint8Array, code: string, at: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const given = Buffer.from(code);
  const now = totpStep(at);
  let matched: number | null = null;
  for (let step = now - TOTP_SKEW_STEPS; step <= now + TOTP_SKEW_STEPS; step++) {
    if (timingSafeEqual(given, Buffer.from(totpCode(key, step))) && matched === null) matched = step;
  }
  return matched;
}

/** The otpauth:// URI authenticator apps scan: "issuer:account" as the label, the issuer again as a parameter. */
export function otpauthUri(key: Uint8Array, issuer: string, account: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const params = new URLSearchParams({
    secret: base32Encode(key),
    issuer,
    algorithm: "SHA1",
    digits: String(TOTP_DIGITS),
    period: String(TOTP_PERIOD_SECONDS),
  });
  return `otpauth://totp/${label}?${params.toString().replace(/\+/g, "%20")}`;
}
