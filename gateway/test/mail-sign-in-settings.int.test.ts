/** Mail sign-in as configured otherwise: sign-up by link off, codes off (and what the web app is told). */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";
import { magicLinkFor } from "./mail-sign-in-helpers.js";

const platform = usePlatform({ smtp: true, env: { IDENTITY_MAGIC_LINK_ENABLED: "true", IDENTITY_MAGIC_LINK_SIGN_UP: "false" } });

describe(`mail sign-in, sign-up by link off and codes off (${backendLabel()})`, () => {
  it("tells the app only the link is on", async () => {
    expect((await platform.client().get("/mail-sign-in-options")).body).toEqual({ magicLink: true, emailOtp: false });
  });

  it("answers a new address as a known one but mails it nothing; a user's address still gets its link", async () => {
    const c = platform.client();
    const stranger = uniqueEmail("stranger");
    const answer = await c.post("/sign-in/magic-link", { email: stranger, callbackURL: "/dashboard" });
    const email = uniqueEmail("member");
    expect((await c.post("/sign-up/email", { name: "Ada", email, password: "password-123" })).status).toBe(200);
    const known = await c.post("/sign-in/magic-link", { email, callbackURL: "/dashboard" });
    expect(answer).toMatchObject({ status: 200, body: known.body });
    expect(await magicLinkFor(platform.smtp, email)).toContain("/magic-link/verify");
    await platform.mailSettled();
    expect(platform.smtp.mails.filter((m) => m.to.includes(stranger))).toEqual([]);
  });

  it("answers every code route EMAIL_OTP_ISNT_ENABLED", async () => {
    const c = platform.client();
    const email = uniqueEmail("otp-off");
    for (const [path, body] of [
      ["/email-otp/send-verification-otp", { email, type: "sign-in" }],
      ["/sign-in/email-otp", { email, otp: "123456" }],
      ["/email-otp/verify-email", { email, otp: "123456" }],
      ["/email-otp/request-password-reset", { email }],
      ["/email-otp/reset-password", { email, otp: "123456", password: "password-456" }],
    ] as const) {
      expect(await c.post(path, body)).toMatchObject({ status: 400, body: { code: "EMAIL_OTP_ISNT_ENABLED", message: "Email OTP isn't enabled" } });
    }
  });
});
