/**
 * The admin routes through the gateway: success and refusal of each (no session, non-admin, bad input,
 * unknown user), and the admin fields of the user JSON, which no sign-up or update-user can set.
 */
import { describe, expect, it } from "vitest";
import { uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";
import { aUser, anAdmin, PASSWORD } from "./admin-fixtures.js";

// editor: a role configured besides the defaults (user, and the admin roles).
const platform = usePlatform({ env: { ADMIN_ASSIGNABLE_ROLES: "user,editor" } });

const ROUTES: Array<[method: "GET" | "POST", path: string, body?: Record<string, unknown>]> = [
  ["GET", "/admin/list-users"],
  ["GET", "/admin/get-user?id=x"],
  ["GET", "/admin/list-audit-events"],
  ["GET", "/admin/list-roles"],
  ["POST", "/admin/create-user", { email: "x@example.com", password: PASSWORD, name: "X", role: "user" }],
  ["POST", "/admin/set-role", { userId: "x", role: "admin" }],
  ["POST", "/admin/set-user-password", { userId: "x", newPassword: PASSWORD }],
  ["POST", "/admin/list-user-sessions", { userId: "x" }],
  ["POST", "/admin/ban-user", { userId: "x" }],
  ["POST", "/admin/unban-user", { userId: "x" }],
  ["POST", "/admin/impersonate-user", { userId: "x" }],
  ["POST", "/admin/revoke-user-session", { sessionToken: "x" }],
  ["POST", "/admin/revoke-user-sessions", { userId: "x" }],
  ["POST", "/admin/remove-user", { userId: "x" }],
];

describe("who may call the admin routes", () => {
  it.each(ROUTES)("%s %s: 401 without a session", async (method, path, body) => {
    const res = await platform.client().request(method, path, { json: method === "POST" ? body : undefined });
    expect(res.status).toBe(401);
  });

  it.each(ROUTES)("%s %s: 403 for a user who is not an admin", async (method, path, body) => {
    const { c } = await aUser(platform);
    const res = await c.request(method, path, { json: method === "POST" ? body : undefined });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ code: "ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT", message: "Only admins can access this endpoint" });
  });

  it("a demoted admin is refused at once, on the session that was admitted before", async () => {
    const admin = await anAdmin(platform);
    const boss = await anAdmin(platform);
    expect((await admin.c.get("/admin/list-users")).status).toBe(200);
    expect((await boss.c.post("/admin/set-role", { userId: admin.id, role: "user" })).status).toBe(200);
    expect((await admin.c.get("/admin/list-users")).status).toBe(403);
    expect((await admin.c.get("/get-session")).body.user.role).toBe("user");
  });

  it("has-permission answers for any signed-in user, true only for admins", async () => {
    const admin = await anAdmin(platform);
    const { c } = await aUser(platform);
    const asked = { permissions: { user: ["ban"], session: ["revoke"] } };
    expect((await admin.c.post("/admin/has-permission", asked)).body).toEqual({ error: null, success: true });
    expect((await c.post("/admin/has-permission", asked)).body).toEqual({ error: null, success: false });
    expect((await admin.c.post("/admin/has-permission", { permissions: { user: ["fly"] } })).body.success).toBe(false);
    expect((await platform.client().post("/admin/has-permission", asked)).status).toBe(401);
    expect((await admin.c.post("/admin/has-permission", {})).status).toBe(400);
  });
});

