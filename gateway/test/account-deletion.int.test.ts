/**
 * Account deletion end to end with real SMTP: with the password, through the mailed link, and refused
 * to a stale session (fresh age on a test clock).
 */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { linkIn } from "../../testing/smtp.js";
import { usePlatform } from "../../testing/use-platform.js";
import { STRICT_ENV, signUpThrough } from "./accounts.js";

const platform = usePlatform({ smtp: true });
const client = () => platform.client();
const follow = platform.follow;
const signUp = (email?: string, password?: string) => signUpThrough(platform, email, password);

describe(`with real SMTP (${backendLabel()})`, () => {
  describe("delete user", () => {
    it("deletes with the password: sessions end, sign-in fails, the email is free again", async () => {
      const { c, email } = await signUp();
      expect(await c.post("/delete-user", { password: "wrong-password" })).toMatchObject({ status: 400, body: { code: "INVALID_PASSWORD" } });
      expect(await c.post("/delete-user", { password: "password-123" })).toMatchObject({ status: 200, body: { success: true, message: "User deleted" } });
      expect((await c.get("/get-session")).body).toBeNull();
      expect((await client().post("/sign-in/email", { email, password: "password-123" })).status).toBe(401);
      expect((await client().post("/sign-up/email", { name: "Again", email, password: "password-123" })).status).toBe(200);
    });

    it("with a fresh session mails a link; following it deletes the user and redirects", async () => {
      const { c, email } = await signUp();
      expect((await c.post("/delete-user", { callbackURL: "/goodbye" })).body).toEqual({ success: true, message: "Verification email sent" });
      const link = linkIn(await platform.smtp.waitFor(email, (m) => m.text.includes("/delete-user/callback")), "/delete-user/callback");
      const token = new URL(link).searchParams.get("token")!;
      expect(token).toMatch(/^[0-9a-z]{32}$/);
      // Someone else's session cannot use the link.
      const stranger = await signUp();
      expect(await stranger.c.get(`/delete-user/callback?token=${token}`)).toMatchObject({ status: 400, body: { code: "INVALID_TOKEN" } });
      const res = await follow(c, link);
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe("/goodbye");
      expect((await client().post("/sign-in/email", { email, password: "password-123" })).status).toBe(401);
      // Reused: the token is gone (and so is the session).
      const again = await signUp();
      expect(await again.c.get(`/delete-user/callback?token=${token}&callbackURL=/goodbye`)).toMatchObject({ status: 302 });
      expect((await again.c.get(`/delete-user/callback?token=${token}&callbackURL=/goodbye`)).headers.get("location")).toBe("/goodbye?error=invalid_token");
      expect((await again.c.get("/get-session")).body).not.toBeNull();
    });
  });
});

describe(`stricter configuration (${backendLabel()})`, () => {
  const strict = usePlatform({ smtp: true, env: STRICT_ENV });
  const c = () => strict.client();

  it("change email can be disabled; stale sessions cannot delete the user or unlink accounts", async () => {
    const email = uniqueEmail("stale");
    await c().post("/sign-up/email", { name: "St", email, password: "password-123" });
    const browser = c();
    await browser.get(linkIn(await strict.smtp.waitFor(email, (m) => m.text.includes("/verify-email")), "/verify-email").slice(strict.baseURL.length));
    expect(await browser.post("/change-email", { newEmail: uniqueEmail() })).toMatchObject({ status: 400, body: { code: "CHANGE_EMAIL_IS_DISABLED", message: "Change email is disabled" } });
    strict.clock.advance(1_200);
    expect(await browser.post("/delete-user", {})).toMatchObject({ status: 403, body: { code: "SESSION_IS_NOT_FRESH", message: "Session is not fresh" } });
    expect(await browser.post("/unlink-account", { providerId: "credential" })).toMatchObject({ status: 403, body: { code: "SESSION_IS_NOT_FRESH" } });
    // The password still works on a stale session.
    expect((await browser.post("/delete-user", { password: "password-123" })).body).toMatchObject({ success: true });
  });
});
