/**
 * The real better-auth client, both generations (1.1.9 and the current 1.7), driving deleteUser through the
 * gateway as a browser app would. Mail goes to a real SMTP server; links are taken from the messages and
 * opened in the same "browser". Every call checks both halves of what the client hands back: `data` on
 * success, `error` on failure.
 */
import { describe, expect, it } from "vitest";
import { CLIENT_GENERATIONS, type ClientGeneration } from "../../testing/better-auth-clients.js";
import { backendLabel } from "../../testing/databases.js";
import { linkIn } from "../../testing/smtp.js";
import { usePlatform } from "../../testing/use-platform.js";
import { accountHelpers } from "./accounts.js";
import { betterAuthBrowsers, EVIL, PASSWORD, sessionCookie, tokenOf } from "./better-auth-browser.js";

const platform = usePlatform({ smtp: true });
const { smtp } = accountHelpers(platform);

describe.each(CLIENT_GENERATIONS)(`better-auth $version client: delete user (${backendLabel()})`, (generation: ClientGeneration) => {
  const { aBrowser, expectSent, signedUp } = betterAuthBrowsers(platform, generation);

  describe("deleteUser", () => {
    it("deleteUser({ password }) with confirmation by mail (the default): checked, then mailed; the link deletes", async () => {
      const browser = await signedUp();
      const { client, cookies, email, open } = browser;
      const wrong = await client.deleteUser({ password: "wrong-password" });
      expectSent(browser, "POST", "/delete-user", { password: "wrong-password" });
      expect(wrong.data).toBeNull();
      expect(wrong.error).toMatchObject({ status: 400, code: "INVALID_PASSWORD", message: "Invalid password" });

      const { data, error } = await client.deleteUser({ password: PASSWORD });
      expect(error).toBeNull();
      expect(data).toEqual({ success: true, message: "Verification email sent" });
      expect((await client.getSession()).data!.user.email).toBe(email);
      const link = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/delete-user/callback")), "/delete-user/callback");
      expect(await open(link)).toMatchObject({ status: 302, location: "/" });
      expect(sessionCookie(cookies)).toBeUndefined();
      expect(await client.getSession()).toMatchObject({ data: null, error: null });
      expect((await aBrowser().client.signIn.email({ email, password: PASSWORD })).error).toMatchObject({ status: 401, code: "INVALID_EMAIL_OR_PASSWORD" });
    });

    it("deleteUser({}): data 'Verification email sent'; opening the mailed callback link deletes the user", async () => {
      const browser = await signedUp();
      const { client, cookies, email, open } = browser;
      const { data, error } = await client.deleteUser({});
      expect(error).toBeNull();
      expect(data).toEqual({ success: true, message: "Verification email sent" });
      expectSent(browser, "POST", "/delete-user", {});
      // Nothing is gone yet.
      expect((await client.getSession()).data!.user.email).toBe(email);

      const link = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/delete-user/callback")), "/delete-user/callback");
      expect(tokenOf(link)).toMatch(/^[0-9a-z]{32}$/);
      // The mailed link lands on the app root (the default callbackURL).
      expect(tokenOf(link, "callbackURL")).toBe("/");
      const opened = await aBrowser().open(link);
      // Another browser (no session) cannot use it.
      expect(opened).toMatchObject({ status: 302, location: "/?error=unauthorized" });

      const followed = await open(link);
      expect(followed).toMatchObject({ status: 302, location: "/" });
      expect(sessionCookie(cookies)).toBeUndefined();
      expect((await client.getSession()).data).toBeNull();
      expect((await aBrowser().client.signIn.email({ email, password: PASSWORD })).error).toMatchObject({ status: 401 });
    });

    it("deleteUser({ callbackURL }): the mailed link redirects to the callback after deleting", async () => {
      const browser = await signedUp();
      const { data, error } = await browser.client.deleteUser({ callbackURL: "/goodbye" });
      expect(error).toBeNull();
      expect(data).toEqual({ success: true, message: "Verification email sent" });
      const link = linkIn(await smtp.waitFor(browser.email, (m) => m.text.includes("/delete-user/callback")), "/delete-user/callback");
      expect(tokenOf(link, "callbackURL")).toBe("/goodbye");
      const followed = await browser.open(link);
      expect(followed).toMatchObject({ status: 302, location: "/goodbye" });
      expect(sessionCookie(browser.cookies)).toBeUndefined();
      expect((await browser.client.getSession()).data).toBeNull();
      // The link is used up.
      const again = await signedUp();
      expect((await again.open(link)).location).toBe("/goodbye?error=invalid_token");
    });

    it("deleteUser errors: an untrusted callbackURL is 403 INVALID_CALLBACKURL, anonymous 401", async () => {
      const { client } = await signedUp();
      const evil = await client.deleteUser({ callbackURL: EVIL });
      expect(evil.data).toBeNull();
      expect(evil.error).toMatchObject({ status: 403, code: "INVALID_CALLBACKURL", message: "Invalid callbackURL" });
      const anonymous = await aBrowser().client.deleteUser({ password: PASSWORD });
      expect(anonymous.data).toBeNull();
      expect(anonymous.error).toMatchObject({ status: 401, code: "UNAUTHORIZED", message: "Unauthorized" });
      expect((await client.getSession()).data).not.toBeNull();
    });
  });
});
