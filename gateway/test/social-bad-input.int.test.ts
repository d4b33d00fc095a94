/**
 * Bad input to the social routes: a clear 400 (or the catalogue's 403/404) with the catalogue's message,
 * never a 500; malformed callbacks end in a redirect with a code, never a stack trace.
 */
import { describe, expect, it } from "vitest";
import { postJson, useSocialPlatform } from "../../testing/social-platform.js";

const social = useSocialPlatform();
const signIn = (body: unknown) => postJson(social.browser(), `${social.platform.baseURL}/sign-in/social`, body);

describe("POST /sign-in/social with bad input", () => {
  it.each([
    ["no body fields", {}],
    ["a provider that is not a string", { provider: 5 }],
    ["an over-long provider", { provider: "g".repeat(65) }],
    ["scopes that are not a list", { provider: "google", scopes: "openid" }],
    ["an id token without its token", { provider: "google", idToken: {} }],
    ["an id token expiry that is not a number", { provider: "google", idToken: { token: "x", expiresAt: "soon" } }],
    ["disableRedirect that is not a boolean", { provider: "google", disableRedirect: "yes" }],
  ])("%s: 400 VALIDATION_ERROR", async (_label, body) => {
    const res = await signIn(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
  });

  it.each([
    ["callbackURL", "INVALID_CALLBACKURL", "Invalid callbackURL"],
    ["errorCallbackURL", "INVALID_ERRORCALLBACKURL", "Invalid errorCallbackURL"],
    ["newUserCallbackURL", "INVALID_NEWUSERCALLBACKURL", "Invalid newUserCallbackURL"],
  ])("an untrusted %s: 403", async (field, code, message) => {
    const res = await signIn({ provider: "google", [field]: "https://evil.example/steal" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ code, message });
  });

  it("an unconfigured or unknown provider: 404 Provider not found", async () => {
    for (const provider of ["github", "myspace"]) {
      const res = await signIn({ provider, callbackURL: "/" });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: "PROVIDER_NOT_FOUND", message: "Provider not found" });
    }
  });

  it("an id token that is not a JWT: 400 invalid token; for an unconfigured provider: 404", async () => {
    expect((await signIn({ provider: "google", idToken: { token: "not-a-jwt" } })).body).toEqual({ code: "INVALID_TOKEN", message: "invalid token" });
    expect((await signIn({ provider: "github", idToken: { token: "x" } })).status).toBe(404);
  });
});

describe("callbacks with bad input", () => {
  it("a repeated or over-long parameter ends in a redirect with invalid_callback_request", async () => {
    for (const query of ["code=a&code=b&state=s", `state=${"s".repeat(300)}`]) {
      const res = await social.browser().request(`${social.platform.baseURL}/callback/google?${query}`);
      expect(res.status).toBe(302);
      expect(new URL(res.headers.get("location")!).searchParams.get("error")).toBe("invalid_callback_request");
    }
  });

  it("a callback for a provider that is not configured, without a state: state_not_found", async () => {
    const res = await social.browser().request(`${social.platform.baseURL}/callback/myspace?code=x`);
    expect(new URL(res.headers.get("location")!).searchParams.get("error")).toBe("state_not_found");
  });

  it("a form POST that is not a form: redirected with what it carried, never a 500", async () => {
    const res = await social.browser().request(`${social.platform.baseURL}/callback/google`, { method: "POST", headers: { "content-type": "text/plain" }, body: "code=x" });
    expect(res.status).toBe(302);
  });
});

describe("POST /link-social with bad input", () => {
  it("needs a session (401) and a provider (400)", async () => {
    const flow = social.browser();
    expect((await postJson(flow, `${social.platform.baseURL}/link-social`, { provider: "google" })).status).toBe(401);
    const email = social.anAccount("bad-link").email;
    expect((await postJson(flow, `${social.platform.baseURL}/sign-up/email`, { email, password: "correct horse battery", name: "B" })).status).toBe(200);
    const res = await postJson(flow, `${social.platform.baseURL}/link-social`, { callbackURL: "/" });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    expect((await postJson(flow, `${social.platform.baseURL}/link-social`, { provider: "google", callbackURL: "https://evil.example" })).status).toBe(403);
  });
});

describe("the origin check", () => {
  it("exempts only the provider's form POST to /callback/:id; /link-social from another site with cookies is 403", async () => {
    const flow = social.browser();
    const email = social.anAccount("origin").email;
    expect((await postJson(flow, `${social.platform.baseURL}/sign-up/email`, { email, password: "correct horse battery", name: "O" })).status).toBe(200);
    const linked = await postJson(flow, `${social.platform.baseURL}/link-social`, { provider: "google", callbackURL: "/" }, "https://evil.example");
    expect(linked.status).toBe(403);
    expect(linked.body.code).toBe("INVALID_ORIGIN");
    const signIn = await postJson(flow, `${social.platform.baseURL}/sign-in/social`, { provider: "google" }, "https://evil.example");
    expect(signIn.status).toBe(403);
    const callback = await flow.request(`${social.platform.baseURL}/callback/google`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://appleid.apple.com" },
      body: "code=x&state=y",
    });
    expect(callback.status).toBe(302);
  });
});
