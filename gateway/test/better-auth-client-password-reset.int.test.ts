/**
 * The real better-auth client, both generations (1.1.9 and the current 1.7), driving the reset request and resetPassword through the
 * gateway as a browser app would. Mail goes to a real SMTP server; links are taken from the messages and
 * opened in the same "browser". Every call checks both halves of what the client hands back: `data` on
 * success, `error` on failure.
 */
import { describe, expect, it } from "vitest";
import { CLIENT_GENERATIONS, type ClientGeneration } from "../../testing/better-auth-clients.js";
import { backendLabel } from "../../testing/databases.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { linkIn } from "../../testing/smtp.js";
import { usePlatform } from "../../testing/use-platform.js";
import { accountHelpers } from "./accounts.js";
import { betterAuthBrowsers, EVIL, PASSWORD, TOKEN } from "./better-auth-browser.js";

const platform = usePlatform({ smtp: true });
const { smtp } = accountHelpers(platform);

describe.each(CLIENT_GENERATIONS)(`better-auth $version client: password reset (${backendLabel()})`, (generation: ClientGeneration) => {
  const { aBrowser, expectSent, signedUp } = betterAuthBrowsers(platform, generation);

  describe("the reset request (forgetPassword in 1.1, requestPasswordReset now) and resetPassword", () => {
    it("the request mails a link; the link lands on redirectTo with the token; resetPassword sets the password once", async () => {
      const { email } = await signedUp();
      const browser = aBrowser();
      const { data, error } = await generation.requestPasswordReset(browser.client, { email, redirectTo: "/reset" });
      expect(error).toBeNull();
      expect(data).toEqual({ status: true, message: expect.any(String) });
      expectSent(browser, "POST", generation.resetRequestPath, { email, redirectTo: "/reset" });

      const link = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/reset-password/")), "/reset-password/");
      const landing = await browser.open(link);
      expect(landing.status).toBe(302);
      const location = new URL(landing.location!, "http://app.invalid");
      expect(location.pathname).toBe("/reset");
      const token = location.searchParams.get("token")!;
      expect(token).toMatch(/^[A-Za-z0-9]{24}$/);

      const tooShort = await browser.client.resetPassword({ newPassword: "short", token });
      expect(tooShort.data).toBeNull();
      expect(tooShort.error).toMatchObject({ status: 400, code: "PASSWORD_TOO_SHORT", message: "Password too short" });

      const reset = await browser.client.resetPassword({ newPassword: "new-password-456", token });
      expect(reset.error).toBeNull();
      expect(reset.data).toEqual({ status: true });
      expectSent(browser, "POST", "/reset-password", { newPassword: "new-password-456", token });

      const again = await browser.client.resetPassword({ newPassword: "another-password-1", token });
      expect(again.data).toBeNull();
      expect(again.error).toMatchObject({ status: 400, code: "INVALID_TOKEN", message: "invalid token" });

      const old = await aBrowser().client.signIn.email({ email, password: PASSWORD });
      expect(old.error).toMatchObject({ status: 401, code: "INVALID_EMAIL_OR_PASSWORD" });
      const fresh = await aBrowser().client.signIn.email({ email, password: "new-password-456" });
      expect(fresh.error).toBeNull();
      expect(fresh.data!.token).toMatch(TOKEN);
      // The used link now lands on redirectTo with the error.
      expect((await browser.open(link)).location).toBe("/reset?error=INVALID_TOKEN");
    });

    it("the request answers the same data for an unknown address and mails nothing; a malformed one is 400 INVALID_EMAIL", async () => {
      const { email } = await signedUp();
      const known = await generation.requestPasswordReset(aBrowser().client, { email, redirectTo: "/reset" });
      const before = smtp.mails.length;
      const ghost = uniqueEmail("ghost");
      const { data, error } = await generation.requestPasswordReset(aBrowser().client, { email: ghost, redirectTo: "/reset" });
      expect(error).toBeNull();
      expect(data).toEqual(known.data);
      const malformed = await generation.requestPasswordReset(aBrowser().client, { email: "not-an-email", redirectTo: "/reset" });
      expect(malformed.data).toBeNull();
      expect(malformed.error).toMatchObject({ status: 400, code: "INVALID_EMAIL", message: "Invalid email" });
      await platform.mailSettled();
      expect(smtp.mails.slice(before).filter((m) => m.to.includes(ghost))).toEqual([]);
    });

    it("the request with an untrusted redirectTo is error 403 INVALID_REDIRECTURL; resetPassword with a forged token 400 INVALID_TOKEN", async () => {
      const { email } = await signedUp();
      const evil = await generation.requestPasswordReset(aBrowser().client, { email, redirectTo: EVIL });
      expect(evil.data).toBeNull();
      expect(evil.error).toMatchObject({ status: 403, code: "INVALID_REDIRECTURL", message: "Invalid redirectURL" });
      const forged = await aBrowser().client.resetPassword({ newPassword: "whatever-1234", token: "A".repeat(24) });
      expect(forged.data).toBeNull();
      expect(forged.error).toMatchObject({ status: 400, code: "INVALID_TOKEN", message: "invalid token" });
    });
  });

  // Plain HTTP, the same for either client: run once.
  describe.runIf(generation.current)("both forgot-password paths over plain HTTP (1.1 clients call /forget-password, 1.7 /request-password-reset)", () => {
    for (const path of ["/forget-password", "/request-password-reset"]) {
      it(`POST ${path} mails a working reset link and answers alike for known and unknown addresses, 400 for malformed ones`, async () => {
        const { email } = await signedUp();
        const http = new TestClient(platform.baseURL);
        const known = await http.post(path, { email, redirectTo: "/reset" });
        const unknown = await http.post(path, { email: uniqueEmail("nobody"), redirectTo: "/reset" });
        expect({ status: known.status, body: known.body }).toEqual({ status: 200, body: { status: true, message: expect.any(String) } });
        expect({ status: unknown.status, body: unknown.body }).toEqual({ status: 200, body: known.body });
        for (const email of ["not-an-email", "a@", "@b.example", " "]) {
          expect(await http.post(path, { email, redirectTo: "/reset" })).toMatchObject({ status: 400, body: { code: "INVALID_EMAIL", message: "Invalid email" } });
        }
        const evil = await http.post(path, { email, redirectTo: EVIL });
        expect(evil).toMatchObject({ status: 403, body: { code: "INVALID_REDIRECTURL", message: "Invalid redirectURL" } });

        const link = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/reset-password/")), "/reset-password/");
        expect(new URL(link).searchParams.get("callbackURL")).toBe("/reset");
        const token = new URL(link).pathname.split("/").pop()!;
        expect((await http.post("/reset-password", { newPassword: `${path}-pw-1`, token })).body).toEqual({ status: true });
        expect((await http.post("/sign-in/email", { email, password: `${path}-pw-1` })).status).toBe(200);
      });
    }
  });
});