/** Bad input to every admin-only route, and the catalogue answer an admin gets for it. */
const BAD_INPUT: Array<[method: "GET" | "POST", path: string, body: unknown, code: string, message: RegExp]> = [
  ["GET", "/admin/list-users?limit=many", undefined, "VALIDATION_ERROR", /^Invalid limit: /],
  // Refused by identity, behind the admin service's role check.
  ["GET", "/admin/list-users?sortBy=password", undefined, "VALIDATION_ERROR", /^Invalid sortBy "password"/],
  ["GET", "/admin/get-user", undefined, "VALIDATION_ERROR", /^Invalid id: /],
  ["GET", "/admin/list-audit-events?since=yesterday", undefined, "VALIDATION_ERROR", /^Invalid since: /],
  ["POST", "/admin/create-user", { email: "x@example.com", password: PASSWORD, name: "X", role: "" }, "VALIDATION_ERROR", /^Invalid role: /],
  ["POST", "/admin/create-user", { email: "x@example.com", password: 5, name: "X" }, "VALIDATION_ERROR", /^Invalid password: /],
  ["POST", "/admin/update-user", { userId: "x", data: { email: "y@example.com" } }, "VALIDATION_ERROR", /^Email cannot be updated/],
  ["POST", "/admin/update-user", { userId: "x", data: {} }, "NO_DATA_TO_UPDATE", /^No data to update$/],
  ["POST", "/admin/set-role", { userId: 5, role: "admin" }, "VALIDATION_ERROR", /^Invalid userId: /],
  ["POST", "/admin/set-user-password", { userId: "x" }, "VALIDATION_ERROR", /^Invalid newPassword: /],
  ["POST", "/admin/list-user-sessions", {}, "VALIDATION_ERROR", /^Invalid userId: /],
  ["POST", "/admin/ban-user", { userId: "x", banExpiresIn: -1 }, "VALIDATION_ERROR", /^Invalid banExpiresIn: /],
  ["POST", "/admin/unban-user", { userId: ["x"] }, "VALIDATION_ERROR", /^Invalid userId: /],
  ["POST", "/admin/impersonate-user", { userId: "" }, "VALIDATION_ERROR", /^Invalid userId: /],
  ["POST", "/admin/revoke-user-session", {}, "VALIDATION_ERROR", /^Invalid sessionToken: /],
  ["POST", "/admin/revoke-user-sessions", { userId: null }, "VALIDATION_ERROR", /^Invalid userId: /],
  ["POST", "/admin/remove-user", { userId: "x".repeat(300) }, "VALIDATION_ERROR", /^Invalid userId: /],
  // Refused before any route runs: malformed JSON, a NUL character.
  ["POST", "/admin/ban-user", '{"userId": ', "VALIDATION_ERROR", /^Malformed JSON body$/],
  ["POST", "/admin/remove-user", { userId: "a\u0000b" }, "VALIDATION_ERROR", /NUL characters$/],
];

/** The audit action a route's attempt is recorded as; reads are not recorded. */
const RECORDED_AS: Record<string, string> = {
  "/admin/create-user": "user.create",
  "/admin/update-user": "user.update",
  "/admin/set-role": "user.set-role",
  "/admin/set-user-password": "user.set-password",
  "/admin/ban-user": "user.ban",
  "/admin/unban-user": "user.unban",
  "/admin/impersonate-user": "user.impersonate.start",
  "/admin/revoke-user-session": "session.revoke",
  "/admin/revoke-user-sessions": "session.revoke-all",
  "/admin/remove-user": "user.remove",
};

describe("bad input to the admin routes is answered to admins only", () => {
  const send = (c: ReturnType<typeof platform.client>, method: string, path: string, body: unknown) =>
    typeof body === "string" ? c.request(method, path, { body, headers: { "content-type": "application/json" } }) : c.request(method, path, { json: body });

  it.each(BAD_INPUT)("%s %s %j: 401 without a session, 403 for a non-admin, the catalogue's 400 for an admin", async (method, path, body, code, message) => {
    expect((await send(platform.client(), method, path, body)).status).toBe(401);
    const user = await aUser(platform);
    const refused = await send(user.c, method, path, body);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ code: "ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT", message: "Only admins can access this endpoint" });
    const admin = await anAdmin(platform);
    const answered = await send(admin.c, method, path, body);
    expect(answered.status).toBe(400);
    expect(answered.body.code).toBe(code);
    expect(answered.body.message).toMatch(message);
    // The non-admin's attempt at an action is in the audit log, as with valid input; the admin's bad input is not.
    const logged = await admin.c.get(`/admin/list-audit-events?actorId=${user.id}`);
    const action = RECORDED_AS[path.split("?")[0]!];
    expect(logged.body.events).toEqual(
      action ? [expect.objectContaining({ action, actorId: user.id, outcome: "failure", details: { input: "invalid", error: "ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT" } })] : [],
    );
    expect((await admin.c.get(`/admin/list-audit-events?actorId=${admin.id}`)).body.events).toEqual([]);
  });

  it("has-permission, open to every signed-in user, answers a user's bad input as it is", async () => {
    const { c } = await aUser(platform);
    expect((await c.post("/admin/has-permission", {})).status).toBe(400);
    expect((await platform.client().post("/admin/has-permission", {})).status).toBe(401);
  });
});

