import { describe, expect, it } from "vitest";
import { AuthError } from "@auth-platform/proto/errors";
import { CALLBACK_FIELDS, checkCallbackUrls, isTrustedOrigin, isTrustedUrl, originOf } from "./origins.js";

const TRUSTED = ["https://trusted.example.com", "http://127.0.0.1:3000"];

/** The catalogue code checkCallbackUrls throws, or null when it accepts. */
function codeOf(sources: Array<Record<string, unknown> | undefined>, trusted = TRUSTED): string | null {
  try {
    checkCallbackUrls(sources, trusted);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(AuthError);
    return (error as AuthError).code;
  }
}

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

describe("isTrustedUrl", () => {
  it("trusts relative paths on this site", () => {
    for (const url of ["/", "/dashboard", "/a/b?next=https://evil.com", "/callback#frag"]) {
      expect(isTrustedUrl(url, TRUSTED), url).toBe(true);
    }
  });

  it("trusts URLs on a trusted origin, whatever the path", () => {
    expect(isTrustedUrl("https://trusted.example.com/welcome?x=1", TRUSTED)).toBe(true);
    expect(isTrustedUrl("http://127.0.0.1:3000/", TRUSTED)).toBe(true);
  });

  it("refuses protocol-relative and backslash paths, which browsers send to another host", () => {
    for (const url of ["//evil.com", "//evil.com/path", "/\\evil.com", "/\\/evil.com", "\\\\evil.com", "/\t/evil.com", "/\n/evil.com"]) {
      expect(isTrustedUrl(url, TRUSTED), JSON.stringify(url)).toBe(false);
    }
  });

  it("refuses script and data URLs", () => {
    for (const url of ["javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,<script>alert(1)</script>", " javascript:alert(1)"]) {
      expect(isTrustedUrl(url, TRUSTED), url).toBe(false);
    }
  });

  it("refuses other origins, including look-alikes of a trusted one", () => {
    for (const url of [
      "http://evil.com",
      "https://evil.com/",
      "https://trusted.example.com.evil.com",
      "https://trusted.example.com.evil.com/path",
      "https://eviltrusted.example.com",
      "https://trusted.example.com@evil.com",
      "http://trusted.example.com",
      "https://trusted.example.com:8443",
      "evil.com",
      "",
    ]) {
      expect(isTrustedUrl(url, TRUSTED), url).toBe(false);
    }
  });
});

describe("isTrustedOrigin with a wildcard", () => {
  const wildcard = ["https://*.example.com"];

  it("matches one subdomain label", () => {
    expect(isTrustedOrigin("https://a.example.com", wildcard)).toBe(true);
    expect(isTrustedOrigin("https://app-2.example.com", wildcard)).toBe(true);
    expect(isTrustedUrl("https://a.example.com/path", wildcard)).toBe(true);
  });

  it("does not match the bare domain, another scheme, or a domain that merely contains it", () => {
    expect(isTrustedOrigin("https://example.com", wildcard)).toBe(false);
    expect(isTrustedOrigin("http://a.example.com", wildcard)).toBe(false);
    expect(isTrustedOrigin("https://example.com.evil.io", wildcard)).toBe(false);
    expect(isTrustedUrl("https://example.com.evil.io", wildcard)).toBe(false);
    expect(isTrustedUrl("https://a.example.com.evil.io/", wildcard)).toBe(false);
    expect(isTrustedOrigin("https://aexample.com", wildcard)).toBe(false);
  });

  it("does not match deeper subdomains", () => {
    expect(isTrustedUrl("https://a.b.example.com/..", wildcard)).toBe(false);
    expect(isTrustedOrigin("https://evil.io.example.com", wildcard)).toBe(false);
  });

  it("never trusts a null origin", () => {
    expect(isTrustedOrigin(null, wildcard)).toBe(false);
    expect(isTrustedOrigin(null, TRUSTED)).toBe(false);
  });
});

describe("checkCallbackUrls", () => {
  it("names each callback field's own catalogue code", () => {
    expect(CALLBACK_FIELDS).toEqual({
      callbackURL: "INVALID_CALLBACKURL",
      redirectTo: "INVALID_REDIRECTURL",
      errorCallbackURL: "INVALID_ERRORCALLBACKURL",
      newUserCallbackURL: "INVALID_NEWUSERCALLBACKURL",
    });
    expect(codeOf([{ callbackURL: "https://evil.com/x" }])).toBe("INVALID_CALLBACKURL");
    expect(codeOf([{ redirectTo: "https://evil.com/x" }])).toBe("INVALID_REDIRECTURL");
    expect(codeOf([{ errorCallbackURL: "https://evil.com/x" }])).toBe("INVALID_ERRORCALLBACKURL");
    expect(codeOf([{ newUserCallbackURL: "https://evil.com/x" }])).toBe("INVALID_NEWUSERCALLBACKURL");
  });

  it("answers 403 with the message naming the field", () => {
    try {
      checkCallbackUrls([{ callbackURL: "//evil.com" }], TRUSTED);
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ code: "INVALID_CALLBACKURL", http: 403, message: "Invalid callbackURL" });
    }
  });

  it("checks the query as well as the body", () => {
    expect(codeOf([{}, { redirectTo: "javascript:alert(1)" }])).toBe("INVALID_REDIRECTURL");
    expect(codeOf([undefined, { callbackURL: "https://evil.com" }])).toBe("INVALID_CALLBACKURL");
  });

  it("refuses a callback field that is not a string", () => {
    expect(codeOf([{ callbackURL: 5 }])).toBe("INVALID_CALLBACKURL");
    expect(codeOf([{ errorCallbackURL: ["/ok"] }])).toBe("INVALID_ERRORCALLBACKURL");
    expect(codeOf([{ newUserCallbackURL: { url: "/ok" } }])).toBe("INVALID_NEWUSERCALLBACKURL");
  });

  it("accepts relative and trusted URLs, and absent, null or empty fields", () => {
    expect(
      codeOf([
        { callbackURL: "/dashboard", redirectTo: "https://trusted.example.com/reset", errorCallbackURL: null, newUserCallbackURL: "" },
        { callbackURL: "http://127.0.0.1:3000/welcome" },
      ]),
    ).toBeNull();
    expect(codeOf([undefined, {}])).toBeNull();
    expect(codeOf([{ unrelated: "https://evil.com" }])).toBeNull();
  });
});
