import { describe, expect, it } from "vitest";
import { isTrustedOrigin, originOf } from "./origins.js";

const TRUSTED = ["https://trusted.example.com", "http://127.0.0.1:3000"];

describe("originOf", () => {
  it("gives the origin of http and https URLs only", () => {
    expect(originOf("https://Trusted.Example.com:443/path?q=1#x")).toBe("https://trusted.example.com");
    expect(originOf("http://127.0.0.1:3000/a")).toBe("http://127.0.0.1:3000");
    expect(originOf("javascript:alert(1)")).toBeNull();
    expect(originOf("data:text/html,hi")).toBeNull();
    expect(originOf("/relative")).toBeNull();
    expect(originOf("not a url")).toBeNull();
  });
});

describe("isTrustedOrigin with a wildcard", () => {
  const wildcard = ["https://*.example.com"];

  it("matches one subdomain label", () => {
    expect(isTrustedOrigin("https://a.example.com", wildcard)).toBe(true);
    expect(isTrustedOrigin("https://app-2.example.com", wildcard)).toBe(true);
  });

  it("does not match the bare domain, another scheme, or a domain that merely contains it", () => {
    expect(isTrustedOrigin("https://example.com", wildcard)).toBe(false);
    expect(isTrustedOrigin("http://a.example.com", wildcard)).toBe(false);
    expect(isTrustedOrigin("https://example.com.evil.io", wildcard)).toBe(false);
    expect(isTrustedOrigin("https://a.example.com.evil.io", wildcard)).toBe(false);
    expect(isTrustedOrigin("https://aexample.com", wildcard)).toBe(false);
  });

  it("does not match deeper subdomains", () => {
    expect(isTrustedOrigin("https://a.b.example.com", wildcard)).toBe(false);
    expect(isTrustedOrigin("https://evil.io.example.com", wildcard)).toBe(false);
  });

  it("matches exact origins only, without a wildcard", () => {
    expect(isTrustedOrigin("https://trusted.example.com", TRUSTED)).toBe(true);
    expect(isTrustedOrigin("https://trusted.example.com.evil.com", TRUSTED)).toBe(false);
    expect(isTrustedOrigin("http://trusted.example.com", TRUSTED)).toBe(false);
    expect(isTrustedOrigin("http://127.0.0.1:3001", TRUSTED)).toBe(false);
  });

  it("never trusts a null origin", () => {
    expect(isTrustedOrigin(null, wildcard)).toBe(false);
    expect(isTrustedOrigin(null, TRUSTED)).toBe(false);
  });
});
