/**
 * The real better-auth client, both generations (1.1.9 and the current 1.7), driving changePassword, updateUser, linked accounts and provider tokens through the
 * gateway as a browser app would. Mail goes to a real SMTP server; links are taken from the messages and
 * opened in the same "browser". Every call checks both halves of what the client hands back: `data` on
 * success, `error` on failure.
 */
import { describe, expect, it } from "vitest";
import { CLIENT_GENERATIONS, type ClientGeneration } from "../../testing/better-auth-clients.js";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";
import { betterAuthBrowsers, PASSWORD, sessionCookie, TOKEN } from "./better-auth-browser.js";

const platform = usePlatform({ smtp: true });

describe.each(CLIENT_GENERATIONS)(`better-auth $version client: account settings (${backendLabel()})`, (generation: ClientGeneration) => {
  const { aBrowser, expectSent, signedUp } = betterAuthBrowsers(platform, generation);

  describe("changePassword", () => {
    it("with revokeOtherSessions: data.token is the new session, which the browser now holds; the other browser is signed out", async () => {
      const browser = await signedUp();
      const { client, cookies, email, token: oldToken } = browser;
      const phone = aBrowser();
      expect((await phone.client.signIn.email({ email, password: PASSWORD })).error).toBeNull();

      const { data, error } = await client.changePassword({ currentPassword: PASSWORD, newPassword: "next-password-1", revokeOtherSessions: true });
      expect(error).toBeNull();
      expectSent(browser, "POST", "/change-password", { currentPassword: PASSWORD, newPassword: "next-password-1", revokeOtherSessions: true });
      expect(data!.token).toMatch(TOKEN);
      expect(data!.token).not.toBe(oldToken);
      expect(decodeURIComponent(sessionCookie(cookies)!)).toMatch(new RegExp(`^${data!.token}\\.`));
      expect((await client.getSession()).data!.session.token).toBe(data!.token);
      expect((await phone.client.getSession()).data).toBeNull();

      expect((await aBrowser().client.signIn.email({ email, password: PASSWORD })).error).toMatchObject({ status: 401 });
      expect((await aBrowser().client.signIn.email({ email, password: "next-password-1" })).error).toBeNull();
    });

    it("without revokeOtherSessions: data.token is null and every session lives on", async () => {
      const { client, email, token } = await signedUp();
      const phone = aBrowser();
      await phone.client.signIn.email({ email, password: PASSWORD });
      const { data, error } = await client.changePassword({ currentPassword: PASSWORD, newPassword: "next-password-2", revokeOtherSessions: false });
      expect(error).toBeNull();
      expect(data).toMatchObject({ token: null });
      expect((await client.getSession()).data!.session.token).toBe(token);
      expect((await phone.client.getSession()).data).not.toBeNull();
    });

    it("changePassword errors: wrong current password 400 INVALID_PASSWORD, too short 400 PASSWORD_TOO_SHORT, anonymous 401", async () => {
      const { client } = await signedUp();
      const wrong = await client.changePassword({ currentPassword: "wrong-password", newPassword: "next-password-1" });
      expect(wrong.data).toBeNull();
      expect(wrong.error).toMatchObject({ status: 400, code: "INVALID_PASSWORD", message: "Invalid password" });
      const short = await client.changePassword({ currentPassword: PASSWORD, newPassword: "short" });
      expect(short.data).toBeNull();
      expect(short.error).toMatchObject({ status: 400, code: "PASSWORD_TOO_SHORT", message: "Password too short" });
      const anonymous = await aBrowser().client.changePassword({ currentPassword: PASSWORD, newPassword: "next-password-1" });
      expect(anonymous.error).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    });
  });

  describe("updateUser", () => {
    it("updateUser({ name, image }): data { status: true }; getSession shows both at once", async () => {
      const browser = await signedUp();
      const { client, user } = browser;
      const { data, error } = await client.updateUser({ name: "Grace Hopper", image: "https://img.example/g.png" });
      expect(error).toBeNull();
      expect(data).toEqual({ status: true });
      expectSent(browser, "POST", "/update-user", { name: "Grace Hopper", image: "https://img.example/g.png" });
      const session = await client.getSession();
      expect(session.data!.user).toMatchObject({ id: user.id, name: "Grace Hopper", image: "https://img.example/g.png" });
      // image may be cleared with null.
      expect((await client.updateUser({ image: null })).data).toEqual({ status: true });
      expect((await client.getSession()).data!.user).toMatchObject({ name: "Grace Hopper", image: null });
    });

    it("updateUser errors: an email field 400 EMAIL_CAN_NOT_BE_UPDATED, an empty name 400 VALIDATION_ERROR, anonymous 401", async () => {
      const { client } = await signedUp();
      const email = await client.updateUser({ email: uniqueEmail() } as { name?: string });
      expect(email.data).toBeNull();
      expect(email.error).toMatchObject({ status: 400, code: "EMAIL_CAN_NOT_BE_UPDATED", message: "Email can not be updated" });
      const empty = await client.updateUser({ name: "" });
      expect(empty.data).toBeNull();
      expect(empty.error).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
      expect(empty.error!.message).toMatch(/\bname\b/);
      const anonymous = await aBrowser().client.updateUser({ name: "Nobody" });
      expect(anonymous.error).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    });
  });

  describe("listAccounts and unlinkAccount", () => {
    it("listAccounts: data lists the credential account", async () => {
      const browser = await signedUp();
      const { client, user } = browser;
      const { data, error } = await client.listAccounts();
      expect(error).toBeNull();
      expectSent(browser, "GET", "/list-accounts");
      expect(data).toHaveLength(1);
      expect(data![0]).toMatchObject({ id: expect.any(String), provider: "credential", providerId: "credential", accountId: user.id, userId: user.id, scopes: [] });
      // The client's JSON parser turns the ISO strings into dates.
      expect((data![0] as unknown as { createdAt: unknown }).createdAt).toBeInstanceOf(Date);
      const anonymous = await aBrowser().client.listAccounts();
      expect(anonymous.data).toBeNull();
      expect(anonymous.error).toMatchObject({ status: 401, code: "UNAUTHORIZED", message: "Unauthorized" });
    });

    it("unlinkAccount of the only account (by providerId in 1.1, by the account's id now): error 400 YOU_CANT_UNLINK_YOUR_LAST_ACCOUNT", async () => {
      const browser = await signedUp();
      const { client } = browser;
      const [account] = (await client.listAccounts()).data!;
      // The 1.1 client names the provider; the current one the platform's account id.
      const selection = generation.current ? { accountId: account!.id } : { providerId: "credential" };
      const { data, error } = await client.unlinkAccount(selection as { accountId: string });
      expectSent(browser, "POST", "/unlink-account", selection);
      expect(data).toBeNull();
      expect(error).toMatchObject({ status: 400, code: "YOU_CANT_UNLINK_YOUR_LAST_ACCOUNT", message: "You can't unlink your last account" });
      expect((await client.listAccounts()).data).toHaveLength(1);
      const unknown = await client.unlinkAccount({ accountId: "no-such-account" });
      expect(unknown.error).toMatchObject({ status: 400, code: "ACCOUNT_NOT_FOUND" });
      const anonymous = await aBrowser().client.unlinkAccount(selection as { accountId: string });
      expect(anonymous.error).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    });
  });

  describe.runIf(generation.current)("provider tokens for a credential-only user (getAccessToken, refreshToken, accountInfo)", () => {
    it("each answers 400 ACCOUNT_NOT_FOUND for the credential account and for an unknown one; 401 without a session", async () => {
      const browser = await signedUp();
      const { client } = browser;
      const [credential] = (await client.listAccounts()).data!;
      for (const accountId of [credential!.id, "no-such-account"]) {
        const token = await client.getAccessToken({ accountId });
        expectSent(browser, "POST", "/get-access-token", { accountId });
        const refreshed = await client.refreshToken({ accountId });
        expectSent(browser, "POST", "/refresh-token", { accountId });
        const info = await client.accountInfo({ query: { accountId } });
        expectSent(browser, "GET", "/account-info");
        for (const { data, error } of [token, refreshed, info]) {
          expect(data).toBeNull();
          expect(error).toMatchObject({ status: 400, code: "ACCOUNT_NOT_FOUND", message: "Account not found" });
        }
      }
      // Earlier clients chose by provider; the credential provider holds no provider tokens either.
      const byProvider = await client.$fetch("/get-access-token", { method: "POST", body: { providerId: "credential" } });
      expect(byProvider.error).toMatchObject({ status: 400, code: "ACCOUNT_NOT_FOUND" });
      const anonymous = aBrowser().client;
      expect((await anonymous.getAccessToken({ accountId: credential!.id })).error).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
      expect((await anonymous.refreshToken({ accountId: credential!.id })).error).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
      expect((await anonymous.accountInfo({ query: { accountId: credential!.id } })).error).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    });
  });
});
