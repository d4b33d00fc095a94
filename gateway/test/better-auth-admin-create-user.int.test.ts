/**
 * better-auth 1.7's adminClient createUser with its optional fields: without a password the user gets no
 * credential account (sign-in with any password is the generic failure, a password reset lets the user in),
 * without a role the default role. Mail goes to a real SMTP server; the reset link is opened in a browser.
 */
import { describe, expect, it } from "vitest";
import { createAuthClient } from "better-auth-1.7/client";
import { adminClient } from "better-auth-1.7/client/plugins";
import { backendLabel } from "../../testing/databases.js";
import { browserFetch } from "../../testing/browser.js";
import { uniqueEmail } from "../../testing/http.js";
import { linkIn } from "../../testing/smtp.js";
import { usePlatform } from "../../testing/use-platform.js";

// editor: a role configured besides the defaults (user, and the admin roles).
const platform = usePlatform({ smtp: true, env: { ADMIN_ASSIGNABLE_ROLES: "user,editor" } });

const PASSWORD = "password-123";
const GENERIC_FAILURE = { status: 401, code: "INVALID_EMAIL_OR_PASSWORD", message: "Invalid email or password" };

describe(`better-auth 1.7 adminClient createUser without a password or a role (${backendLabel()})`, () => {
  function aBrowser() {
    const { cookies, exchanges, customFetchImpl } = browserFetch(platform.origin);
    const client = createAuthClient({ baseURL: platform.baseURL, plugins: [adminClient()], fetchOptions: { customFetchImpl } });
    /** Opens a link (from a mail) in this tab: a GET with the tab's cookies, redirects not followed. */
    const open = async (link: string) => {
      const res = await customFetchImpl(link);
      return { status: res.status, location: res.headers.get("location") };
    };
    return { client, cookies, exchanges, open };
  }

  async function anAdmin() {
    const browser = aBrowser();
    const email = uniqueEmail("ada");
    const { data, error } = await browser.client.signUp.email({ name: "Ada", email, password: PASSWORD });
    expect(error).toBeNull();
    await platform.services.identity.deps.store.updateUser(data!.user.id, { role: "admin" });
    const admin = aBrowser();
    expect((await admin.client.signIn.email({ email, password: PASSWORD })).error).toBeNull();
    return admin;
  }

  const signIn = (email: string, password: string) => aBrowser().client.signIn.email({ email, password });

  it("neither: 200 with the default role and no credential account; no password signs in; the mailed reset link sets one", async () => {
    const admin = await anAdmin();
    const email = uniqueEmail("nopass");
    const { data, error } = await admin.client.admin.createUser({ email, name: "No Pass" });
    expect(error).toBeNull();
    expect(data!.user).toMatchObject({ email, name: "No Pass", role: "user", emailVerified: false, banned: false });
    // What the client put on the wire: neither field.
    expect(JSON.parse(admin.exchanges.at(-1)!.body!)).toEqual({ email, name: "No Pass" });
    expect(await platform.services.identity.deps.store.listAccounts(data!.user.id)).toEqual([]);

    // The answer an unknown address gets, for any password: nothing tells that the user exists without one.
    const unknown = await signIn(uniqueEmail("nobody"), PASSWORD);
    expect(unknown.error).toMatchObject(GENERIC_FAILURE);
    for (const password of [PASSWORD, "", "x".repeat(128)]) {
      const refused = await signIn(email, password);
      expect(refused.data).toBeNull();
      expect(refused.error).toMatchObject(GENERIC_FAILURE);
    }

    const browser = aBrowser();
    const asked = await browser.client.requestPasswordReset({ email, redirectTo: "/reset" });
    expect(asked.error).toBeNull();
    const link = linkIn(await platform.smtp.waitFor(email, (m) => m.text.includes("/reset-password/")), "/reset-password/");
    const landing = await browser.open(link);
    expect(landing.status).toBe(302);
    const token = new URL(landing.location!, "http://app.invalid").searchParams.get("token")!;
    const reset = await browser.client.resetPassword({ newPassword: "chosen-password-1", token });
    expect(reset.error).toBeNull();
    expect(reset.data).toEqual({ status: true });

    const signedIn = await signIn(email, "chosen-password-1");
    expect(signedIn.error).toBeNull();
    expect(signedIn.data!.user).toMatchObject({ id: data!.user.id, role: "user" });
    expect((await platform.services.identity.deps.store.listAccounts(data!.user.id)).map((a) => a.providerId)).toEqual(["credential"]);
  });

  it("a role given (or as data.role) without a password keeps the assignable-role check; a password given keeps its length check", async () => {
    const admin = await anAdmin();
    const created = async (body: Parameters<typeof admin.client.admin.createUser>[0]) => admin.client.admin.createUser(body);

    const editor = await created({ email: uniqueEmail("editor"), name: "Editor", role: "editor" as "user" });
    expect(editor.error).toBeNull();
    expect(editor.data!.user.role).toBe("editor");
    const fromData = await created({ email: uniqueEmail("data"), name: "Data", data: { role: ["user", "editor"] } });
    expect(fromData.error).toBeNull();
    expect(fromData.data!.user.role).toBe("user,editor");

    const refusal = { status: 400, code: "YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE" };
    for (const body of [{ role: "superuser" as "user" }, { data: { role: "superuser" } }]) {
      const email = uniqueEmail("refused");
      expect((await created({ email, name: "Refused", ...body })).error).toMatchObject(refusal);
      expect((await admin.client.admin.listUsers({ query: { searchValue: email } })).data!.users).toEqual([]);
    }
    expect((await created({ email: uniqueEmail("bad"), name: "Bad", data: { role: 5 } })).error).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
    // An empty password is a password that is too short, not "no password": an empty form field creates no one.
    for (const password of ["", "short"]) {
      expect((await created({ email: uniqueEmail("short"), name: "Short", password })).error).toMatchObject({ status: 400, code: "PASSWORD_TOO_SHORT" });
    }
  });
});
