/** Fixtures shared by the account suites: signing a user up, and the stricter configuration some run on. */
import { expect } from "vitest";
import { type TestClient, uniqueEmail } from "../../testing/http.js";
import type { TestSmtp } from "../../testing/smtp.js";
import type { PlatformUnderTest } from "../../testing/use-platform.js";

/**
 * Required verification, sign-in by the verification link, sessions ended by a reset, one-second reset tokens
 * and fresh age, no change-email, deletion without confirmation by mail.
 */
export const STRICT_ENV: Record<string, string> = {
  IDENTITY_REQUIRE_EMAIL_VERIFICATION: "true",
  IDENTITY_AUTO_SIGN_IN_AFTER_VERIFICATION: "true",
  IDENTITY_REVOKE_SESSIONS_ON_PASSWORD_RESET: "true",
  IDENTITY_RESET_PASSWORD_TOKEN_EXPIRES_IN: "1",
  IDENTITY_CHANGE_EMAIL_ENABLED: "false",
  IDENTITY_DELETE_USER_VERIFICATION: "false",
  SESSION_FRESH_AGE: "1",
};

/** Signs a user up through the HTTP API; the client holds the new session. */
export async function signUpThrough(
  platform: PlatformUnderTest,
  email = uniqueEmail(),
  password = "password-123",
): Promise<{ c: TestClient; email: string; password: string; user: any }> {
  const c = platform.client();
  const res = await c.post("/sign-up/email", { name: "Grace", email, password });
  expect(res.status).toBe(200);
  return { c, email, password, user: res.body.user };
}

/** A mailed link with its callbackURL replaced. */
export function withCallback(link: string, callbackURL: string): string {
  const url = new URL(link);
  url.searchParams.set("callbackURL", callbackURL);
  return url.toString();
}

/** The helpers the account suites' tests are written with, on one platform (read lazily, after it started). */
export function accountHelpers(platform: PlatformUnderTest) {
  return {
    client: () => platform.client(),
    follow: (c: TestClient, link: string) => platform.follow(c, link),
    signUp: (email?: string, password?: string) => signUpThrough(platform, email, password),
    smtp: {
      waitFor: (...args: Parameters<TestSmtp["waitFor"]>) => platform.smtp.waitFor(...args),
      get mails() {
        return platform.smtp.mails;
      },
    },
  };
}
