/**
 * better-auth's adminClient, both generations (1.1.9 and 1.7), driving the admin routes as an admin
 * dashboard would: listUsers (search, filter, sort, paging), createUser, setRole, banUser (and the banned
 * user's sign-in answered BANNED_USER), unbanUser,
 * impersonateUser, stopImpersonating (listSessions and the revoke calls while impersonating), listUserSessions,
 * revokeUserSession(s), removeUser.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuthClient as createLegacyClient } from "better-auth/client";
import { adminClient as legacyAdminClient } from "better-auth/client/plugins";
import { createAuthClient as createCurrentClient } from "better-auth-1.7/client";
import { adminClient as currentAdminClient } from "better-auth-1.7/client/plugins";
import { backendLabel } from "../../testing/databases.js";
import { browserFetch } from "../../testing/browser.js";
import { uniqueEmail } from "../../testing/http.js";
import { type Platform, startPlatform } from "../../testing/platform.js";

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform?.stop();
});

const PASSWORD = "password-123";
type CustomFetch = Parameters<typeof createCurrentClient>[0] extends infer O ? (O extends { fetchOptions?: { customFetchImpl?: infer F } } ? F : never) : never;

const currentAdmin = (baseURL: string, customFetchImpl: CustomFetch) => createCurrentClient({ baseURL, plugins: [currentAdminClient()], fetchOptions: { customFetchImpl } });
type AdminAuthClient = ReturnType<typeof currentAdmin>;
const GENERATIONS = [
  {
    version: "1.1.9",
    make: (baseURL: string, f: CustomFetch) => createLegacyClient({ baseURL, plugins: [legacyAdminClient()], fetchOptions: { customFetchImpl: f } }) as unknown as AdminAuthClient,
  },
  { version: "1.7.25", make: currentAdmin },
];

describe.each(GENERATIONS)(`better-auth $version adminClient against the gateway (${backendLabel()})`, (generation) => {
  function aBrowser() {
    const { cookies, customFetchImpl } = browserFetch(platform.origin);
    return { client: generation.make(platform.baseURL, customFetchImpl as CustomFetch), cookies };
  }

  async function signedUp(name = "Grace") {
    const browser = aBrowser();
    const email = uniqueEmail(name.toLowerCase());
    const { data, error } = await browser.client.signUp.email({ name, email, password: PASSWORD });
    expect(error).toBeNull();
    return { ...browser, email, id: data!.user.id };
  }

  async function anAdmin() {
    const { email, id } = await signedUp("Ada");
    await platform.services.identity.deps.store.updateUser(id, { role: "admin" });
    const browser = aBrowser();
    expect((await browser.client.signIn.email({ email, password: PASSWORD })).error).toBeNull();
    return { ...browser, id, email };
  }

  it("createUser, setRole, listUsers with search, filter, sort and paging", async () => {
    const { client } = await anAdmin();
    const tag = `ba${generation.version.replace(/\./g, "")}${Date.now().toString(36)}`;
    const ids: string[] = [];
    for (const name of ["Anna", "Ben", "Cleo"]) {
      const { data, error } = await client.admin.createUser({ email: `${name.toLowerCase()}.${tag}@example.com`, password: PASSWORD, name: `${name} ${tag}`, role: "user" });
      expect(error).toBeNull();
      expect(data!.user).toMatchObject({ name: `${name} ${tag}`, role: "user", banned: false });
      ids.push(data!.user.id);
    }
    const { data: promoted } = await client.admin.setRole({ userId: ids[1]!, role: "admin" });
    expect(promoted!.user.role).toBe("admin");

    const sorted = await client.admin.listUsers({ query: { searchValue: tag, searchField: "email", searchOperator: "contains", sortBy: "name", sortDirection: "desc" } });
    expect(sorted.error).toBeNull();
    expect(sorted.data!.total).toBe(3);
    expect(sorted.data!.users.map((u) => u.name.split(" ")[0])).toEqual(["Cleo", "Ben", "Anna"]);

    const page = await client.admin.listUsers({ query: { searchValue: tag, sortBy: "name", sortDirection: "asc", limit: 2, offset: 2 } });
    expect(page.data!.users.map((u) => u.name.split(" ")[0])).toEqual(["Cleo"]);
    expect(page.data!.total).toBe(3);

    const admins = await client.admin.listUsers({ query: { searchValue: tag, filterField: "role", filterOperator: "eq", filterValue: "admin" } });
    expect(admins.data!.users.map((u) => u.id)).toEqual([ids[1]]);
    const byName = await client.admin.listUsers({ query: { searchValue: "anna", searchField: "name", searchOperator: "starts_with" } });
    expect(byName.data!.users.map((u) => u.id)).toContain(ids[0]);
    const unverified = await client.admin.listUsers({ query: { searchValue: tag, filterField: "emailVerified", filterValue: false } });
    expect(unverified.data!.total).toBe(3);

    const bad = await client.admin.listUsers({ query: { filterField: "banned", filterOperator: "gt", filterValue: true } });
    expect(bad.error).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
  });

  it("createUser with a role, and without one (the 1.1 server required it): the default role", async () => {
    const { client } = await anAdmin();
    const withRole = await client.admin.createUser({ email: uniqueEmail("with-role"), password: PASSWORD, name: "With Role", role: "admin" });
    expect(withRole.error).toBeNull();
    expect(withRole.data!.user).toMatchObject({ name: "With Role", role: "admin" });
    const email = uniqueEmail("default-role");
    const withoutRole = await client.admin.createUser({ email, password: PASSWORD, name: "Default Role" });
    expect(withoutRole.error).toBeNull();
    expect(withoutRole.data!.user).toMatchObject({ email, name: "Default Role", role: "user" });
    // The user is real: it signs in with its password, with the default role.
    const signedIn = await aBrowser().client.signIn.email({ email, password: PASSWORD });
    expect(signedIn.error).toBeNull();
    expect(signedIn.data!.user).toMatchObject({ id: withoutRole.data!.user.id, role: "user" });
  });

  it.runIf(generation.version === "1.7.25")("listUsers with the 1.7 filter operators: contains, starts_with, in and not_in with a list", async () => {
    const { client } = await anAdmin();
    const tag = `bf${Date.now().toString(36)}`;
    const users = [];
    for (const [name, role] of [
      ["Anna", "user"],
      ["Ben", ["user", "admin"]],
      ["Cleo", "user"],
    ] as const) {
      const { data, error } = await client.admin.createUser({
        email: `${name.toLowerCase()}.${tag}@example.com`,
        password: PASSWORD,
        name: `${name} ${tag}`,
        role: role as "user",
      });
      expect(error).toBeNull();
      users.push(data!.user);
    }
    // A role no admin may set, which a contains match on "admin" finds too.
    await platform.services.identity.deps.store.updateUser(users[2]!.id, { role: "superadmin" });
    const names = async (query: Parameters<typeof client.admin.listUsers>[0]["query"]) => {
      const { data, error } = await client.admin.listUsers({ query: { searchValue: tag, sortBy: "name", ...query } });
      expect(error).toBeNull();
      return data!.users.map((u) => u.name.split(" ")[0]);
    };
    expect(await names({ filterField: "role", filterOperator: "contains", filterValue: "ADMIN" })).toEqual(["Ben", "Cleo"]);
    expect(await names({ filterField: "role", filterOperator: "ends_with", filterValue: ",admin" })).toEqual(["Ben"]);
    expect(await names({ filterField: "name", filterOperator: "starts_with", filterValue: "%" })).toEqual([]);
    expect(await names({ filterField: "id", filterOperator: "in", filterValue: [users[0]!.id, users[2]!.id] })).toEqual(["Anna", "Cleo"]);
    expect(await names({ filterField: "id", filterOperator: "in", filterValue: [users[1]!.id] })).toEqual(["Ben"]);
    expect(await names({ filterField: "role", filterOperator: "not_in", filterValue: ["user", "superadmin"] })).toEqual(["Ben"]);
    expect(await names({ filterField: "createdAt", filterOperator: "in", filterValue: [new Date(users[0]!.createdAt).getTime()] })).toEqual(["Anna"]);

    const bad = await client.admin.listUsers({ query: { filterField: "createdAt", filterOperator: "contains", filterValue: "2024" } });
    expect(bad.error).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
    expect(bad.error!.message).toContain("filterOperator");
  });

  it("banUser ends the user's sessions, unbanUser lets the user back", async () => {
    const { client } = await anAdmin();
    const user = await signedUp();
    const { data, error } = await client.admin.banUser({ userId: user.id, banReason: "spam", banExpiresIn: 3600 });
    expect(error).toBeNull();
    expect(data!.user).toMatchObject({ banned: true, banReason: "spam" });
    expect((await user.client.getSession()).data).toBeNull();
    // The right password is told the ban (better-auth 1.7's code) and its end; a wrong one the generic failure.
    const refused = (await aBrowser().client.signIn.email({ email: user.email, password: PASSWORD })).error as { status: number; code?: string; banExpires?: string | Date } | null;
    expect(refused).toMatchObject({ status: 403, code: "BANNED_USER" });
    expect(new Date(refused!.banExpires!).getTime()).toBe(new Date(data!.user.banExpires!).getTime());
    expect((await aBrowser().client.signIn.email({ email: user.email, password: "wrong-password" })).error).toMatchObject({ status: 401, code: "INVALID_EMAIL_OR_PASSWORD" });
    const self = await client.admin.banUser({ userId: (await client.getSession()).data!.user.id });
    expect(self.error).toMatchObject({ status: 400, code: "YOU_CANNOT_BAN_YOURSELF" });
    expect((await client.admin.unbanUser({ userId: user.id })).data!.user.banned).toBe(false);
    expect((await aBrowser().client.signIn.email({ email: user.email, password: PASSWORD })).error).toBeNull();
  });

  it("unbanUser clears the reason and the expiry with the ban; the reason stays in the audit log", async () => {
    const { client } = await anAdmin();
    const user = await signedUp();
    await client.admin.banUser({ userId: user.id, banReason: "chargeback fraud, ticket 4711", banExpiresIn: 3600 });
    const lifted = { banned: false, banReason: null, banExpires: null };
    const { data, error } = await client.admin.unbanUser({ userId: user.id });
    expect(error).toBeNull();
    expect(data!.user).toMatchObject(lifted);
    const listed = await client.admin.listUsers({ query: { filterField: "id", filterValue: user.id } });
    expect(listed.data!.users).toEqual([expect.objectContaining({ id: user.id, ...lifted })]);
    // Back in, the user's own session shows nothing of the admin's note.
    const back = aBrowser();
    expect((await back.client.signIn.email({ email: user.email, password: PASSWORD })).error).toBeNull();
    expect((await back.client.getSession()).data!.user).toMatchObject(lifted);
    const audit = await client.$fetch<{ events: { action: string; details: { reason?: string } }[] }>("/admin/list-audit-events", {
      method: "GET",
      query: { targetId: user.id, action: "user.ban" },
    });
    expect(audit.data!.events.map((event) => event.details.reason)).toEqual(["chargeback fraud, ticket 4711"]);
  });

  it("impersonateUser and stopImpersonating", async () => {
    const admin = await anAdmin();
    const user = await signedUp();
    const { data, error } = await admin.client.admin.impersonateUser({ userId: user.id });
    expect(error).toBeNull();
    expect((data!.session as { impersonatedBy?: string }).impersonatedBy).toBe(admin.id);
    expect((await admin.client.getSession()).data!.user.id).toBe(user.id);
    expect((await user.client.listSessions()).data!.map((s) => s.token)).not.toContain(data!.session.token);
    const stopped = await admin.client.admin.stopImpersonating();
    expect(stopped.error).toBeNull();
    expect((await admin.client.getSession()).data!.user.id).toBe(admin.id);
    expect((await admin.client.admin.stopImpersonating()).error).toMatchObject({ status: 400 });
  });

  it("while impersonating, listSessions gives handles, not the user's tokens, and the revoke calls are refused", async () => {
    const admin = await anAdmin();
    const user = await signedUp();
    const userToken = (await user.client.getSession()).data!.session.token;
    expect((await admin.client.admin.impersonateUser({ userId: user.id })).error).toBeNull();

    const listed = await admin.client.listSessions();
    expect(listed.error).toBeNull();
    expect(listed.data).toHaveLength(1);
    expect(listed.data![0]!.token).toMatch(/^sh2\./);
    expect(listed.data![0]!.token).not.toContain(userToken);
    const refused = { status: 403, code: "YOU_CANNOT_REVOKE_SESSIONS_WHILE_IMPERSONATING" };
    expect((await admin.client.revokeSession({ token: listed.data![0]!.token })).error).toMatchObject(refused);
    expect((await admin.client.revokeOtherSessions()).error).toMatchObject(refused);
    expect((await admin.client.revokeSessions()).error).toMatchObject(refused);
    expect((await admin.client.changePassword({ currentPassword: PASSWORD, newPassword: "new-password-456", revokeOtherSessions: true })).error).toMatchObject(refused);

    expect((await admin.client.admin.stopImpersonating()).error).toBeNull();
    expect((await user.client.getSession()).data!.session.token).toBe(userToken);
    // The user's own client still lists the raw token.
    expect((await user.client.listSessions()).data!.map((s) => s.token)).toEqual([userToken]);
  });

  it("listUserSessions, revokeUserSession, revokeUserSessions, removeUser", async () => {
    const { client } = await anAdmin();
    const user = await signedUp();
    const other = aBrowser();
    await other.client.signIn.email({ email: user.email, password: PASSWORD });
    const listed = await client.admin.listUserSessions({ userId: user.id });
    expect(listed.error).toBeNull();
    expect(listed.data!.sessions).toHaveLength(2);
    const revoked = await client.admin.revokeUserSession({ sessionToken: listed.data!.sessions[0]!.token });
    expect(revoked.data).toEqual({ success: true });
    expect((await client.admin.listUserSessions({ userId: user.id })).data!.sessions).toHaveLength(1);
    expect((await client.admin.revokeUserSessions({ userId: user.id })).data).toEqual({ success: true });
    expect((await user.client.getSession()).data).toBeNull();
    expect((await other.client.getSession()).data).toBeNull();
    expect((await client.admin.removeUser({ userId: user.id })).data).toEqual({ success: true });
    expect((await client.admin.removeUser({ userId: user.id })).error).toMatchObject({ status: 404, code: "USER_NOT_FOUND" });
    expect((await aBrowser().client.signIn.email({ email: user.email, password: PASSWORD })).error?.status).toBe(401);
  });

  it("a user who is not an admin gets the catalogue's 403", async () => {
    const { client } = await signedUp();
    const { error } = await client.admin.listUsers({ query: {} });
    expect(error).toMatchObject({ status: 403, code: "ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT", message: "Only admins can access this endpoint" });
  });
});
