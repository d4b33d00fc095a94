/** The MAC of shared cache records: bound to the secret, the cache key and every byte of the record. */
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { CACHE_MAC_LENGTH, CACHE_MAC_PURPOSE, cacheMac } from "./cache-mac.js";
import { deriveKey, LOOKUP_PURPOSE, SEAL_PURPOSE } from "./session-token.js";

const SECRET = "a-test-secret-0123456789-0123456789";
const OTHER = "another-secret-0123456789-0123456789";
const KEY = "session:Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4cXV1eHF1dXg";
const RECORD = JSON.stringify({ v: 3, user: { id: "u1", role: "user", name: "Zoë" }, validUntil: 1 });

describe("cache record MAC", () => {
  const mac = cacheMac(SECRET);

  it("verifies what it signed: 32 bytes, base64url", () => {
    const signed = mac.sign(KEY, RECORD);
    expect(signed).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(signed).toHaveLength(CACHE_MAC_LENGTH);
    expect(mac.verify(KEY, RECORD, signed)).toBe(true);
    expect(cacheMac(SECRET).verify(KEY, RECORD, signed)).toBe(true);
  });

  it("refuses a record changed by one byte, a role or a user id", () => {
    const signed = mac.sign(KEY, RECORD);
    expect(mac.verify(KEY, RECORD.replace('"role":"user"', '"role":"admin"'), signed)).toBe(false);
    expect(mac.verify(KEY, RECORD.replace('"id":"u1"', '"id":"u2"'), signed)).toBe(false);
    expect(mac.verify(KEY, `${RECORD} `, signed)).toBe(false);
    expect(mac.verify(KEY, RECORD.slice(0, -1), signed)).toBe(false);
  });

  it("refuses a record presented under another key (moved), even when key and bytes shift into each other", () => {
    const signed = mac.sign(KEY, RECORD);
    expect(mac.verify(`${KEY}x`, RECORD, signed)).toBe(false);
    expect(mac.verify("session:another", RECORD, signed)).toBe(false);
    expect(mac.verify(KEY.slice(0, -1), `${KEY.slice(-1)}${RECORD}`, signed)).toBe(false);
  });

  it("refuses a MAC made under another secret, and malformed MACs without throwing", () => {
    expect(mac.verify(KEY, RECORD, cacheMac(OTHER).sign(KEY, RECORD))).toBe(false);
    const signed = mac.sign(KEY, RECORD);
    for (const given of ["", "A", signed.slice(0, -1), `${signed}AA`, "!".repeat(CACHE_MAC_LENGTH), "A".repeat(CACHE_MAC_LENGTH)]) {
      expect(mac.verify(KEY, RECORD, given), given).toBe(false);
    }
  });

  it("after verifying a record, still refuses any other bytes, MAC or key (what it remembers is exactly what it checked)", () => {
    const remembering = cacheMac(SECRET);
    const signed = remembering.sign(KEY, RECORD);
    for (let i = 0; i < 3; i++) expect(remembering.verify(KEY, RECORD, signed)).toBe(true);
    expect(remembering.verify(KEY, RECORD.replace('"role":"user"', '"role":"admin"'), signed)).toBe(false);
    expect(remembering.verify(KEY, RECORD, `${signed.slice(0, -1)}A`)).toBe(false);
    expect(remembering.verify("session:another", RECORD, signed)).toBe(false);
    // Another secret's instance remembers nothing of this one.
    expect(cacheMac(OTHER).verify(KEY, RECORD, signed)).toBe(false);
    // Still verified after thousands of other keys pushed it out of what is remembered.
    for (let i = 0; i < 3_000; i++) remembering.verify(`session:${i}`, RECORD, remembering.sign(`session:${i}`, RECORD));
    expect(remembering.verify(KEY, RECORD, signed)).toBe(true);
    expect(remembering.verify(KEY, `${RECORD} `, signed)).toBe(false);
  });

  it("is HMAC-SHA256 under the HKDF key of its own purpose, not the secret nor another purpose's key", () => {
    const key = deriveKey(SECRET, CACHE_MAC_PURPOSE);
    const expected = createHmac("sha256", key).update(KEY).update("\0").update(RECORD).digest("base64url");
    expect(mac.sign(KEY, RECORD)).toBe(expected);
    for (const purpose of [LOOKUP_PURPOSE, SEAL_PURPOSE]) expect(deriveKey(SECRET, purpose).equals(key)).toBe(false);
    expect(createHmac("sha256", SECRET).update(KEY).update("\0").update(RECORD).digest("base64url")).not.toBe(expected);
  });
});
