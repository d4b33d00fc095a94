/**
 * Change email end to end with real SMTP: at once for an unverified user, confirmed from the old address for
 * a verified one; refusals; and with change-email disabled, what a stale session may still do.
 */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { linkIn } from "../../testing/smtp.js";
import { usePlatform } from "../../testing/use-platform.js";
import { STRICT_ENV, accountHelpers, withCallback } from "./accounts.js";

describe(`change email (${backendLabel()})`, () => {
  const platform = usePlatform({ smtp: true });
  const { client, follow, signUp, smtp } = accountHelpers(platform);

  describe("change email", () => {
    it("changes an unverified user's address at once and mails the new address a verification link", async () => {
      const { c } = await signUp();
      const newEmail = uniqueEmail("moved");
      expect(await c.post("/change-email", { newEmail, callbackURL: "/settings" })).toMatchObject({ status: 200, body: { status: true } });
      expect((await c.get("/get-session")).body.user).toMatchObject({ email: newEmail, emailVerified: false });
      const mail = await smtp.waitFor(newEmail, (m) => m.text.includes("/verify-email"));
      expect((await follow(c, linkIn(mail, "/verify-email"))).status).toBe(302);
      expect((await c.get("/get-session")).body.user).toMatchObject({ email: newEmail, emailVerified: true });
    });

    it("a verified user confirms from the old address; the new one must then be verified", async () => {
      const { c, email } = await signUp();
      await follow(c, linkIn(await smtp.waitFor(email, (m) => m.text.includes("/verify-email")), "/verify-email"));
      const newEmail = uniqueEmail("confirmed");
      expect((await c.post("/change-email", { newEmail })).body).toEqual({ status: true });
      expect((await c.get("/get-session")).body.user.email).toBe(email);
      const confirmation = await smtp.waitFor(email, (m) => m.text.includes(newEmail));
      const approval = withCallback(linkIn(confirmation, "/verify-email"), "/settings");
      // Opened with no session, or in another user's session, the approval changes nothing.
      const stranger = await signUp();
      for (const elsewhere of [client(), stranger.c]) {
        const refused = await follow(elsewhere, approval);
        expect({ status: refused.status, location: refused.headers.get("location") }).toEqual({ status: 302, location: "/settings?error=unauthorized" });
      }
      const noCallback = new URL(approval);
      noCallback.searchParams.delete("callbackURL");
      expect(await follow(client(), noCallback.toString())).toMatchObject({ status: 401, body: { code: "UNAUTHORIZED" } });
      expect((await c.get("/get-session")).body.user).toMatchObject({ email, emailVerified: true });
      expect((await client().post("/sign-in/email", { email: newEmail, password: "password-123" })).status).toBe(401);

      const res = await follow(c, approval);
      expect(res.headers.get("location")).toBe("/settings");
      expect((await c.get("/get-session")).body.user).toMatchObject({ email: newEmail, emailVerified: false });
      await smtp.waitFor(newEmail, (m) => m.text.includes("/verify-email"));
      expect((await client().post("/sign-in/email", { email: newEmail, password: "password-123" })).status).toBe(200);
    });

    describe("a confirmation link moves only the user it was issued to", () => {
      /** A verified user's approval of a move to a new address, then B signed up with A's address once `vacate` took it from A. */
      async function addressTakenOver(vacate: (a: Awaited<ReturnType<typeof signUp>>) => Promise<void>) {
        const a = await signUp();
        await follow(a.c, linkIn(await smtp.waitFor(a.email, (m) => m.text.includes("/verify-email")), "/verify-email"));
        const newEmail = uniqueEmail("wanted");
        expect((await a.c.post("/change-email", { newEmail })).body).toEqual({ status: true });
        const approval = linkIn(await smtp.waitFor(a.email, (m) => m.text.includes(newEmail)), "/verify-email");
        await vacate(a);
        const b = await signUp(a.email);
        return { a, b, approval, newEmail };
      }

      /** Opened in B's session, A's approval is answered as a bad link, and B stays where it is, unverified. */
      async function expectRefusedForB({ b, approval, newEmail }: Awaited<ReturnType<typeof addressTakenOver>>) {
        const mangled = new URL(approval);
        mangled.searchParams.set("token", `${mangled.searchParams.get("token")}x`);
        const answer = async (link: string) => {
          const res = await follow(b.c, link);
          return { status: res.status, location: res.headers.get("location"), body: res.body };
        };
        expect(await answer(approval)).toEqual(await answer(mangled.toString()));
        expect(await answer(approval)).toMatchObject({ status: 302, location: "/?error=invalid_token" });
        expect((await b.c.get("/get-session")).body.user).toMatchObject({ id: b.user.id, email: b.email, emailVerified: false });
        expect((await client().post("/sign-in/email", { email: newEmail, password: "password-123" })).status).toBe(401);
      }

      it("once A moved to another address and B signed up with A's old one, B's session cannot use A's approval", async () => {
        const elsewhere = uniqueEmail("elsewhere");
        const taken = await addressTakenOver(async (a) => {
          expect((await a.c.post("/change-email", { newEmail: elsewhere })).body).toEqual({ status: true });
          await follow(a.c, linkIn(await smtp.waitFor(a.email, (m) => m.text.includes(elsewhere)), "/verify-email"));
          expect((await a.c.get("/get-session")).body.user.email).toBe(elsewhere);
        });
        await expectRefusedForB(taken);
        // Nor does A's own session: the approval was for the address A has left.
        expect((await follow(taken.a.c, taken.approval)).headers.get("location")).toBe("/?error=invalid_token");
        expect((await taken.a.c.get("/get-session")).body.user.email).toBe(elsewhere);
      });

      it("once A deleted the account and B signed up with the address, B's session cannot use A's approval", async () => {
        await expectRefusedForB(
          await addressTakenOver(async (a) => {
            expect((await a.c.post("/delete-user", { password: a.password })).status).toBe(200);
            await follow(a.c, linkIn(await smtp.waitFor(a.email, (m) => m.text.includes("/delete-user/callback")), "/delete-user/callback"));
            expect((await client().post("/sign-in/email", { email: a.email, password: a.password })).status).toBe(401);
          }),
        );
      });
    });

    it("refuses the same address, a taken one, a malformed one, and anonymous callers", async () => {
      const { c, email } = await signUp();
      const other = await signUp();
      expect(await c.post("/change-email", { newEmail: email.toUpperCase() })).toMatchObject({ status: 400, body: { code: "EMAIL_IS_THE_SAME", message: "Email is the same" } });
      expect(await c.post("/change-email", { newEmail: other.email })).toMatchObject({
        status: 400,
        body: { code: "COULDNT_UPDATE_YOUR_EMAIL", message: "Couldn't update your email" },
      });
      expect(await c.post("/change-email", { newEmail: "nope" })).toMatchObject({ status: 400, body: { code: "INVALID_EMAIL" } });
      expect((await client().post("/change-email", { newEmail: uniqueEmail() })).status).toBe(401);
    });
  });
});

