/**
 * What the admin area shows about users beyond the user itself (docs/adr/0054-last-sign-in-and-audit-names.md),
 * through the real gateway and services: each listed user's last sign-in, the roles admins may give, and the
 * names and emails beside the ids of the audit log.
 */
import { describe, expect, it } from "vitest";
import { usePlatform } from "../../testing/use-platform.js";
import { aUser, anAdmin, PASSWORD } from "./admin-fixtures.js";

const platform = usePlatform({ env: { ADMIN_ASSIGNABLE_ROLES: "user,editor", ADMIN_ROLES: "admin,superadmin" } });

const HOUR = 3_600_000;

describe("the last sign-in on list-users", () => {
  it("is the newest sign-in, kept after sign-out, without moving the user; an impersonation is none", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform, "Lena");
    const listed = async () => {
      const res = await admin.c.get(`/admin/list-users?searchValue=${encodeURIComponent(user.email)}`);
      expect(res.status).toBe(200);
      return res.body.users[0] as { lastSignInAt: string | null; updatedAt: string };
    };
    // The sign-up signed the user in.
    const afterSignUp = await listed();
    expect(Date.parse(afterSignUp.lastSignInAt!)).toBeLessThanOrEqual(Date.now());

    platform.clock.advance(HOUR);
    const second = platform.client();
    expect((await second.post("/sign-in/email", { email: user.email, password: PASSWORD })).status).toBe(200);
    const signedInAt = (await listed()).lastSignInAt!;
    expect(Date.parse(signedInAt) - Date.parse(afterSignUp.lastSignInAt!)).toBeGreaterThanOrEqual(HOUR);
    // The user did not change: updatedAt stays, the session's copy of the user carries no such field.
    expect((await listed()).updatedAt).toBe(afterSignUp.updatedAt);
    const own = (await second.get("/get-session")).body.user;
    expect(own.updatedAt).toBe(afterSignUp.updatedAt);
    expect(own).not.toHaveProperty("lastSignInAt");

    // Signed out everywhere, the user still shows when they last signed in.
    expect((await second.post("/sign-out")).status).toBe(200);
    expect((await user.c.post("/sign-out")).status).toBe(200);
    expect((await listed()).lastSignInAt).toBe(signedInAt);

    // An admin acting as the user is not the user signing in.
    platform.clock.advance(HOUR);
    expect((await admin.c.post("/admin/impersonate-user", { userId: user.id })).status).toBe(200);
    expect((await admin.c.post("/admin/stop-impersonating")).status).toBe(200);
    expect((await listed()).lastSignInAt).toBe(signedInAt);
  });

  it("is null for a user who never signed in, and served to admins only", async () => {
    const admin = await anAdmin(platform);
    const created = await admin.c.post("/admin/create-user", { email: `never-${Date.now()}@example.com`, name: "Never", password: PASSWORD });
    const res = await admin.c.get(`/admin/list-users?searchValue=${encodeURIComponent(created.body.user.email)}`);
    expect(res.body.users).toEqual([expect.objectContaining({ id: created.body.user.id, lastSignInAt: null })]);
    // get-user is the user itself, as better-auth answers it.
    expect((await admin.c.get(`/admin/get-user?id=${created.body.user.id}`)).body).not.toHaveProperty("lastSignInAt");
    const { c } = await aUser(platform);
    expect((await c.get("/admin/list-users")).status).toBe(403);
  });
});

describe("list-roles", () => {
  it("answers the roles admins may give, assignable ones then admin roles, to admins only", async () => {
    const admin = await anAdmin(platform);
    const res = await admin.c.get("/admin/list-roles");
    expect([res.status, res.body]).toEqual([200, { roles: ["user", "editor", "admin", "superadmin"] }]);
    const { c } = await aUser(platform);
    expect((await c.get("/admin/list-roles")).body).toEqual({ code: "ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT", message: "Only admins can access this endpoint" });
    expect((await platform.client().get("/admin/list-roles")).status).toBe(401);
  });
});

describe("the audit log's users", () => {
  it("names each user an event names (actor, impersonator, target) by name and email, and no longer a removed one", async () => {
    const admin = await anAdmin(platform);
    const target = await aUser(platform, "Tess");
    const gone = await aUser(platform, "Gus");
    expect((await admin.c.post("/admin/ban-user", { userId: gone.id })).status).toBe(200);
    expect((await admin.c.post("/admin/impersonate-user", { userId: target.id })).status).toBe(200);
    // As the user, an admin action is refused and recorded with both the user and the admin behind them.
    expect((await admin.c.post("/admin/ban-user", { userId: gone.id })).status).toBe(403);
    expect((await admin.c.post("/admin/stop-impersonating")).status).toBe(200);

    const log = async () => (await admin.c.get(`/admin/list-audit-events?actorId=${encodeURIComponent(target.id)}&action=user.ban`)).body;
    const refused = await log();
    expect(refused.events).toEqual([expect.objectContaining({ action: "user.ban", actorId: target.id, impersonatorId: admin.id, targetId: gone.id })]);
    const named = (who: { email: string }, name: string) => ({ name, email: who.email });
    expect(refused.users).toEqual({ [target.id]: named(target, "Tess"), [admin.id]: named(admin, "Ada"), [gone.id]: named(gone, "Gus") });

    // The log keeps the id only: once the user is removed, their name and email are no longer shown.
    expect((await admin.c.post("/admin/remove-user", { userId: gone.id })).status).toBe(200);
    const after = await log();
    expect(after.events).toHaveLength(1);
    expect(after.users).toEqual({ [target.id]: named(target, "Tess"), [admin.id]: named(admin, "Ada") });
  });

  it("answers no users for a page that names none", async () => {
    const admin = await anAdmin(platform);
    const res = await admin.c.get("/admin/list-audit-events?action=no.such.action");
    expect(res.body).toEqual({ events: [], total: 0, users: {} });
  });
});