describe("the admin fields of the user", () => {
  it("are served on sign-up, sign-in and get-session, with the default role", async () => {
    const c = platform.client();
    const email = uniqueEmail();
    const up = await c.post("/sign-up/email", { name: "Grace", email, password: PASSWORD });
    expect(up.body.user).toMatchObject({ role: "user", banned: false, banReason: null, banExpires: null });
    const inRes = await platform.client().post("/sign-in/email", { email, password: PASSWORD });
    expect(inRes.body.user).toMatchObject({ role: "user", banned: false, banReason: null, banExpires: null });
    expect((await c.get("/get-session")).body.user).toMatchObject({ role: "user", banned: false, banReason: null, banExpires: null });
  });

  it("cannot be set through sign-up", async () => {
    const c = platform.client();
    const res = await c.post("/sign-up/email", {
      name: "Mallory",
      email: uniqueEmail("mallory"),
      password: PASSWORD,
      role: "admin",
      banned: true,
      banReason: "x",
      banExpires: "2030-01-01T00:00:00Z",
    });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ role: "user", banned: false, banReason: null, banExpires: null });
    expect((await c.get("/admin/list-users")).status).toBe(403);
  });

  it("cannot be set through update-user", async () => {
    const { c } = await aUser(platform, "Mallory");
    const res = await c.post("/update-user", { name: "Mallory", role: "admin", banned: true, banReason: "x" });
    expect(res.status).toBe(200);
    const { user } = (await c.get("/get-session?disableCookieCache=true")).body;
    expect(user).toMatchObject({ name: "Mallory", role: "user", banned: false, banReason: null });
    expect((await c.get("/admin/list-users")).status).toBe(403);
  });
});

