/**
 * The real better-auth client, both generations (1.1.9 and the current 1.7), driving sendVerificationEmail and verifyEmail through the
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
import { betterAuthBrowsers, EVIL, tokenOf } from "./better-auth-browser.js";

const platform = usePlatform({ smtp: true });
const { smtp } = accountHelpers(platform);

describe.each(CLIENT_GENERATIONS)(`better-auth $version client: email verification (${backendLabel()})`, (generation: ClientGeneration) => {
  const { aBrowser, expectSent, signedUp, verifyMail } = betterAuthBrowsers(platform, generation);

  describe("sendVerificationEmail and verifyEmail", () => {
    it("sendVerificationEmail: data { status: true } and a mail whose link carries the callbackURL", async () => {
      const browser = await signedUp();
      const { client, email } = browser;
      await verifyMail(email);
      const { data, error } = await client.sendVerificationEmail({ email, callbackURL: "/verified" });
      expect(error).toBeNull();
      expect(data).toEqual({ status: true });
      expectSent(browser, "POST", "/send-verification-email", { email, callbackURL: "/verified" });
      const mail = await smtp.waitFor(email, (m) => linkIn(m, "/verify-email").includes("callbackURL=%2Fverified"));
      expect(linkIn(mail, "/verify-email").startsWith(`${platform.baseURL}/verify-email?token=`)).toBe(true);
    });

    it("sendVerificationEmail answers the same data for an unknown address", async () => {
      const { data, error } = await aBrowser().client.sendVerificationEmail({ email: uniqueEmail("ghost") });
      expect(error).toBeNull();
      expect(data).toEqual({ status: true });
    });

    it("sendVerificationEmail errors: untrusted callbackURL is 403 INVALID_CALLBACKURL, a malformed address 400 INVALID_EMAIL", async () => {
      const { client, email } = await signedUp();
      const evil = await client.sendVerificationEmail({ email, callbackURL: EVIL });
      expect(evil.data).toBeNull();
      expect(evil.error).toMatchObject({ status: 403, code: "INVALID_CALLBACKURL", message: "Invalid callbackURL" });
      const malformed = await client.sendVerificationEmail({ email: "not-an-email" });
      expect(malformed.data).toBeNull();
      expect(malformed.error).toMatchObject({ status: 400, code: "INVALID_EMAIL", message: "Invalid email" });
    });

    it("verifyEmail({ query: { token } }) with the mailed token: data has the verified user, getSession agrees", async () => {
      const browser = await signedUp();
      const { client, email, user } = browser;
      const link = linkIn(await verifyMail(email), "/verify-email");
      const token = tokenOf(link);
      const { data, error } = await client.verifyEmail({ query: { token } });
      expect(error).toBeNull();
      expect(data).toMatchObject({ status: true, user: { id: user.id, email, emailVerified: true } });
      expectSent(browser, "GET", "/verify-email");
      expect(new URL(browser.last().url).searchParams.get("token")).toBe(token);
      const session = await client.getSession({ query: { disableCookieCache: true } });
      expect(session.data!.user).toMatchObject({ id: user.id, emailVerified: true });
      // The same token again: still fine, still verified.
      expect((await client.verifyEmail({ query: { token } })).data).toMatchObject({ status: true, user: { emailVerified: true } });
    });

    it("verifyEmail with a callbackURL answers a 302 the client hands back as error status 302; Location is the callback", async () => {
      const { client, email, last } = await signedUp();
      const token = tokenOf(linkIn(await verifyMail(email), "/verify-email"));
      const { data, error } = await client.verifyEmail({ query: { token, callbackURL: "/welcome" } });
      expect(data).toBeNull();
      expect(error).toMatchObject({ status: 302 });
      expect(last()).toMatchObject({ status: 302, location: "/welcome" });
      expect((await client.getSession()).data!.user.emailVerified).toBe(true);
    });

    it("verifyEmail errors: a forged token is 400 INVALID_TOKEN; with a callbackURL a redirect carrying error=invalid_token", async () => {
      const { client, last } = await signedUp();
      const forged = await client.verifyEmail({ query: { token: "eyJhbGciOiJIUzI1NiJ9.eyJlbWFpbCI6ImFAYi5jIn0.forged" } });
      expect(forged.data).toBeNull();
      expect(forged.error).toMatchObject({ status: 400, code: "INVALID_TOKEN", message: "invalid token" });
      const redirected = await client.verifyEmail({ query: { token: "garbage", callbackURL: "/welcome" } });
      expect(redirected.data).toBeNull();
      expect(redirected.error).toMatchObject({ status: 302 });
      expect(last()).toMatchObject({ status: 302, location: "/welcome?error=invalid_token" });
      const evil = await client.verifyEmail({ query: { token: "garbage", callbackURL: EVIL } });
      expect(evil.error).toMatchObject({ status: 403, code: "INVALID_CALLBACKURL" });
    });
  });
});
