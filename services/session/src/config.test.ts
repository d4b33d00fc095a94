import { describe, expect, it } from "vitest";
import { ConfigError } from "@auth-platform/runtime/config";
import { sessionConfig } from "./config.js";

const SECRET = { AUTH_SECRET: "session-config-secret-0123456789-0123456789" };

describe("sessionConfig: session JWTs", () => {
  it("defaults: EdDSA, 15-minute tokens, a key a month, a 5-minute key set cache, issuer and audience the base URL", () => {
    expect(sessionConfig({ ...SECRET, AUTH_BASE_URL: "https://auth.example.com/api/auth/" }).jwt).toEqual({
      algorithm: "EdDSA",
      issuer: "https://auth.example.com/api/auth",
      audience: "https://auth.example.com/api/auth",
      expiresInSeconds: 900,
      rotationSeconds: 2_592_000,
      jwksMaxAgeSeconds: 300,
    });
  });

  it("takes ES256 and RS256, and an audience of its own", () => {
    expect(sessionConfig({ ...SECRET, SESSION_JWT_ALGORITHM: "ES256" }).jwt.algorithm).toBe("ES256");
    expect(sessionConfig({ ...SECRET, SESSION_JWT_ALGORITHM: "RS256", SESSION_JWT_AUDIENCE: "api://orders" }).jwt).toMatchObject({ algorithm: "RS256", audience: "api://orders" });
  });

  it("an unknown algorithm stops the service naming the variable", () => {
    for (const value of ["HS256", "none", "eddsa"]) {
      expect(() => sessionConfig({ ...SECRET, SESSION_JWT_ALGORITHM: value })).toThrow(ConfigError);
      expect(() => sessionConfig({ ...SECRET, SESSION_JWT_ALGORITHM: value })).toThrow(/SESSION_JWT_ALGORITHM/);
    }
  });

  it("refuses a lifetime out of bounds, and a rotation too short to publish the next key ahead", () => {
    expect(() => sessionConfig({ ...SECRET, SESSION_JWT_EXPIRES_IN: "5" })).toThrow(/SESSION_JWT_EXPIRES_IN/);
    expect(() => sessionConfig({ ...SECRET, SESSION_JWT_ROTATION_SECONDS: "600", SESSION_JWKS_MAX_AGE: "300" })).toThrow(/SESSION_JWT_ROTATION_SECONDS/);
    expect(sessionConfig({ ...SECRET, SESSION_JWT_ROTATION_SECONDS: "721", SESSION_JWKS_MAX_AGE: "300" }).jwt.rotationSeconds).toBe(721);
  });
});
