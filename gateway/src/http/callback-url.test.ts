import { describe, expect, it } from "vitest";
import { AuthError } from "@auth-platform/proto/errors";
import { redirectCorpus } from "../../test/redirect-corpus.js";
import { CALLBACK_FIELDS, CallbackUrl, type RedirectPolicy, resolveCallbacks } from "./callback-url.js";

const APP = "https://app.example.com";
const SELF = "https://auth.example.com";
/** The web app on its own origin (AUTH_APP_URL set). */
const SPLIT: RedirectPolicy = { appOrigin: APP, selfOrigin: SELF, trusted: [SELF, APP, "https://trusted.example.com", "https://*.tenant.example.com"] };
/** The web app on the gateway's origin (AUTH_APP_URL unset). */
const SAME: RedirectPolicy = { appOrigin: SELF, selfOrigin: SELF, trusted: [SELF, "https://trusted.example.com"] };

/** Where a browser that got this Location from the gateway goes. */
const followed = (location: string) => new URL(location, `${SELF}/api/auth/reset-password/x`);

/** The catalogue code resolveCallbacks throws, or null when it accepts. */
function codeOf(source: Record<string, unknown> | undefined, policy = SPLIT): string | null {
  try {
    resolveCallbacks(source, policy);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(AuthError);
    return (error as AuthError).code;
  }
}

describe("CallbackUrl.resolve against the open-redirect corpus", () => {
  for (const [label, policy] of [
    ["app on its own origin", SPLIT],
    ["app on the gateway's origin", SAME],
  ] as const) {
    describe(label, () => {
      const corpus = redirectCorpus(policy.appOrigin);

      it("refuses every bypass that leaves the trusted origins", () => {
        for (const value of corpus.refused) expect(CallbackUrl.resolve(value, policy), JSON.stringify(value)).toBeNull();
      });

      it("resolves the relative-looking ones onto the app origin, and the Location stays there", () => {
        for (const value of corpus.staysOnApp) {
          const url = CallbackUrl.resolve(value, policy);
          expect(url, JSON.stringify(value)).not.toBeNull();
          for (const location of [url!.location(), url!.location({ token: "t0k3n" }), url!.toString()]) {
            expect(location, JSON.stringify(value)).not.toMatch(/^(\/\/|\/\\|\\)/);
            expect(followed(location).origin, `${JSON.stringify(value)} -> ${location}`).toBe(policy.appOrigin);
          }
          expect(followed(url!.location({ token: "t0k3n" })).searchParams.get("token")).toBe("t0k3n");
        }
      });
    });
  }

  it("writes a path that resolves to // as an absolute URL, never as //host", () => {
    for (const value of ["/.//evil.example", "/..//evil.example", "/%2e//evil.example", "/%2e%2e//evil.example"]) {
      expect(CallbackUrl.resolve(value, SAME)!.location({ token: "x" }), value).toBe(`${SELF}//evil.example?token=x`);
      expect(CallbackUrl.resolve(value, SPLIT)!.location({ token: "x" }), value).toBe(`${APP}//evil.example?token=x`);
    }
  });

  it("keeps a relative callback on the gateway's origin relative, as better-auth does", () => {
    expect(CallbackUrl.resolve("/dashboard", SAME)!.location()).toBe("/dashboard");
    expect(CallbackUrl.resolve("/done?x=1#top", SAME)!.location({ error: "invalid_token" })).toBe("/done?x=1&error=invalid_token#top");
    expect(CallbackUrl.resolve("//auth.example.com/x", SAME)!.location()).toBe("/x");
    // An absolute callback stays absolute, normalised.
    expect(CallbackUrl.resolve(`${SELF}/after`, SAME)!.location()).toBe(`${SELF}/after`);
    expect(CallbackUrl.resolve(`${SELF}//evil.example`, SAME)!.location()).toBe(`${SELF}//evil.example`);
  });

  it("resolves a relative callback against the app origin, not the gateway's", () => {
    expect(CallbackUrl.resolve("/dashboard", SPLIT)!.location()).toBe(`${APP}/dashboard`);
    expect(CallbackUrl.resolve("/reset", SPLIT)!.location({ token: "abc" })).toBe(`${APP}/reset?token=abc`);
  });

  it("accepts absolute URLs on trusted origins, wildcards included, and writes them normalised", () => {
    expect(CallbackUrl.resolve("https://trusted.example.com/welcome?x=1", SPLIT)!.location()).toBe("https://trusted.example.com/welcome?x=1");
    expect(CallbackUrl.resolve("HTTPS://TRUSTED.EXAMPLE.COM:443/a/./b/../c", SPLIT)!.location()).toBe("https://trusted.example.com/a/c");
    expect(CallbackUrl.resolve("https://a.tenant.example.com/x", SPLIT)!.location()).toBe("https://a.tenant.example.com/x");
    expect(CallbackUrl.resolve("https://\uff41\uff50\uff50.example.com/", SPLIT)!.location()).toBe(`${APP}/`);
    expect(CallbackUrl.resolve("https://a.b.tenant.example.com/x", SPLIT)).toBeNull();
    expect(CallbackUrl.resolve("//trusted.example.com/x", SPLIT)!.location()).toBe("https://trusted.example.com/x");
  });

  it("sets parameters through the URL API, so a value cannot add a parameter or a fragment", () => {
    const location = CallbackUrl.resolve("/reset?token=old", SAME)!.location({ token: "a&b=c#d" });
    expect(location).toBe("/reset?token=a%26b%3Dc%23d");
  });
});

