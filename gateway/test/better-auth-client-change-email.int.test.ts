/**
 * The real better-auth client, both generations (1.1.9 and the current 1.7), driving changeEmail through the
 * gateway as a browser app would. Mail goes to a real SMTP server; links are taken from the messages and
 * opened in the same "browser". Every call checks both halves of what the client hands back: `data` on
 * success, `error` on failure.
 */
import { describe, expect, it } from "vitest";
import { CLIENT_GENERATIONS, type ClientGeneration } from "../../testing/better-auth-clients.js";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { linkIn } from "../../testing/smtp.js";
import { usePlatform } from "../../testing/use-platform.js";
import { accountHelpers } from "./accounts.js";
import { betterAuthBrowsers, EVIL, PASSWORD, tokenOf } from "./better-auth-browser.js";

const platform = usePlatform({ smtp: true });
const { smtp } = accountHelpers(platform);

describe.each(CLIENT_GENERATIONS)(`better-auth $version client: change email (${backendLabel()})`, (generation: ClientGeneration) => {
  const { aBrowser, expectSent, signedUp, verifiedUser, verifyMail } = betterAuthBrowsers(platform, generation);

  describe("changeEmail", () => {
    it("an unverified user's address changes at once: data { status: true }, getSession shows it, the new address gets a link", async () => {
      const browser = await signedUp();
      const { client, email } = browser;
      const newEmail = uniqueEmail("moved");
      const { data, error } = await client.changeEmail({ newEmail });
      expect(error).toBeNull();
      expect(data).toEqual({ status: true });
      expectSent(browser, "POST", "/change-email", { newEmail });
      expect((await client.getSession({ query: { disableCookieCache: true } })).data!.user).toMatchObject({ email: newEmail, emailVerified: false });
      const token = tokenOf(linkIn(await verifyMail(newEmail), "/verify-email"));
      expect((await client.verifyEmail({ query: { token } })).data).toMatchObject({ status: true, user: { email: newEmail, emailVerified: true } });
      expect((await aBrowser().client.signIn.email({ email, password: PASSWORD })).error).toMatchObject({ status: 401 });
    });

    it("a verified user confirms from the old address; verifyEmail with that token moves the account", async () => {
      const { client, email } = await verifiedUser();
      const newEmail = uniqueEmail("confirmed");
      const { data, error } = await client.changeEmail({ newEmail, callbackURL: "/settings" });
      expect(error).toBeNull();
      expect(data).toEqual({ status: true });
      expect((await client.getSession({ query: { disableCookieCache: true } })).data!.user.email).toBe(email);
      const confirmation = linkIn(await smtp.waitFor(email, (m) => m.text.includes(newEmail)), "/verify-email");
      expect(tokenOf(confirmation, "callbackURL")).toBe("/settings");
      // The approval link alone, opened with no session or in another user's, moves nothing.
      const stranger = await signedUp();
      for (const elsewhere of [aBrowser(), stranger]) {
        expect(await elsewhere.open(confirmation)).toMatchObject({ status: 302, location: "/settings?error=unauthorized" });
      }
      const anonymous = await aBrowser().client.verifyEmail({ query: { token: tokenOf(confirmation) } });
      expect(anonymous.data).toBeNull();
      expect(anonymous.error).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
      expect((await client.getSession({ query: { disableCookieCache: true } })).data!.user).toMatchObject({ email, emailVerified: true });

      const moved = await client.verifyEmail({ query: { token: tokenOf(confirmation) } });
      expect(moved.error).toBeNull();
      expect(moved.data).toMatchObject({ status: true, user: { email: newEmail, emailVerified: false } });
      expect((await client.getSession({ query: { disableCookieCache: true } })).data!.user).toMatchObject({ email: newEmail, emailVerified: false });
      await verifyMail(newEmail);
    });

    it("changeEmail errors: same address 400 EMAIL_IS_THE_SAME, taken 400 COULDNT_UPDATE_YOUR_EMAIL, untrusted callback 403, anonymous 401", async () => {
      const { client, email } = await signedUp();
      const other = await signedUp();
      const same = await client.changeEmail({ newEmail: email.toUpperCase() });
      expect(same.data).toBeNull();
      expect(same.error).toMatchObject({ status: 400, code: "EMAIL_IS_THE_SAME", message: "Email is the same" });
      const taken = await client.changeEmail({ newEmail: other.email });
      expect(taken.data).toBeNull();
      // Not 422 "User already exists": a signed-in user learns nothing about who else has an account.
      expect(taken.error).toMatchObject({ status: 400, code: "COULDNT_UPDATE_YOUR_EMAIL", message: "Couldn't update your email" });
      const evil = await client.changeEmail({ newEmail: uniqueEmail(), callbackURL: EVIL });
      expect(evil.error).toMatchObject({ status: 403, code: "INVALID_CALLBACKURL" });
      const anonymous = await aBrowser().client.changeEmail({ newEmail: uniqueEmail() });
      expect(anonymous.data).toBeNull();
      expect(anonymous.error).toMatchObject({ status: 401, code: "UNAUTHORIZED", message: "Unauthorized" });
    });
  });
});
