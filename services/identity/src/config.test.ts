import { describe, expect, it } from "vitest";
import { ConfigError } from "@auth-platform/runtime/config";
import { defaultHashingConcurrency, identityConfig } from "./config.js";

describe("identity configuration", () => {
  it("has the documented defaults", () => {
    const config = identityConfig({});
    expect(config).toMatchObject({
      port: 50051,
      databaseUrl: "file:data/identity.db",
      baseUrl: "http://localhost:3000/api/auth",
      freshAgeSeconds: 86_400,
      emailVerification: { enabled: true, sendOnSignUp: true, required: false, autoSignIn: false, expiresInSeconds: 3_600 },
      resetPassword: { enabled: true, expiresInSeconds: 3_600, revokeSessions: true },
    });
  });

  it("keeps mail sign-in off until configured, with 15-minute links, 5-minute codes and 3 tries", () => {
    expect(identityConfig({})).toMatchObject({
      magicLink: { enabled: false, expiresInSeconds: 900, signUp: true },
      emailOtp: { enabled: false, expiresInSeconds: 300, allowedAttempts: 3, signUp: true },
    });
    expect(identityConfig({ IDENTITY_EMAIL_OTP_ENABLED: "true", IDENTITY_EMAIL_OTP_SIGN_UP: "false" }).emailOtp).toMatchObject({ enabled: true, signUp: false });
    expect(() => identityConfig({ IDENTITY_EMAIL_OTP_ALLOWED_ATTEMPTS: "0" })).toThrow(/IDENTITY_EMAIL_OTP_ALLOWED_ATTEMPTS/);
  });

  it("bounds password hashing: one derivation per CPU by default, at most 4, and a queue of 256", () => {
    expect(identityConfig({}).hashing).toEqual({ concurrency: defaultHashingConcurrency(), maxQueued: 256 });
    expect([1, 2, 3, 8, 64].map((cpus) => defaultHashingConcurrency(cpus))).toEqual([1, 2, 3, 4, 4]);
    expect(identityConfig({ IDENTITY_HASHING_CONCURRENCY: "3", IDENTITY_HASHING_QUEUE_LIMIT: "0" }).hashing).toEqual({ concurrency: 3, maxQueued: 0 });
    expect(() => identityConfig({ IDENTITY_HASHING_CONCURRENCY: "0" })).toThrow(/IDENTITY_HASHING_CONCURRENCY/);
  });

  it("refuses to require verification while verification mail is off, naming both settings", () => {
    expect(() => identityConfig({ IDENTITY_REQUIRE_EMAIL_VERIFICATION: "true", IDENTITY_EMAIL_VERIFICATION_ENABLED: "false" })).toThrow(
      /IDENTITY_REQUIRE_EMAIL_VERIFICATION: needs IDENTITY_EMAIL_VERIFICATION_ENABLED=true/,
    );
  });

  it("names a malformed extra-fields setting", () => {
    expect(() => identityConfig({ IDENTITY_USER_FIELDS: '{"phone":{"type":"date"}}' })).toThrow(/IDENTITY_USER_FIELDS/);
  });

  it("refuses to start in production without AUTH_SECRET, with a clear error", () => {
    const production = { NODE_ENV: "production", GRPC_TLS_DIR: "/etc/auth-platform/tls" };
    expect(() => identityConfig(production)).toThrow(ConfigError);
    expect(() => identityConfig(production)).toThrow(/AUTH_SECRET: required when NODE_ENV=production/);
    expect(identityConfig({ ...production, AUTH_SECRET: "p".repeat(40) }).secret).toBe("p".repeat(40));
  });

  it("takes the passkey relying party from the base URL and the app's URL, the dev origins without them, and refuses an origin off the relying party id", () => {
    expect(identityConfig({}).passkeys).toEqual({ rpId: "localhost", rpName: "Auth Platform", origins: ["http://localhost:3000", "http://localhost:5173"] });
    expect(identityConfig({ AUTH_BASE_URL: "https://auth.example.com/api/auth", APP_NAME: "Acme" }).passkeys).toEqual({
      rpId: "auth.example.com",
      rpName: "Acme",
      origins: ["https://auth.example.com"],
    });
    const set = {
      AUTH_BASE_URL: "https://auth.example.com/api/auth",
      IDENTITY_PASSKEY_RP_ID: "example.com",
      IDENTITY_PASSKEY_ORIGINS: "https://example.com, https://app.example.com",
    };
    expect(identityConfig(set).passkeys).toMatchObject({ rpId: "example.com", origins: ["https://example.com", "https://app.example.com"] });
    expect(() => identityConfig({ ...set, IDENTITY_PASSKEY_ORIGINS: "https://evil-example.com" })).toThrow(
      /IDENTITY_PASSKEY_ORIGINS: https:\/\/evil-example.com is not on the relying party id example.com/,
    );
    expect(() => identityConfig({ ...set, IDENTITY_PASSKEY_ORIGINS: "https://app.example.com/login" })).toThrow(/is not an origin/);
  });
});