describe("resolveCallbacks", () => {
  it("names each callback field's own catalogue code", () => {
    expect(CALLBACK_FIELDS).toEqual({
      callbackURL: "INVALID_CALLBACKURL",
      redirectTo: "INVALID_REDIRECTURL",
      errorCallbackURL: "INVALID_ERRORCALLBACKURL",
      newUserCallbackURL: "INVALID_NEWUSERCALLBACKURL",
    });
    expect(codeOf({ callbackURL: "https://evil.com/x" })).toBe("INVALID_CALLBACKURL");
    expect(codeOf({ redirectTo: "/.//evil.com" })).toBeNull();
    expect(codeOf({ redirectTo: "/\t/evil.com" })).toBe("INVALID_REDIRECTURL");
    expect(codeOf({ errorCallbackURL: "https://evil.com/x" })).toBe("INVALID_ERRORCALLBACKURL");
    expect(codeOf({ newUserCallbackURL: "javascript:alert(1)" })).toBe("INVALID_NEWUSERCALLBACKURL");
  });

  it("answers 403 with the message naming the field", () => {
    expect(() => resolveCallbacks({ callbackURL: "//evil.com" }, SPLIT)).toThrow(
      expect.objectContaining({ code: "INVALID_CALLBACKURL", http: 403, message: "Invalid callbackURL" }),
    );
  });

  it("refuses a callback field that is not a string", () => {
    expect(codeOf({ callbackURL: 5 })).toBe("INVALID_CALLBACKURL");
    expect(codeOf({ errorCallbackURL: ["/ok"] })).toBe("INVALID_ERRORCALLBACKURL");
    expect(codeOf({ newUserCallbackURL: { url: "/ok" } })).toBe("INVALID_NEWUSERCALLBACKURL");
  });

  it("resolves every present field, and leaves absent, null or empty ones out", () => {
    const resolved = resolveCallbacks(
      { callbackURL: "/dashboard", redirectTo: "https://trusted.example.com/reset", errorCallbackURL: null, newUserCallbackURL: "", unrelated: "https://evil.com" },
      SPLIT,
    );
    expect(Object.keys(resolved).sort()).toEqual(["callbackURL", "redirectTo"]);
    expect(String(resolved.callbackURL)).toBe(`${APP}/dashboard`);
    expect(String(resolved.redirectTo)).toBe("https://trusted.example.com/reset");
    expect(resolveCallbacks(undefined, SPLIT)).toEqual({});
  });
});
