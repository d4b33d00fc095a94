import { describe, expect, it } from "vitest";
import { AuthError } from "@auth-platform/proto/errors";
import { completeSignIn } from "./complete-sign-in.js";
import { CODE_VERIFIER_LENGTH, STATE_LENGTH, startSignIn } from "./start-sign-in.js";
import { fakeProvider, testRegistry, type TestRegistry } from "../../test/test-registry.js";

const client = { ipAddress: "203.0.113.5" };
const start = (deps: TestRegistry, extra: Partial<Parameters<typeof startSignIn>[1]> = {}) =>
  startSignIn(deps, {
    providerId: "github",
    callbackUrl: "https://app.example/dashboard",
    errorUrl: "https://app.example/oops",
    newUserUrl: "https://app.example/welcome",
    ...extra,
  });
const callback = (deps: TestRegistry, state: string | undefined, extra: Partial<Parameters<typeof completeSignIn>[1]> = {}) =>
  completeSignIn(deps, { providerId: "github", code: "the-code", state, client, ...extra });

describe("social sign-in flow", () => {
  it("stores a 32-character state and a 128-character verifier for 10 minutes and redirects to the provider", async () => {
    const deps = testRegistry();
    const { url, state } = await start(deps);
    expect(state).toHaveLength(STATE_LENGTH);
    expect(url).toContain(`state=${state}`);
    expect(url).toContain(encodeURIComponent("https://auth.example.com/api/auth/callback/github"));
    const outcome = await callback(deps, state);
    expect(outcome).toMatchObject({ kind: "signed-in", redirectUrl: "https://app.example/welcome", isNewUser: true });
    const [used] = deps.provider.completed;
    expect(used!.codeVerifier).toHaveLength(CODE_VERIFIER_LENGTH);
    expect(used!.redirectUri).toBe("https://auth.example.com/api/auth/callback/github");
    expect(deps.signedIn[0]).toMatchObject({ providerId: "github", accountId: "42", email: "ada@example.com" });
  });

  it("sends a returning user to the callback URL, not the new-user one", async () => {
    const deps = testRegistry();
    deps.knownEmails.add("ada@example.com");
    expect(await callback(deps, (await start(deps)).state)).toMatchObject({ kind: "signed-in", redirectUrl: "https://app.example/dashboard", isNewUser: false });
  });

  it("uses a state once", async () => {
    const deps = testRegistry();
    const { state } = await start(deps);
    expect((await callback(deps, state)).kind).toBe("signed-in");
    expect(await callback(deps, state)).toEqual({ kind: "failed", error: "state_not_found" });
  });

  it("refuses a state older than 10 minutes, and it is gone afterwards", async () => {
    const deps = testRegistry();
    const { state } = await start(deps);
    deps.advance(10 * 60_000);
    expect(await callback(deps, state)).toMatchObject({ kind: "failed", error: "please_restart_the_process", errorUrl: "https://app.example/oops" });
    expect(deps.provider.completed).toHaveLength(0);
    expect(await callback(deps, state)).toEqual({ kind: "failed", error: "state_not_found" });
  });

  it("accepts a state just under 10 minutes old", async () => {
    const deps = testRegistry();
    const { state } = await start(deps);
    deps.advance(10 * 60_000 - 1);
    expect((await callback(deps, state)).kind).toBe("signed-in");
  });

  it("answers each failure with its redirect code and the state's error URL", async () => {
    const deps = testRegistry();
    expect(await callback(deps, undefined)).toEqual({ kind: "failed", error: "state_not_found" });
    expect(await callback(deps, "x".repeat(32))).toEqual({ kind: "failed", error: "state_not_found" });
    expect(await callback(deps, (await start(deps)).state, { code: undefined })).toEqual({ kind: "failed", error: "no_code", errorUrl: "https://app.example/oops" });
    expect(await callback(deps, (await start(deps)).state, { code: undefined, errorDescription: "The window was closed" })).toMatchObject({
      error: "no_code",
      errorDescription: "The window was closed",
    });
    expect(await callback(deps, (await start(deps)).state, { providerId: "gitlab" })).toMatchObject({ error: "oauth_provider_not_found", errorUrl: "https://app.example/oops" });
    deps.providers.set("gitlab", fakeProvider("gitlab"));
    expect(await callback(deps, (await start(deps)).state, { providerId: "gitlab" })).toMatchObject({ error: "invalid_callback_request" });
    expect(await callback(deps, (await start(deps)).state, { error: "access_denied", errorDescription: "The user said no" })).toMatchObject({
      error: "access_denied",
      errorDescription: "The user said no",
    });
    expect(await callback(deps, (await start(deps)).state, { error: "<script>" })).toMatchObject({ error: "invalid_callback_request" });
    deps.provider.answer = "refuse";
    expect(await callback(deps, (await start(deps)).state)).toMatchObject({ error: "unable_to_get_user_info" });
    deps.provider.answer = "refuse-code";
    expect(await callback(deps, (await start(deps)).state)).toMatchObject({ error: "please_restart_the_process", errorUrl: "https://app.example/oops" });
    deps.provider.answer = { profile: { accountId: "1", email: null, emailVerified: false, name: "", image: null }, tokens: { scopes: [] }, raw: {} };
    expect(await callback(deps, (await start(deps)).state)).toMatchObject({ error: "email_not_found" });
  });

  it("answers identity's refusals as redirect codes", async () => {
    const deps = testRegistry();
    for (const [code, expected] of [
      ["ACCOUNT_NOT_LINKED", "account_not_linked"],
      ["FAILED_TO_CREATE_USER", "unable_to_create_user"],
      ["FAILED_TO_CREATE_SESSION", "unable_to_create_session"],
      ["BANNED_USER", "BANNED_USER"],
      ["USER_EMAIL_NOT_FOUND", "email_not_found"],
      ["INTERNAL_SERVER_ERROR", "internal_server_error"],
    ] as const) {
      deps.identityFails = code;
      expect(await callback(deps, (await start(deps)).state)).toMatchObject({ kind: "failed", error: expected, errorUrl: "https://app.example/oops" });
    }
  });

  it("a provider removed from the configuration after the state was made answers oauth_provider_not_found", async () => {
    const deps = testRegistry();
    const { state } = await start(deps);
    deps.providers.clear();
    expect(await callback(deps, state)).toMatchObject({ error: "oauth_provider_not_found" });
  });

  it("an unconfigured provider cannot start a sign-in: PROVIDER_NOT_FOUND", async () => {
    const deps = testRegistry();
    await expect(start(deps, { providerId: "reddit" })).rejects.toThrow(new AuthError("PROVIDER_NOT_FOUND"));
  });

  it("links to the signed-in user only when the provider's email is theirs", async () => {
    const deps = testRegistry();
    const link = { userId: "user-1", email: "ada@example.com" };
    expect(await callback(deps, (await start(deps, { link })).state)).toEqual({ kind: "linked", redirectUrl: "https://app.example/dashboard" });
    expect(deps.linked).toMatchObject([{ userId: "user-1", profile: { accountId: "42" } }]);
    expect(deps.signedIn).toHaveLength(0);
    expect(await callback(deps, (await start(deps, { link: { userId: "user-2", email: "bob@example.com" } })).state)).toMatchObject({ error: "email_doesn't_match" });
    deps.identityFails = "SOCIAL_ACCOUNT_ALREADY_LINKED";
    expect(await callback(deps, (await start(deps, { link: { userId: "user-3", email: "ada@example.com" } })).state)).toMatchObject({ error: "unable_to_link_account" });
  });

  it("refuses at once to link a provider the user already has, unless the link asks for more scopes", async () => {
    const deps = testRegistry();
    const link = { userId: "user-1", email: "ada@example.com" };
    await callback(deps, (await start(deps, { link })).state);
    await expect(start(deps, { link })).rejects.toThrow(new AuthError("SOCIAL_ACCOUNT_ALREADY_LINKED"));
    // Another user, or a sign-in, is not concerned.
    expect((await start(deps, { link: { userId: "user-2", email: "bob@example.com" } })).url).toContain("state=");
    expect((await start(deps)).url).toContain("state=");
    // More scopes renew the linked account's grant at the callback.
    const widened = await start(deps, { link, scopes: ["repo"] });
    expect(await callback(deps, widened.state)).toEqual({ kind: "linked", redirectUrl: "https://app.example/dashboard" });
  });
});
