/**
 * Change password, update user and the linked accounts list, end to end.
 */
import { describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";
import { accountHelpers } from "./accounts.js";

describe(`account settings (${backendLabel()})`, () => {
  const platform = usePlatform({ smtp: true });
  const { client, signUp } = accountHelpers(platform);

  describe("change password and update user", () => {
    it("checks the current password, and with revokeOtherSessions ends the others and issues a new session", async () => {
      const { c, email } = await signUp();
      const phone = client();
      await phone.post("/sign-in/email", { email, password: "password-123" });
      expect(await c.post("/change-password", { currentPassword: "wrong-password", newPassword: "next-password-1" })).toMatchObject({
        status: 400,
        body: { code: "INVALID_PASSWORD", message: "Invalid password" },
      });
      const kept = await c.post("/change-password", { currentPassword: "password-123", newPassword: "next-password-1" });
      expect(kept.body).toMatchObject({ token: null, user: { email } });
      expect((await phone.get("/get-session")).body).not.toBeNull();

      const revoked = await c.post("/change-password", { currentPassword: "next-password-1", newPassword: "final-password-2", revokeOtherSessions: true });
      expect(revoked.body.token).toMatch(/^[A-Za-z0-9]{32}$/);
      expect((await phone.get("/get-session")).body).toBeNull();
      expect((await c.get("/get-session")).body.session.token).toBe(revoked.body.token);
      expect((await client().post("/sign-in/email", { email, password: "next-password-1" })).status).toBe(401);
      expect((await client().post("/sign-in/email", { email, password: "final-password-2" })).status).toBe(200);
    });

    it("update-user changes name and image at once in get-session, and refuses the email", async () => {
      const { c } = await signUp();
      expect(await c.post("/update-user", { name: "Grace Hopper", image: "https://img.example/g.png" })).toMatchObject({ status: 200, body: { status: true } });
      expect((await c.get("/get-session")).body.user).toMatchObject({ name: "Grace Hopper", image: "https://img.example/g.png" });
      expect(await c.post("/update-user", { email: uniqueEmail() })).toMatchObject({
        status: 400,
        body: { code: "EMAIL_CAN_NOT_BE_UPDATED", message: "Email can not be updated" },
      });
      // A field that is not an input is ignored, never stored.
      expect(await c.post("/update-user", { favouriteColour: "blue" })).toMatchObject({ status: 200, body: { status: true } });
      expect(Object.keys((await c.get("/get-session")).body.user)).not.toContain("favouriteColour");
      expect((await client().post("/update-user", { name: "x" })).status).toBe(401);
    });

    it("set-password gives a first password only: a user with one is refused, and keeps it", async () => {
      const { c, email } = await signUp();
      expect(await c.post("/set-password", { newPassword: "password-999" })).toMatchObject({ status: 400, body: { code: "USER_ALREADY_HAS_A_PASSWORD" } });
      expect((await client().post("/sign-in/email", { email, password: "password-999" })).status).toBe(401);
    });
  });

  describe("accounts", () => {
    it("lists the credential account and refuses to unlink the last one", async () => {
      const { c, user } = await signUp();
      const list = await c.get("/list-accounts");
      expect(list.status).toBe(200);
      expect(list.body).toEqual([
        {
          id: expect.any(String),
          provider: "credential",
          providerId: "credential",
          accountId: user.id,
          userId: user.id,
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
          scopes: [],
        },
      ]);
      expect(await c.post("/unlink-account", { providerId: "credential" })).toMatchObject({
        status: 400,
        body: { code: "YOU_CANT_UNLINK_YOUR_LAST_ACCOUNT", message: "You can't unlink your last account" },
      });
      expect(await c.post("/unlink-account", { providerId: "github" })).toMatchObject({ status: 400, body: { code: "ACCOUNT_NOT_FOUND" } });
      expect((await client().get("/list-accounts")).status).toBe(401);
    });
  });
});
