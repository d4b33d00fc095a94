import { describe, expect, it } from "vitest";
import { emailDomain, normaliseDomain } from "./domain-name.js";

describe("normaliseDomain", () => {
  it("lower-cases, trims and drops a trailing dot", () => {
    expect(normaliseDomain("  Example.COM. ")).toEqual({ ok: true, domain: "example.com" });
  });

  it("spells an internationalised domain in punycode, however it is given", () => {
    expect(normaliseDomain("Bücher.de")).toEqual({ ok: true, domain: "xn--bcher-kva.de" });
    expect(normaliseDomain("xn--bcher-kva.de")).toEqual({ ok: true, domain: "xn--bcher-kva.de" });
  });

  it("accepts a registrable domain under a multi-label suffix, and a sub-domain", () => {
    expect(normaliseDomain("example.co.uk")).toEqual({ ok: true, domain: "example.co.uk" });
    expect(normaliseDomain("eng.example.com")).toEqual({ ok: true, domain: "eng.example.com" });
    expect(normaliseDomain("team.github.io")).toEqual({ ok: true, domain: "team.github.io" });
  });

  it.each(["com", "co.uk", "COM.", "github.io", "localhost", "uk"])("refuses the public suffix %s", (input) => {
    expect(normaliseDomain(input)).toEqual({ ok: false, refusal: "public-suffix" });
  });

  it.each([
    "",
    "   ",
    "https://example.com",
    "example.com/path",
    "user@example.com",
    "example.com:443",
    "*.example.com",
    "a..example.com",
    "-bad.example.com",
    "bad-.example.com",
    "under_score.example.com",
    "192.168.0.1",
    "[::1]",
    "example.123",
    `${"a".repeat(64)}.example.com`,
    `${"abcdefghi.".repeat(26)}com`,
  ])("refuses %j as not a host name", (input) => {
    expect(normaliseDomain(input)).toEqual({ ok: false, refusal: "invalid" });
  });
});

describe("emailDomain", () => {
  it("is the canonical domain after the last @", () => {
    expect(emailDomain("Jane@Example.COM")).toBe("example.com");
    expect(emailDomain('"a@b"@bücher.de')).toBe("xn--bcher-kva.de");
  });

  it("is undefined without a usable domain", () => {
    expect(emailDomain("jane")).toBeUndefined();
    expect(emailDomain("@example.com")).toBeUndefined();
    expect(emailDomain("jane@")).toBeUndefined();
    expect(emailDomain("jane@com")).toBeUndefined();
  });
});
