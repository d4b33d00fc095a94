/**
 * Change email end to end with real SMTP: at once for an unverified user, confirmed from the old address
 * for a verified one.
 */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { linkIn } from "../../testing/smtp.js";
import { usePlatform } from "../../testing/use-platform.js";
import { signUpThrough } from "./accounts.js";

const platform = usePlatform({ smtp: true });
const client = () => platform.client();
const follow = platform.follow;
const signUp = (email?: string, password?: string) => signUpThrough(platform, email, password);

describe(`with real SMTP (${backendLabel()})`, () => {
  describe("change email", () => {
    it("changes an unverified user's address at once and mails the new address a verification link", async () => {
      const { c } = await signUp();
      const newEmail = uniqueEmail("moved");
      expect(await c.post("/change-email", { newEmail, callbackURL: "/settings" })).toMatchObject({ status: 200, body: { status: true } });
      expect((await c.get("/get-session")).body.user).toMatchObject({ email: newEmail, emailVerified: false });
      const mail = await platform.smtp.waitFor(newEmail, (m) => m.text.includes("/verify-email"));
      expect((await follow(c, linkIn(mail, "/verify-email"))).status).toBe(302);
      expect((await c.get("/get-session")).body.user).toMatchObject({ email: newEmail, emailVerified: true });
    });

    it("a verified user confirms from the old address; the new one must then be verified", async () => {
      const { c, email } = await signUp();
      await follow(c, linkIn(await platform.smtp.waitFor(email, (m) => m.text.includes("/verify-email")), "/verify-email"));
      const newEmail = uniqueEmail("confirmed");
      expect((await c.post("/change-email", { newEmail })).body).toEqual({ status: true });
      expect((await c.get("/get-session")).body.user.email).toBe(email);
      const confirmation = await platform.smtp.waitFor(email, (m) => m.text.includes(newEmail));
      const res = await follow(c, `${linkIn(confirmation, "/verify-email")}&callbackURL=/settings`);
      expect(res.headers.get("location")).toBe("/settings");
      expect((await c.get("/get-session")).body.user).toMatchObject({ email: newEmail, emailVerified: false });
      await platform.smtp.waitFor(newEmail, (m) => m.text.includes("/verify-email"));
      expect((await client().post("/sign-in/email", { email: newEmail, password: "password-123" })).status).toBe(200);
    });

    it("refuses the same address, a taken one, a malformed one, and anonymous callers", async () => {
      const { c, email } = await signUp();
      const other = await signUp();
      expect(await c.post("/change-email", { newEmail: email.toUpperCase() })).toMatchObject({ status: 400, body: { code: "EMAIL_IS_THE_SAME", message: "Email is the same" } });
      expect(await c.post("/change-email", { newEmail: other.email })).toMatchObject({ status: 422, body: { code: "USER_ALREADY_EXISTS" } });
      expect(await c.post("/change-email", { newEmail: "nope" })).toMatchObject({ status: 400, body: { code: "INVALID_EMAIL" } });
      expect((await client().post("/change-email", { newEmail: uniqueEmail() })).status).toBe(401);
    });
  });
});