describe("admin routes", () => {
  it("create-user, get-user, set-role, set-user-password", async () => {
    const { c } = await anAdmin(platform);
    const email = uniqueEmail("created");
    const created = await c.post("/admin/create-user", { email, password: PASSWORD, name: "Created", role: ["user", "editor"] });
    expect(created.status).toBe(200);
    expect(created.body.user).toMatchObject({ email, name: "Created", role: "user,editor", banned: false });
    const id = created.body.user.id;
    expect((await c.post("/admin/create-user", { email, password: PASSWORD, name: "Again", role: "user" })).body.code).toBe("USER_ALREADY_EXISTS");
    expect((await c.post("/admin/create-user", { email: "not-an-email", password: PASSWORD, name: "X", role: "user" })).status).toBe(400);
    expect((await c.post("/admin/create-user", { email: uniqueEmail(), password: "short", name: "X", role: "user" })).body.code).toBe("PASSWORD_TOO_SHORT");
    // Password and role optional (better-auth 1.7): no role is the default role.
    const defaulted = await c.post("/admin/create-user", { email: uniqueEmail(), password: PASSWORD, name: "X" });
    expect([defaulted.status, defaulted.body.user?.role]).toEqual([200, "user"]);

    expect((await c.get(`/admin/get-user?id=${id}`)).body).toMatchObject({ id, email });
    expect((await c.get("/admin/get-user?id=nobody")).body.code).toBe("USER_NOT_FOUND");

    const promoted = await c.post("/admin/set-role", { userId: id, role: "admin" });
    expect(promoted.body.user.role).toBe("admin");
    expect((await c.post("/admin/set-role", { userId: "nobody", role: "admin" })).status).toBe(404);
    expect((await c.post("/admin/set-role", { userId: id })).status).toBe(400);

    expect((await c.post("/admin/set-user-password", { userId: id, newPassword: "new-password-456" })).body).toEqual({ status: true });
    expect((await platform.client().post("/sign-in/email", { email, password: PASSWORD })).status).toBe(401);
    expect((await platform.client().post("/sign-in/email", { email, password: "new-password-456" })).status).toBe(200);
    expect((await c.post("/admin/set-user-password", { userId: id, newPassword: "short" })).body.code).toBe("PASSWORD_TOO_SHORT");
    expect((await c.post("/admin/set-user-password", { userId: "nobody", newPassword: PASSWORD })).body.code).toBe("USER_NOT_FOUND");
  });

  it("set-role and create-user refuse a role that is not configured, alone or in a list, and change nothing", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    const refusal = { code: "YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE", message: "You are not allowed to set non-existent value" };
    for (const role of ["superuser", ["user", "superuser"], "editor, superuser", "Admin", ","]) {
      const set = await admin.c.post("/admin/set-role", { userId: user.id, role });
      expect([set.status, set.body]).toEqual([400, refusal]);
      const email = uniqueEmail("refused");
      const created = await admin.c.post("/admin/create-user", { email, password: PASSWORD, name: "Refused", role });
      expect([created.status, created.body]).toEqual([400, refusal]);
      expect((await admin.c.get(`/admin/list-users?searchValue=${encodeURIComponent(email)}`)).body.users).toEqual([]);
      expect((await platform.client().post("/sign-in/email", { email, password: PASSWORD })).status).toBe(401);
    }
    expect((await admin.c.get(`/admin/get-user?id=${user.id}`)).body.role).toBe("user");
    expect((await user.c.get("/get-session")).body.user.role).toBe("user");
    // An unknown user with an unknown role: the role is refused first, as better-auth does.
    expect((await admin.c.post("/admin/set-role", { userId: "nobody", role: "superuser" })).body.code).toBe("YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE");
    // The refusals are in the audit log with their code.
    const log = await admin.c.get(`/admin/list-audit-events?actorId=${admin.id}&action=user.set-role`);
    expect(log.body.events[0]).toMatchObject({ outcome: "failure", details: expect.objectContaining({ error: "YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE" }) });

    // Configured roles, alone or together, still work.
    expect((await admin.c.post("/admin/set-role", { userId: user.id, role: ["editor", "user"] })).body.user.role).toBe("editor,user");
    expect((await user.c.get("/get-session")).body.user.role).toBe("editor,user");
    const email = uniqueEmail("editor");
    const created = await admin.c.post("/admin/create-user", { email, password: PASSWORD, name: "Editor", role: "editor" });
    expect(created.status).toBe(200);
    expect(created.body.user).toMatchObject({ email, role: "editor" });
  });

  it("list-user-sessions, revoke-user-session, revoke-user-sessions", async () => {
    const { c } = await anAdmin(platform);
    const user = await aUser(platform);
    const second = platform.client();
    await second.post("/sign-in/email", { email: user.email, password: PASSWORD });
    const listed = await c.post("/admin/list-user-sessions", { userId: user.id });
    expect(listed.body.sessions).toHaveLength(2);
    const [first] = listed.body.sessions;
    expect((await c.post("/admin/revoke-user-session", { sessionToken: first.token })).body).toEqual({ success: true });
    expect((await c.post("/admin/list-user-sessions", { userId: user.id })).body.sessions).toHaveLength(1);
    expect((await c.post("/admin/revoke-user-session", { sessionToken: first.token })).status).toBe(404);
    expect((await c.post("/admin/revoke-user-sessions", { userId: user.id })).body).toEqual({ success: true });
    expect((await user.c.get("/get-session")).body).toBeNull();
    expect((await second.get("/get-session")).body).toBeNull();
    expect((await c.post("/admin/revoke-user-sessions", { userId: "nobody" })).body.code).toBe("USER_NOT_FOUND");
    expect((await c.post("/admin/list-user-sessions", {})).status).toBe(400);
  });

  it("remove-user deletes the user, the sessions and the sign-in; never oneself", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    expect((await admin.c.post("/admin/remove-user", { userId: user.id })).body).toEqual({ success: true });
    expect((await user.c.get("/get-session")).body).toBeNull();
    expect((await platform.client().post("/sign-in/email", { email: user.email, password: PASSWORD })).status).toBe(401);
    expect((await admin.c.post("/admin/remove-user", { userId: user.id })).body.code).toBe("USER_NOT_FOUND");
    const self = await admin.c.post("/admin/remove-user", { userId: admin.id });
    expect(self.status).toBe(400);
    expect(self.body.code).toBe("YOU_CANNOT_REMOVE_YOURSELF");
  });
});

