import { scryptSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "./password.js";

describe("password hashing", () => {
  it("stores salt:hash in hex with a 16-byte salt and a 64-byte key", async () => {
    const stored = await hashPassword("correct horse battery");
    expect(stored).toMatch(/^[0-9a-f]{32}:[0-9a-f]{128}$/);
  });

  it("verifies the password it hashed and refuses another", async () => {
    const stored = await hashPassword("correct horse battery");
    expect(await verifyPassword(stored, "correct horse battery")).toBe(true);
    expect(await verifyPassword(stored, "correct horse batterY")).toBe(false);
    expect(await verifyPassword(stored, "")).toBe(false);
  });

  it("salts: the same password hashes differently twice", async () => {
    expect(await hashPassword("same password")).not.toBe(await hashPassword("same password"));
  });

  it("matches NFKC-equivalent passwords", async () => {
    // U+FB01 (the "fi" ligature) and U+2168 (Roman numeral nine) normalise to "fi" and "IX" under NFKC.
    const stored = await hashPassword("\uFB01ve-\u2168-password");
    expect(await verifyPassword(stored, "five-IX-password")).toBe(true);
  });

  it("uses exactly the specified scrypt parameters", async () => {
    const stored = await hashPassword("parameters-check");
    const [salt, hash] = stored.split(":");
    const expected = scryptSync("parameters-check", salt!, 64, { N: 16384, r: 16, p: 1, maxmem: 64 * 1024 * 1024 });
    expect(hash).toBe(expected.toString("hex"));
  });

  it("refuses malformed stored values instead of throwing", async () => {
    expect(await verifyPassword("not-a-hash", "x")).toBe(false);
    expect(await verifyPassword("abcd:zz", "x")).toBe(false);
  });
});
