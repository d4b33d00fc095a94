import { describe, expect, it } from "vitest";
import { ConfigError } from "@auth-platform/runtime/config";
import { DERIVED_KEY_ID, twoFactorKeys } from "../two-factor-keys.js";
import { codeHash, codeHashCandidates, open, seal } from "./secret-box.js";

const SECRET = "auth-secret-0123456789-0123456789-0123456789";
const KEY_A = Buffer.alloc(32, 1).toString("base64");
const KEY_B = Buffer.alloc(32, 2).toString("base64");

describe("two-factor secret box", () => {
  it("without dedicated keys, one key derived from AUTH_SECRET seals and opens", () => {
    const keys = twoFactorKeys(undefined, SECRET);
    const sealed = seal(keys, Buffer.from("totp secret"));
    expect(sealed.startsWith(`${DERIVED_KEY_ID}.`)).toBe(true);
    expect(sealed).not.toContain(Buffer.from("totp secret").toString("base64url"));
    expect(open(keys, sealed)).toEqual({ plaintext: Buffer.from("totp secret"), stale: false });
    // Another AUTH_SECRET cannot open it.
    expect(() => open(twoFactorKeys(undefined, `${SECRET}x`), sealed)).toThrow();
  });

  it("rotation: a secret sealed under the old key opens once the new key is listed first, and is reported stale", () => {
    const old = twoFactorKeys(`a:${KEY_A}`, SECRET);
    const sealed = seal(old, Buffer.from("s"));
    const rotated = twoFactorKeys(`b:${KEY_B},a:${KEY_A}`, SECRET);
    expect(open(rotated, sealed)).toEqual({ plaintext: Buffer.from("s"), stale: true });
    expect(seal(rotated, Buffer.from("s")).startsWith("b.")).toBe(true);
    expect(() => open(twoFactorKeys(`b:${KEY_B}`, SECRET), sealed)).toThrow(/unknown key "a"/);
  });

  it("a tampered ciphertext, or one moved under another key id, fails to open", () => {
    const keys = twoFactorKeys(`a:${KEY_A},b:${KEY_A}`, SECRET);
    const sealed = seal(keys, Buffer.from("secret"));
    const [id, iv, ct, tag] = sealed.split(".");
    const flipped = Buffer.from(ct!, "base64url");
    flipped[0]! ^= 1;
    expect(() => open(keys, [id, iv, flipped.toString("base64url"), tag].join("."))).toThrow();
    expect(() => open(keys, ["b", iv, ct, tag].join("."))).toThrow();
  });

  it("code hashes carry the key id; every listed key gives a candidate", () => {
    const keys = twoFactorKeys(`b:${KEY_B},a:${KEY_A}`, SECRET);
    const stored = codeHash(twoFactorKeys(`a:${KEY_A}`, SECRET), "abcde12345");
    expect(codeHashCandidates(keys, "abcde12345")).toContain(stored);
    expect(codeHashCandidates(keys, "abcde12346")).not.toContain(stored);
  });

  it("bad IDENTITY_TWO_FACTOR_KEYS are refused at boot without echoing the key", () => {
    for (const bad of ["nocolon", `:${KEY_A}`, "a:c2hvcnQ=", `a:${KEY_A},a:${KEY_B}`, `bad id:${KEY_A}`]) {
      let error: unknown;
      try {
        twoFactorKeys(bad, SECRET);
      } catch (e) {
        error = e;
      }
      expect(error, bad).toBeInstanceOf(ConfigError);
      expect(String((error as Error).message)).not.toContain(KEY_A);
    }
  });
});
