import { describe, expect, it } from "vitest";
import { base32Decode, base32Encode, hotp, matchTotp, otpauthUri, totpCode, totpStep } from "./totp.js";

// RFC 6238 appendix B: the seeds are the ASCII digits "1234567890" repeated to the hash's key length.
const SEED_SHA1 = Buffer.from("12345678901234567890");
const SEED_SHA256 = Buffer.from("12345678901234567890123456789012");
const SEED_SHA512 = Buffer.from("1234567890123456789012345678901234567890123456789012345678901234");

const VECTORS: Array<[seconds: number, sha1: string, sha256: string, sha512: string]> = [
  [59, "94287082", "46119246", "90693936"],
  [1111111109, "07081804", "68084774", "25091201"],
  [1111111111, "14050471", "67062674", "99943326"],
  [1234567890, "89005924", "91819424", "93441116"],
  [2000000000, "69279037", "90698825", "38618901"],
  [20000000000, "65353130", "77737706", "47863826"],
];

describe("TOTP (RFC 6238)", () => {
  it.each(VECTORS)("the RFC's 8-digit vectors at T=%i s", (seconds, sha1, sha256, sha512) => {
    const step = totpStep(new Date(seconds * 1000));
    expect(hotp(SEED_SHA1, step, 8, "sha1")).toBe(sha1);
    expect(hotp(SEED_SHA256, step, 8, "sha256")).toBe(sha256);
    expect(hotp(SEED_SHA512, step, 8, "sha512")).toBe(sha512);
  });

  it("six digits are the last six of the RFC's code (what authenticator apps show)", () => {
    expect(totpCode(SEED_SHA1, totpStep(new Date(1111111109_000)))).toBe("081804");
  });

  it("RFC 4226 appendix D HOTP values", () => {
    const expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"];
    expect(expected.map((_, counter) => hotp(SEED_SHA1, counter))).toEqual(expected);
  });

  it("accepts the current step and one step either side; two steps old or ahead are refused", () => {
    const at = new Date(1_700_000_000_000);
    const now = totpStep(at);
    expect(matchTotp(SEED_SHA1, totpCode(SEED_SHA1, now), at)).toBe(now);
    expect(matchTotp(SEED_SHA1, totpCode(SEED_SHA1, now - 1), at)).toBe(now - 1);
    expect(matchTotp(SEED_SHA1, totpCode(SEED_SHA1, now + 1), at)).toBe(now + 1);
    expect(matchTotp(SEED_SHA1, totpCode(SEED_SHA1, now - 2), at)).toBeNull();
    expect(matchTotp(SEED_SHA1, totpCode(SEED_SHA1, now + 2), at)).toBeNull();
  });

  it("refuses anything but six digits", () => {
    const at = new Date(1_700_000_000_000);
    for (const code of ["", "12345", "1234567", "12345a", " 123456"]) expect(matchTotp(SEED_SHA1, code, at)).toBeNull();
  });

  it("base32 encodes as RFC 4648 (no padding)", () => {
    expect(base32Encode(Buffer.from("foobar"))).toBe("MZXW6YTBOI");
    expect(base32Encode(Buffer.from("f"))).toBe("MY");
    expect(base32Encode(SEED_SHA1)).toBe("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
    expect(base32Decode("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")).toEqual(SEED_SHA1);
    expect(base32Decode("mzxw6ytboi")).toEqual(Buffer.from("foobar"));
  });

  it("the otpauth URI names the application and the account", () => {
    const uri = new URL(otpauthUri(SEED_SHA1, "Acme Auth", "ada@example.com"));
    expect(uri.protocol).toBe("otpauth:");
    expect(uri.host).toBe("totp");
    expect(decodeURIComponent(uri.pathname)).toBe("/Acme Auth:ada@example.com");
    expect(uri.searchParams.get("secret")).toBe("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
    expect(uri.searchParams.get("issuer")).toBe("Acme Auth");
    expect(uri.searchParams.get("digits")).toBe("6");
    expect(uri.searchParams.get("period")).toBe("30");
  });
});
