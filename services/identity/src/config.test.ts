import { describe, expect, it } from "vitest";
import { ConfigError } from "@auth-platform/runtime/config";
import { identityConfig } from "./config.js";

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
});
