/** Fixtures shared by the account suites: signing a user up, and the stricter configuration some run on. */
import { expect } from "vitest";
import { type TestClient, uniqueEmail } from "../../testing/http.js";
import type { PlatformUnderTest } from "../../testing/use-platform.js";

/** Required verification, sign-in by the verification link, one-second reset tokens and fresh age, no change-email. */
export const STRICT_ENV: Record<string, string> = {
  IDENTITY_REQUIRE_EMAIL_VERIFICATION: "true",
  IDENTITY_AUTO_SIGN_IN_AFTER_VERIFICATION: "true",
  IDENTITY_REVOKE_SESSIONS_ON_PASSWORD_RESET: "true",
  IDENTITY_RESET_PASSWORD_TOKEN_EXPIRES_IN: "1",
  IDENTITY_CHANGE_EMAIL_ENABLED: "false",
  SESSION_FRESH_AGE: "1",
};

/** Signs a user up through the HTTP API; the client holds the new session. */
export async function signUpThrough(platform: PlatformUnderTest, email = uniqueEmail(), password = "password-123"): Promise<{ c: TestClient; email: string; password: string; user: any }> {
  const c = platform.client();
  const res = await c.post("/sign-up/email", { name: "Grace", email, password });
  expect(res.status).toBe(200);
  return { c, email, password, user: res.body.user };
}
