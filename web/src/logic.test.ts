// @vitest-environment happy-dom
/** The app's rules that need no browser: where a sign-in may return to, password rules, devices, error sentences, the API's base path. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { api, ApiError } from "./api";
import { shownImage } from "./avatar";
import { placeError } from "./components";
import { errorSentence } from "./error-codes";
import { passwordRules } from "./password-rules";
import { apiBasePath } from "./runtime-config";
import { safeRedirect } from "./safe-redirect";
import { describeSignInMethod } from "./sign-in-method";
import { describeUserAgent } from "./user-agent";

describe("shownImage", () => {
  it.each(["https://img.example/a.png", "data:image/webp;base64,UklGRg==", "data:image/png;base64,iVBORw0KGgo="])("shows %s", (image) => {
    expect(shownImage(image)).toBe(image);
  });

  it.each([
    "javascript:alert(1)",
    "data:image/svg+xml;base64,PHN2Zz4=",
    "data:text/html,<script>",
    "http://img.example/a.png",
    " javascript:alert(1)",
    `https://img.example/${"a".repeat(2048)}`,
    "",
    null,
  ])("shows nothing for %j", (image) => {
    expect(shownImage(image)).toBeNull();
  });
});

describe("safeRedirect", () => {
  it("keeps a path on this origin, query and fragment included", () => {
    expect(safeRedirect("/account")).toBe("/account");
    expect(safeRedirect("/accept-invitation/abc?x=1#y")).toBe("/accept-invitation/abc?x=1#y");
  });

  it.each(["//evil.example", "/\\evil.example", "https://evil.example/", "javascript:alert(1)", "evil.example", "/\tevil", "", undefined, 42])("refuses %j", (value) => {
    expect(safeRedirect(value)).toBe("/account");
  });
});

describe("passwordRules", () => {
  it("marks the length rules as met or not as one types", () => {
    expect(passwordRules("short").map((r) => r.met)).toEqual([false, true]);
    expect(passwordRules("eight ch").map((r) => r.met)).toEqual([true, true]);
    expect(passwordRules("x".repeat(129)).map((r) => r.met)).toEqual([true, false]);
  });

  it("counts characters, not UTF-16 units", () => {
    expect(passwordRules("😀".repeat(7))[0]!.met).toBe(false);
  });
});

describe("describeUserAgent", () => {
  it.each([
    ["Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36", "Chrome on Linux"],
    ["Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1", "Safari on iPhone"],
    ["Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0", "Firefox on Windows"],
    ["Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36 Edg/126.0", "Edge on Windows"],
    ["curl/8.5.0", "curl"],
    [null, "Unknown device"],
  ])("%s -> %s", (ua, expected) => {
    expect(describeUserAgent(ua)).toBe(expected);
  });
});

describe("describeSignInMethod", () => {
  it.each([
    [{ authMethod: "password", secondFactor: null }, "signed in with a password"],
    [{ authMethod: "passkey", secondFactor: null }, "signed in with a passkey"],
    [{ authMethod: "social:google", secondFactor: "totp" }, "signed in with Google and an authenticator code"],
    [{ authMethod: "password", secondFactor: "trusted-device" }, "signed in with a password and a trusted device"],
    [{ authMethod: "email-otp", secondFactor: "backup-code" }, "signed in with an emailed code and a backup code"],
    [{ authMethod: null, secondFactor: null }, null],
  ])("%o -> %s", (session, expected) => {
    expect(describeSignInMethod(session)).toBe(expected);
  });

  it("names a generic provider by its display name", () => {
    expect(describeSignInMethod({ authMethod: "social:corp-sso", secondFactor: null }, { "corp-sso": "Corp SSO" })).toBe("signed in with Corp SSO");
  });
});

describe("errorSentence", () => {
  it("has a sentence for every redirect code (docs/http-api.md#redirect-error-codes) and a general one for the rest", () => {
    const generic = errorSentence("no_such_code");
    for (const code of [
      "token_expired",
      "invalid_token",
      "user_not_found",
      "unauthorized",
      "INVALID_TOKEN",
      "invalid_callback_request",
      "state_not_found",
      "no_code",
      "oauth_provider_not_found",
      "please_restart_the_process",
      "unable_to_get_user_info",
      "email_not_found",
      "email_doesn't_match",
      "unable_to_link_account",
      "internal_server_error",
      "account_not_linked",
      "unable_to_create_user",
      "unable_to_create_session",
    ]) {
      expect(errorSentence(code), code).not.toBe(generic);
    }
  });
});

describe("placeError", () => {
  it("puts an error next to the field its code names when the form has it, else at the top", () => {
    const taken = new ApiError(422, "USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER", "username is already taken. please try another.");
    expect(placeError(taken, ["email", "username"])).toEqual({ field: "username", message: "username is already taken. please try another." });
    expect(placeError(taken, ["email"])).toEqual({ message: "username is already taken. please try another." });
    expect(placeError(new ApiError(400, "PASSWORD_TOO_SHORT", "Password too short"), ["newPassword"], { password: "newPassword" })).toEqual({
      field: "newPassword",
      message: "Password too short",
    });
    expect(placeError(new TypeError("fetch failed"), ["email"])).toEqual({ message: "The server could not be reached. Check your connection and try again." });
  });
});

describe("the API's base path", () => {
  const page = (meta?: string) => {
    const doc = document.implementation.createHTMLDocument("app");
    if (meta !== undefined) doc.head.insertAdjacentHTML("beforeend", `<meta name="auth-api-base-path" content="${meta}">`);
    return doc;
  };

  it("is the one the server wrote into the page, /api/auth without one or with a value that is not a local path", () => {
    expect(apiBasePath(page("/auth"))).toBe("/auth");
    expect(apiBasePath(page("/tenant/auth/"))).toBe("/tenant/auth");
    for (const bad of [undefined, "", "/", "//evil.example", "https://evil.example/api", "auth"]) expect(apiBasePath(page(bad)), String(bad)).toBe("/api/auth");
  });

  it("is where every call of the client goes", async () => {
    document.head.insertAdjacentHTML("beforeend", '<meta name="auth-api-base-path" content="/auth">');
    const urls: string[] = [];
    vi.stubGlobal("fetch", async (url: string) => {
      urls.push(url);
      return new Response("null", { status: 200, headers: { "content-type": "application/json" } });
    });
    try {
      await api.getSession();
      await api.signOut();
      expect(urls).toEqual(["/auth/get-session", "/auth/sign-out"]);
    } finally {
      vi.unstubAllGlobals();
      document.head.querySelector('meta[name="auth-api-base-path"]')?.remove();
    }
  });
});

describe("the API client under a capacity refusal (503 with Retry-After)", () => {
  const busy = (seconds?: string) =>
    new Response(JSON.stringify({ code: "SERVICE_UNAVAILABLE", message: "Service temporarily unavailable. Please try again." }), {
      status: 503,
      headers: { "content-type": "application/json", ...(seconds ? { "retry-after": seconds } : {}) },
    });
  const signedIn = () => new Response(JSON.stringify({ token: "t", user: { id: "u" } }), { status: 200, headers: { "content-type": "application/json" } });
  const credentials = { email: "ada@example.com", password: "correct horse", rememberMe: true };

  async function answering(...responses: Array<() => Response>) {
    const calls: Array<{ at: number; body: unknown }> = [];
    vi.useFakeTimers();
    vi.stubGlobal("fetch", async (_url: string, init?: RequestInit) => {
      calls.push({ at: Date.now(), body: init?.body });
      return responses[Math.min(calls.length - 1, responses.length - 1)]!();
    });
    return calls;
  }

  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("waits as long as the server asks and sends the same request again", async () => {
    const calls = await answering(() => busy("2"), signedIn);
    const result = api.signInEmail(credentials);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(result).resolves.toMatchObject({ token: "t" });
    expect(calls).toHaveLength(2);
    expect(calls[1]!.at - calls[0]!.at).toBe(2_000);
    expect(calls[1]!.body).toBe(calls[0]!.body);
  });

  it("gives up after two waits and shows the server's message", async () => {
    const calls = await answering(() => busy("1"));
    const result = api.signInEmail(credentials).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await result).toMatchObject({ status: 503, message: "Service temporarily unavailable. Please try again." });
    expect(calls).toHaveLength(3);
  });

  it.each([
    ["a long wait", "60"],
    ["no Retry-After (the cause is not capacity)", undefined],
  ])("answers at once with %s", async (_case, seconds) => {
    const calls = await answering(() => busy(seconds));
    await expect(api.signInEmail(credentials)).rejects.toBeInstanceOf(ApiError);
    expect(calls).toHaveLength(1);
  });
});