describe("list-users", () => {
  it("searches, filters, sorts and pages, and answers the total", async () => {
    const { c } = await anAdmin(platform);
    const tag = `ls${Date.now().toString(36)}`;
    for (const name of ["Alice", "Bob", "Carol"]) {
      await c.post("/admin/create-user", {
        email: `${name.toLowerCase()}.${tag}@example.com`,
        password: PASSWORD,
        name: `${name} ${tag}`,
        role: name === "Bob" ? "editor" : "user",
      });
    }
    const all = await c.get(`/admin/list-users?searchValue=${tag}&searchField=email&sortBy=name&sortDirection=desc`);
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(3);
    expect(all.body.users.map((u: { name: string }) => u.name.split(" ")[0])).toEqual(["Carol", "Bob", "Alice"]);
    expect(all.body.users[0]).toMatchObject({ role: "user", banned: false, banReason: null, banExpires: null });

    const page = await c.get(`/admin/list-users?searchValue=${tag}&sortBy=name&limit=1&offset=1`);
    expect(page.body).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(page.body.users.map((u: { name: string }) => u.name)).toEqual([`Bob ${tag}`]);

    const starts = await c.get(`/admin/list-users?searchValue=ALICE&searchField=name&searchOperator=starts_with&filterField=email&filterValue=alice.${tag}@example.com`);
    expect(starts.body.users.map((u: { email: string }) => u.email)).toEqual([`alice.${tag}@example.com`]);
    const ends = await c.get(`/admin/list-users?searchValue=${tag}&searchField=name&searchOperator=ends_with&filterField=role&filterValue=editor`);
    expect(ends.body.users.map((u: { name: string }) => u.name)).toEqual([`Bob ${tag}`]);
    const notEditor = await c.get(`/admin/list-users?searchValue=${tag}&filterField=role&filterOperator=ne&filterValue=editor`);
    expect(notEditor.body.total).toBe(2);
    const unbanned = await c.get(`/admin/list-users?searchValue=${tag}&filterField=banned&filterValue=false`);
    expect(unbanned.body.total).toBe(3);
    const future = await c.get(`/admin/list-users?searchValue=${tag}&filterField=createdAt&filterOperator=gt&filterValue=${Date.now() + 60_000}`);
    expect(future.body.total).toBe(0);
    const wildcard = await c.get(`/admin/list-users?searchValue=${encodeURIComponent("%")}`);
    expect(wildcard.body.total).toBe(0);
  });

  it.each([
    ["searchOperator=like&searchValue=a", "searchOperator"],
    ["searchField=password&searchValue=a", "searchField"],
    ["filterOperator=between&filterValue=a", "filterOperator"],
    ["filterField=password&filterValue=a", "filterField"],
    ["filterField=banned&filterValue=maybe", "boolean"],
    ["filterField=banned&filterOperator=gt&filterValue=true", "boolean takes eq or ne"],
    ["filterField=createdAt&filterOperator=lt&filterValue=yesterday", "date"],
    ["filterField=createdAt&filterOperator=contains&filterValue=2024", 'filterOperator "contains" for createdAt'],
    ["filterField=banned&filterOperator=in&filterValue=true", "boolean takes eq or ne"],
    ["filterField=role&filterValue=admin&filterValue=user", "filterValue for role: a list takes filterOperator in or not_in"],
    ["filterField=role&filterOperator=starts_with&filterValue=a&filterValue=b", "filterValue for role: a list"],
    ["filterField=createdAt&filterOperator=not_in&filterValue=1&filterValue=soon", "date"],
    ["sortBy=password", "sortBy"],
    ["sortBy=name&sortDirection=sideways", "sortDirection"],
    ["limit=-1", "limit"],
    ["limit=abc", "limit"],
    ["limit=5000", "limit"],
  ])("?%s is a 400 naming %s", async (query, named) => {
    const { c } = await anAdmin(platform);
    const res = await c.get(`/admin/list-users?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    expect(res.body.message).toContain(named);
  });

  it("takes at most 100 values for in and not_in", async () => {
    const { c } = await anAdmin(platform);
    const values = (n: number) => Array.from({ length: n }, (_, i) => `filterValue=u${i}`).join("&");
    expect((await c.get(`/admin/list-users?filterField=id&filterOperator=in&${values(100)}`)).body.total).toBe(0);
    const res = await c.get(`/admin/list-users?filterField=id&filterOperator=not_in&${values(101)}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", message: expect.stringContaining("filterValue") });
  });
});
