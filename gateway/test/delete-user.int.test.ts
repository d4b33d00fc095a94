/**
 * Delete user end to end with real SMTP: with the password, from a fresh session, by the mailed link, and
 * at once when confirmation by mail is off.
 */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { linkIn } from "../../testing/smtp.js";
import { usePlatform } from "../../testing/use-platform.js";
import { STRICT_ENV, accountHelpers } from "./accounts.js";

describe(`delete user (${backendLabel()})`, () => {
  const platform = usePlatform({ smtp: true });
  const { client, follow, signUp, smtp } = accountHelpers(platform);

  describe("delete user", () => {
    it("with the password and confirmation by mail configured: checks it, mails the link, and the link deletes", async () => {
      const { c, email } = await signUp();
      expect(await c.post("/delete-user", { password: "wrong-password" })).toMatchObject({ status: 400, body: { code: "INVALID_PASSWORD", message: "Invalid password" } });
      expect(await c.post("/delete-user", { password: "password-123" })).toMatchObject({ status: 200, body: { success: true, message: "Verification email sent" } });
      // Nothing is gone until the mailed link is followed.
      expect((await c.get("/get-session")).body.user.email).toBe(email);
      const link = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/delete-user/callback")), "/delete-user/callback");
      expect((await follow(c, link)).headers.get("location")).toBe("/");
      expect((await c.get("/get-session")).body).toBeNull();
      expect((await client().post("/sign-in/email", { email, password: "password-123" })).status).toBe(401);
      expect((await client().post("/sign-up/email", { name: "Again", email, password: "password-123" })).status).toBe(200);
    });

    it("with a fresh session mails a link; following it deletes the user and redirects", async () => {
      const { c, email } = await signUp();
      expect((await c.post("/delete-user", { callbackURL: "/goodbye" })).body).toEqual({ success: true, message: "Verification email sent" });
      const link = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/delete-user/callback")), "/delete-user/callback");
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

describe(`delete user, stricter configuration (${backendLabel()})`, () => {
  const strict = usePlatform({ smtp: true, env: STRICT_ENV });
  const { smtp } = accountHelpers(strict);
  const c = () => strict.client();

  it("with confirmation by mail off, the right password deletes at once; a wrong one is refused", async () => {
    const email = uniqueEmail("instant");
    const browser = c();
    await browser.post("/sign-up/email", { name: "I", email, password: "password-123" });
    await browser.get(linkIn(await smtp.waitFor(email, (m) => m.text.includes("/verify-email")), "/verify-email").slice(strict.baseURL.length));
    expect(await browser.post("/delete-user", { password: "wrong-password" })).toMatchObject({ status: 400, body: { code: "INVALID_PASSWORD" } });
    expect(await browser.post("/delete-user", { password: "password-123" })).toMatchObject({ status: 200, body: { success: true, message: "User deleted" } });
    expect((await browser.get("/get-session")).body).toBeNull();
    expect((await c().post("/sign-in/email", { email, password: "password-123" })).status).toBe(401);
  });
});