describe(`change email, stricter configuration (${backendLabel()})`, () => {
  const strict = usePlatform({ smtp: true, env: STRICT_ENV });
  const { smtp } = accountHelpers(strict);
  const c = () => strict.client();

  it("change email can be disabled; stale sessions cannot delete the user or unlink accounts", async () => {
    const email = uniqueEmail("stale");
    await c().post("/sign-up/email", { name: "St", email, password: "password-123" });
    const browser = c();
    await browser.get(linkIn(await smtp.waitFor(email, (m) => m.text.includes("/verify-email")), "/verify-email").slice(strict.baseURL.length));
    expect(await browser.post("/change-email", { newEmail: uniqueEmail() })).toMatchObject({
      status: 400,
      body: { code: "CHANGE_EMAIL_IS_DISABLED", message: "Change email is disabled" },
    });
    strict.clock.advance(1_200);
    expect(await browser.post("/delete-user", {})).toMatchObject({ status: 403, body: { code: "SESSION_IS_NOT_FRESH", message: "Session is not fresh" } });
    expect(await browser.post("/unlink-account", { providerId: "credential" })).toMatchObject({ status: 403, body: { code: "SESSION_IS_NOT_FRESH" } });
    // The password still works on a stale session.
    expect((await browser.post("/delete-user", { password: "password-123" })).body).toMatchObject({ success: true });
  });
});
