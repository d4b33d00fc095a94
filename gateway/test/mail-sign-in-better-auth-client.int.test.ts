/**
 * Sign-in by mailed link and code through the real better-auth clients of both generations (their
 * magicLinkClient and emailOTPClient), over the real SMTP server, on the test clock for expiry: single use,
 * tries that void a code, the same answer for unknown addresses, new users, callback URL checks, and email
 * verification and password reset by code.
 */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";
import { EVIL, PASSWORD, TOKEN } from "./better-auth-browser.js";
import {
  aMailBrowser,
  codeFor,
  MAIL_CLIENT_GENERATIONS,
  MAIL_SIGN_IN_ENV,
  type MailClientGeneration,
  magicLinkFor,
  RESET_CODE,
  SIGN_IN_CODE,
  VERIFICATION_CODE,
} from "./mail-sign-in-helpers.js";

const platform = usePlatform({ smtp: true, env: MAIL_SIGN_IN_ENV });

describe.each(MAIL_CLIENT_GENERATIONS)(`better-auth $version client: mail sign-in (${backendLabel()})`, (generation: MailClientGeneration) => {
  const aBrowser = () => aMailBrowser(platform.origin, platform.baseURL, generation);

  async function signedUp() {
    const browser = aBrowser();
    const email = uniqueEmail("mail");
    const { data, error } = await browser.client.signUp.email({ name: "Ada", email, password: PASSWORD });
    expect(error).toBeNull();
    return { email, user: data!.user };
  }

  describe("magic link", () => {
    it("mails a link that signs in once and lands on callbackURL; the link again lands with INVALID_TOKEN", async () => {
      const { email, user } = await signedUp();
      const browser = aBrowser();
      const { data, error } = await browser.client.signIn.magicLink({ email, callbackURL: "/dashboard" });
      expect(error).toBeNull();
      expect(data).toEqual({ status: true });

      const link = await magicLinkFor(platform.smtp, email);
      expect(new URL(link).searchParams.get("token")).toMatch(TOKEN);
      const landing = await browser.open(link);
      expect(landing.status).toBe(302);
      expect(landing.location).toBe(`${platform.origin}/dashboard`);
      const session = await browser.client.getSession();
      expect(session.data?.user).toMatchObject({ id: user.id, email, emailVerified: true });
      // The session records how it was opened.
      expect(session.data?.session).toMatchObject({ authMethod: "magic-link" });

      const again = await aBrowser().open(link);
      expect(again.location).toBe(`${platform.origin}/dashboard?error=INVALID_TOKEN`);
    });

    it("creates a verified user with the given name for a new address and lands on newUserCallbackURL", async () => {
      const email = uniqueEmail("newcomer");
      const browser = aBrowser();
      expect((await browser.client.signIn.magicLink({ email, name: "Newcomer", callbackURL: "/home", newUserCallbackURL: "/welcome" })).error).toBeNull();
      const landing = await browser.open(await magicLinkFor(platform.smtp, email));
      expect(landing.location).toBe(`${platform.origin}/welcome`);
      expect((await browser.client.getSession()).data?.user).toMatchObject({ email, name: "Newcomer", emailVerified: true });
    });

    it("answers JSON with the session when the link carries no callbackURL (verify called by the client)", async () => {
      const { email, user } = await signedUp();
      const browser = aBrowser();
      await browser.client.signIn.magicLink({ email });
      const token = new URL(await magicLinkFor(platform.smtp, email)).searchParams.get("token")!;
      const { data, error } = await browser.client.magicLink.verify({ query: { token } });
      expect(error).toBeNull();
      expect(data).toMatchObject({ token: expect.any(String), user: { id: user.id, email } });
      expect((await browser.client.getSession()).data?.user.id).toBe(user.id);
    });

    it("expires after 15 minutes: the link lands on errorCallbackURL with INVALID_TOKEN", async () => {
      const { email } = await signedUp();
      const browser = aBrowser();
      await browser.client.signIn.magicLink({ email, callbackURL: "/dashboard", errorCallbackURL: "/sign-in" });
      const link = await magicLinkFor(platform.smtp, email);
      platform.clock.advance(15 * 60_000 + 1_000);
      const landing = await browser.open(link);
      expect(landing.location).toBe(`${platform.origin}/sign-in?error=INVALID_TOKEN`);
      expect((await browser.client.getSession()).data).toBeNull();
    });

    it("refuses untrusted callback URLs, asking and landing, with the field's code", async () => {
      const { email } = await signedUp();
      const browser = aBrowser();
      for (const [field, code] of [
        ["callbackURL", "INVALID_CALLBACKURL"],
        ["newUserCallbackURL", "INVALID_NEWUSERCALLBACKURL"],
        ["errorCallbackURL", "INVALID_ERRORCALLBACKURL"],
      ] as const) {
        const { data, error } = await browser.client.signIn.magicLink({ email, [field]: EVIL });
        expect(data).toBeNull();
        expect(error).toMatchObject({ status: 403, code });
      }
      await browser.client.signIn.magicLink({ email, callbackURL: "/dashboard" });
      const link = new URL(await magicLinkFor(platform.smtp, email));
      link.searchParams.set("errorCallbackURL", EVIL);
      const landing = await browser.open(link.toString());
      expect(landing.status).toBe(403);
      expect(landing.body).toMatchObject({ code: "INVALID_ERRORCALLBACKURL" });
      // The refused landing did not use the link.
      link.searchParams.delete("errorCallbackURL");
      expect((await browser.open(link.toString())).location).toBe(`${platform.origin}/dashboard`);
    });

    it("answers an unknown address as a known one, and a malformed one 400 INVALID_EMAIL", async () => {
      const { email } = await signedUp();
      const known = await aBrowser().client.signIn.magicLink({ email });
      const unknown = await aBrowser().client.signIn.magicLink({ email: uniqueEmail("stranger") });
      expect(unknown).toEqual(known);
      const malformed = await aBrowser().client.signIn.magicLink({ email: "not-an-address" });
      expect(malformed.error).toMatchObject({ status: 400 });
    });
  });

  describe("email OTP", () => {
    it("signs in with the mailed code once; the code again is INVALID_OTP", async () => {
      const { email, user } = await signedUp();
      const browser = aBrowser();
      const { data, error } = await browser.client.emailOtp.sendVerificationOtp({ email, type: "sign-in" });
      expect(error).toBeNull();
      expect(data).toEqual({ success: true });
      const otp = await codeFor(platform.smtp, email, SIGN_IN_CODE);
      const signedIn = await browser.client.signIn.emailOtp({ email, otp });
      expect(signedIn.error).toBeNull();
      expect(signedIn.data).toMatchObject({ token: expect.any(String), user: { id: user.id, email, emailVerified: true } });
      expect((await browser.client.getSession()).data).toMatchObject({ user: { id: user.id }, session: { authMethod: "email-otp" } });

      const again = await aBrowser().client.signIn.emailOtp({ email, otp });
      expect(again.error).toMatchObject({ status: 400, code: "INVALID_OTP", message: "Invalid OTP" });
    });

    it("voids the code after three wrong tries: the right one is then TOO_MANY_ATTEMPTS", async () => {
      const { email } = await signedUp();
      const browser = aBrowser();
      await browser.client.emailOtp.sendVerificationOtp({ email, type: "sign-in" });
      const otp = await codeFor(platform.smtp, email, SIGN_IN_CODE);
      const wrong = otp === "000000" ? "111111" : "000000";
      for (let i = 0; i < 3; i++) expect((await browser.client.signIn.emailOtp({ email, otp: wrong })).error).toMatchObject({ status: 400, code: "INVALID_OTP" });
      expect((await browser.client.signIn.emailOtp({ email, otp })).error).toMatchObject({ status: 403, code: "TOO_MANY_ATTEMPTS", message: "Too many attempts" });
      expect((await browser.client.getSession()).data).toBeNull();
    });

    it("expires after 5 minutes (OTP_EXPIRED); a new code replaces the old one", async () => {
      const { email } = await signedUp();
      const browser = aBrowser();
      await browser.client.emailOtp.sendVerificationOtp({ email, type: "sign-in" });
      const first = await codeFor(platform.smtp, email, SIGN_IN_CODE);
      const mailed = platform.smtp.mails.length;
      await browser.client.emailOtp.sendVerificationOtp({ email, type: "sign-in" });
      const second = await codeFor(platform.smtp, email, SIGN_IN_CODE, mailed);
      if (first !== second) expect((await browser.client.signIn.emailOtp({ email, otp: first })).error).toMatchObject({ code: "INVALID_OTP" });
      platform.clock.advance(5 * 60_000 + 1_000);
      expect((await browser.client.signIn.emailOtp({ email, otp: second })).error).toMatchObject({ status: 400, code: "OTP_EXPIRED", message: "OTP expired" });
    });

    it("creates a verified user for a new address", async () => {
      const email = uniqueEmail("otp-newcomer");
      const browser = aBrowser();
      await browser.client.emailOtp.sendVerificationOtp({ email, type: "sign-in" });
      const otp = await codeFor(platform.smtp, email, SIGN_IN_CODE);
      const { data, error } = await browser.client.signIn.emailOtp({ email, otp, name: "Newcomer" } as { email: string; otp: string });
      expect(error).toBeNull();
      expect(data!.user).toMatchObject({ email, emailVerified: true, name: "Newcomer" });
    });

    it("answers an unknown address as a known one for verification and reset, mails it nothing, and counts tries alike", async () => {
      const { email } = await signedUp();
      const stranger = uniqueEmail("stranger");
      const before = platform.smtp.mails.length;
      for (const type of ["email-verification", "forget-password"] as const) {
        const known = await aBrowser().client.emailOtp.sendVerificationOtp({ email, type });
        const unknown = await aBrowser().client.emailOtp.sendVerificationOtp({ email: stranger, type });
        expect(unknown).toEqual(known);
      }
      await platform.mailSettled();
      expect(platform.smtp.mails.slice(before).filter((m) => m.to.includes(stranger))).toEqual([]);
      // Tries at the unknown address run out as at a known one: nothing tells the two apart.
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push((await aBrowser().client.emailOtp.verifyEmail({ email: stranger, otp: "123456" })).error);
      expect(answers.map((e) => (e as { code?: string }).code)).toEqual(["INVALID_OTP", "INVALID_OTP", "INVALID_OTP", "TOO_MANY_ATTEMPTS"]);
    });

    it("verifies the address with an email-verification code", async () => {
      const { email, user } = await signedUp();
      expect(user.emailVerified).toBe(false);
      const browser = aBrowser();
      await browser.client.emailOtp.sendVerificationOtp({ email, type: "email-verification" });
      const otp = await codeFor(platform.smtp, email, VERIFICATION_CODE);
      const { data, error } = await browser.client.emailOtp.verifyEmail({ email, otp });
      expect(error).toBeNull();
      expect(data).toMatchObject({ status: true, token: null, user: { id: user.id, emailVerified: true } });
    });

    it("resets the password with a code: the old password stops working, the new one signs in", async () => {
      const { email } = await signedUp();
      const browser = aBrowser();
      const asked = await generation.requestResetCode(browser.client, email);
      expect(asked).toEqual({ data: { success: true }, error: null });
      const otp = await codeFor(platform.smtp, email, RESET_CODE);
      if (generation.current) {
        // The check leaves the code for the reset.
        expect(await browser.client.emailOtp.checkVerificationOtp({ email, type: "forget-password", otp })).toEqual({ data: { success: true }, error: null });
      }
      const tooShort = await browser.client.emailOtp.resetPassword({ email, otp, password: "short" });
      expect(tooShort.error).toMatchObject({ status: 400, code: "PASSWORD_TOO_SHORT" });
      const reset = await browser.client.emailOtp.resetPassword({ email, otp, password: "new-password-456" });
      expect(reset).toEqual({ data: { success: true }, error: null });
      expect((await browser.client.emailOtp.resetPassword({ email, otp, password: "another-password-1" })).error).toMatchObject({ code: "INVALID_OTP" });
      expect((await aBrowser().client.signIn.email({ email, password: PASSWORD })).error).toMatchObject({ status: 401 });
      expect((await aBrowser().client.signIn.email({ email, password: "new-password-456" })).error).toBeNull();
    });
  });
});
