/**
 * Password reset end to end with real SMTP: the mailed link, the reset, expired, reused and forged tokens,
 * no enumeration, and the sessions a reset ends.
 */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { linkIn } from "../../testing/smtp.js";
import { usePlatform } from "../../testing/use-platform.js";
import { STRICT_ENV, accountHelpers } from "./accounts.js";

describe(`password reset (${backendLabel()})`, () => {
  const platform = usePlatform({ smtp: true });
  const { client, follow, signUp, smtp } = accountHelpers(platform);

  describe("password reset", () => {
    it("forget-password mails a link; the link lands on the callback with the token; reset works once", async () => {
      const { email } = await signUp();
      const res = await client().post("/forget-password", { email, redirectTo: "/reset" });
      expect(res).toMatchObject({ status: 200, body: { status: true } });
      const mail = await smtp.waitFor(email, (m) => m.text.includes("/reset-password/"));
      const link = linkIn(mail, "/reset-password/");
      const landing = await follow(client(), link);
      expect(landing.status).toBe(302);
      const location = new URL(landing.headers.get("location")!, "http://x");
      expect(location.pathname).toBe("/reset");
      const token = location.searchParams.get("token")!;
      expect(token).toMatch(/^[A-Za-z0-9]{24}$/);

      expect(await client().post("/reset-password", { newPassword: "short", token })).toMatchObject({ status: 400, body: { code: "PASSWORD_TOO_SHORT" } });
      expect(await client().post("/reset-password", { newPassword: "new-password-456", token })).toMatchObject({ status: 200, body: { status: true } });
      expect((await client().post("/sign-in/email", { email, password: "password-123" })).status).toBe(401);
      expect((await client().post("/sign-in/email", { email, password: "new-password-456" })).status).toBe(200);

      // Used once: the token is gone, for the form and for the landing link.
      expect(await client().post("/reset-password", { newPassword: "another-password-1", token })).toMatchObject({ status: 400, body: { code: "INVALID_TOKEN" } });
      expect((await follow(client(), link)).headers.get("location")).toBe("/reset?error=INVALID_TOKEN");
    });

    it("accepts the token in the query, serves /request-password-reset, and refuses forged tokens", async () => {
      const { email } = await signUp();
      await client().post("/request-password-reset", { email, redirectTo: "/reset" });
      const link = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/reset-password/")), "/reset-password/");
      const token = new URL(link).pathname.split("/").pop()!;
      expect((await client().request("POST", `/reset-password?token=${token}`, { json: { newPassword: "query-password-1" } })).status).toBe(200);
      expect((await client().post("/sign-in/email", { email, password: "query-password-1" })).status).toBe(200);
      expect(await client().post("/reset-password", { newPassword: "whatever-1234", token: "A".repeat(24) })).toMatchObject({ status: 400, body: { code: "INVALID_TOKEN" } });
      expect((await client().get(`/reset-password/${"B".repeat(24)}?callbackURL=/reset`)).headers.get("location")).toBe("/reset?error=INVALID_TOKEN");
    });

    it("answers alike for a known and an unknown email, and mails only the known one", async () => {
      const { email } = await signUp();
      await smtp.waitFor(email);
      const before = smtp.mails.length;
      const known = await client().post("/forget-password", { email });
      const unknown = await client().post("/forget-password", { email: uniqueEmail("unknown") });
      expect(known.status).toBe(200);
      expect(known.body).toEqual({ status: true, message: expect.any(String) });
      expect({ status: unknown.status, body: unknown.body }).toEqual({ status: known.status, body: known.body });
      await smtp.waitFor(email, (m) => m.text.includes("/reset-password/"));
      await platform.mailSettled();
      expect(smtp.mails.length).toBe(before + 1);
    });
  });
});

describe(`password reset, stricter configuration (${backendLabel()})`, () => {
  const strict = usePlatform({ smtp: true, env: STRICT_ENV });
  const { smtp } = accountHelpers(strict);
  const c = () => strict.client();

  it("a reset link expires, and a reset ends every session", async () => {
    const email = uniqueEmail("expiring");
    await c().post("/sign-up/email", { name: "E", email, password: "password-123" });
    const browser = c();
    await browser.get(linkIn(await smtp.waitFor(email, (m) => m.text.includes("/verify-email")), "/verify-email").slice(strict.baseURL.length));
    expect((await browser.get("/get-session")).body).not.toBeNull();

    await c().post("/forget-password", { email, redirectTo: "/reset" });
    const first = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/reset-password/")), "/reset-password/");
    strict.clock.advance(1_100);
    expect((await c().get(first.slice(strict.baseURL.length))).headers.get("location")).toBe("/reset?error=INVALID_TOKEN");

    await c().post("/forget-password", { email, redirectTo: "/reset" });
    const second = linkIn(await smtp.waitFor(email, (m) => m.text.includes("/reset-password/") && !m.text.includes(first)), "/reset-password/");
    const token = new URL(second).pathname.split("/").pop()!;
    expect((await c().post("/reset-password", { token, newPassword: "brand-new-pass-1" })).status).toBe(200);
    expect((await browser.get("/get-session")).body).toBeNull();
  });
});
