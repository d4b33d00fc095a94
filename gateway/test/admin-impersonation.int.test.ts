/**
 * Impersonation through the gateway: start, act as the user, stop (the admin session restored from the
 * signed cookie), the session hidden from the user's own list, the cookie tampered with, admin-on-admin,
 * no impersonation from an impersonation session, and the same with bearer tokens instead of cookies.
 */
import { describe, expect, it } from "vitest";
import { TestClient } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";
import { aUser, anAdmin } from "./admin-fixtures.js";

const platform = usePlatform();
const ADMIN_COOKIE = "better-auth.admin_session";
const SESSION_COOKIE = "better-auth.session_token";

describe("impersonate-user and stop-impersonating", () => {
  it("starts a one-hour, non-persistent session for the user, flagged with the admin, and stops back to the admin", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    const adminCookie = admin.c.cookies.get(SESSION_COOKIE);

    const started = await admin.c.post("/admin/impersonate-user", { userId: user.id });
    expect(started.status).toBe(200);
    expect(started.body.user).toMatchObject({ id: user.id, email: user.email });
    expect(started.body.session).toMatchObject({ userId: user.id, impersonatedBy: admin.id });
    const lifetime = Date.parse(started.body.session.expiresAt) - Date.parse(started.body.session.createdAt);
    expect(lifetime).toBe(3_600_000);
    const sessionCookie = started.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`))!;
    expect(sessionCookie).not.toMatch(/Max-Age/i);
    expect(admin.c.cookies.get(ADMIN_COOKIE)).toBeTruthy();

    // Acting as the user.
    const asUser = await admin.c.get("/get-session");
    expect(asUser.body.user.id).toBe(user.id);
    expect(asUser.body.session.impersonatedBy).toBe(admin.id);
    expect((await admin.c.get("/admin/list-users")).status).toBe(403);
    expect((await admin.c.post("/update-user", { name: "Renamed by support" })).status).toBe(200);
    expect((await admin.c.post("/admin/ban-user", { userId: admin.id })).status).toBe(403);

    // Hidden from the user's own list; listed for admins.
    const own = await user.c.get("/list-sessions");
    expect(own.body.map((s: { token: string }) => s.token)).not.toContain(started.body.session.token);
    expect(own.body).toHaveLength(1);
    const other = await anAdmin(platform);
    const forAdmins = await other.c.post("/admin/list-user-sessions", { userId: user.id });
    expect(forAdmins.body.sessions.map((s: { impersonatedBy: string | null }) => s.impersonatedBy)).toContain(admin.id);

    const stopped = await admin.c.post("/admin/stop-impersonating");
    expect(stopped.status).toBe(200);
    expect(stopped.body.user.id).toBe(admin.id);
    expect(stopped.body.session.userId).toBe(admin.id);
    expect(admin.c.cookies.get(ADMIN_COOKIE)).toBeUndefined();
    expect(admin.c.cookies.get(SESSION_COOKIE)).toBe(adminCookie);
    expect((await admin.c.get("/get-session")).body.user.id).toBe(admin.id);
    // The impersonation session is gone.
    const replay = new TestClient(platform.baseURL, { authorization: `Bearer ${started.body.session.token}` });
    expect((await replay.get("/get-session")).body).toBeNull();

    // The audit log holds both ends, and what was done while impersonating carries the impersonator.
    const log = await other.c.get(`/admin/list-audit-events?targetId=${user.id}`);
    const actions = log.body.events.map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(["user.impersonate.start", "user.impersonate.stop"]));
    const stop = log.body.events.find((e: { action: string }) => e.action === "user.impersonate.stop");
    expect(stop).toMatchObject({ actorId: user.id, impersonatorId: admin.id, outcome: "success" });
    const byUser = await other.c.get(`/admin/list-audit-events?actorId=${user.id}`);
    expect(byUser.body.events.find((e: { action: string }) => e.action === "user.ban")).toMatchObject({
      actorId: user.id,
      impersonatorId: admin.id,
      targetId: admin.id,
      outcome: "failure",
      details: expect.objectContaining({ error: "ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT" }),
    });
  });

  it("stop-impersonating without an impersonation session, or without a session", async () => {
    const admin = await anAdmin(platform);
    const res = await admin.c.post("/admin/stop-impersonating");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: "YOU_ARE_NOT_IMPERSONATING_ANYONE", message: "You are not impersonating anyone" });
    expect((await platform.client().post("/admin/stop-impersonating")).status).toBe(401);
  });

  it("a tampered admin cookie, or an admin session gone meanwhile, is 'Failed to find admin session'", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    await admin.c.post("/admin/impersonate-user", { userId: user.id });
    const kept = admin.c.cookies.get(ADMIN_COOKIE)!;
    const other = await anAdmin(platform);
    // Another admin's token under the original signature: the signature no longer holds.
    admin.c.cookies.set(ADMIN_COOKIE, kept.replace(/^[^:%]+/, other.token));
    let res = await admin.c.post("/admin/stop-impersonating");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: "FAILED_TO_FIND_ADMIN_SESSION", message: "Failed to find admin session" });
    admin.c.cookies.delete(ADMIN_COOKIE);
    expect((await admin.c.post("/admin/stop-impersonating")).body.code).toBe("FAILED_TO_FIND_ADMIN_SESSION");
    // Still impersonating: nothing was ended by the refused attempts.
    expect((await admin.c.get("/get-session")).body.user.id).toBe(user.id);

    admin.c.cookies.set(ADMIN_COOKIE, kept);
    await other.c.post("/admin/revoke-user-sessions", { userId: admin.id });
    res = await admin.c.post("/admin/stop-impersonating");
    expect(res.body.code).toBe("FAILED_TO_FIND_ADMIN_SESSION");
  });

  it("refuses impersonating another admin, and an unknown user", async () => {
    const admin = await anAdmin(platform);
    const other = await anAdmin(platform);
    const res = await admin.c.post("/admin/impersonate-user", { userId: other.id });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("YOU_CANNOT_IMPERSONATE_ADMINS");
    expect((await admin.c.get("/get-session")).body.user.id).toBe(admin.id);
    expect((await admin.c.post("/admin/impersonate-user", { userId: "no-such-user" })).status).toBe(404);
  });

  it("works with bearer tokens: the admin's token kept in the signed cookie, the user's handed over in set-auth-token", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    const bearer = (token: string) => new TestClient(platform.baseURL, { authorization: `Bearer ${token}` });
    const asAdmin = bearer(admin.token);
    const started = await asAdmin.post("/admin/impersonate-user", { userId: user.id });
    expect(started.status).toBe(200);
    const userToken = started.headers.get("set-auth-token")!;
    expect(userToken).toBeTruthy();
    const asUser = bearer(userToken);
    expect((await asUser.get("/get-session")).body.user.id).toBe(user.id);
    // The bearer client keeps only the admin cookie the gateway set.
    const stopped = await asUser.post("/admin/stop-impersonating", {}, { cookie: `${ADMIN_COOKIE}=${asAdmin.cookies.get(ADMIN_COOKIE)}` });
    expect(stopped.status).toBe(200);
    expect(stopped.body.user.id).toBe(admin.id);
    expect(stopped.headers.get("set-auth-token")).toMatch(new RegExp(`^${admin.token}\\.`));
    expect((await asUser.get("/get-session")).body).toBeNull();
  });
});

describe("impersonation from an impersonation session (ADMIN_IMPERSONATE_ADMINS=true)", () => {
  const withAdmins = usePlatform({ env: { ADMIN_IMPERSONATE_ADMINS: "true" } });

  it("is refused, so stopping always leads back to the first admin's own session", async () => {
    const admin = await anAdmin(withAdmins);
    const deputy = await anAdmin(withAdmins);
    const user = await aUser(withAdmins);
    const adminCookie = admin.c.cookies.get(SESSION_COOKIE);

    expect((await admin.c.post("/admin/impersonate-user", { userId: deputy.id })).status).toBe(200);
    const kept = admin.c.cookies.get(ADMIN_COOKIE);
    const impersonating = admin.c.cookies.get(SESSION_COOKIE);
    // Acting as the other admin, whose role passes the admin check: starting another impersonation is refused.
    const nested = await admin.c.post("/admin/impersonate-user", { userId: user.id });
    expect(nested.status).toBe(403);
    expect(nested.body).toEqual({ code: "YOU_CANNOT_IMPERSONATE_WHILE_IMPERSONATING", message: "You cannot impersonate while impersonating" });
    // Nothing changed: the same impersonation, the same kept admin token, no session for the user.
    expect(admin.c.cookies.get(ADMIN_COOKIE)).toBe(kept);
    expect(admin.c.cookies.get(SESSION_COOKIE)).toBe(impersonating);
    expect((await admin.c.get("/get-session")).body.session).toMatchObject({ userId: deputy.id, impersonatedBy: admin.id });
    expect((await deputy.c.post("/admin/list-user-sessions", { userId: user.id })).body.sessions).toHaveLength(1);

    // One stop leads back to the admin; a second, from the admin's own session, is refused and ends nothing.
    const stopped = await admin.c.post("/admin/stop-impersonating");
    expect(stopped.status).toBe(200);
    expect(stopped.body.user.id).toBe(admin.id);
    expect(admin.c.cookies.get(SESSION_COOKIE)).toBe(adminCookie);
    const again = await admin.c.post("/admin/stop-impersonating");
    expect(again.status).toBe(400);
    expect(again.body.code).toBe("YOU_ARE_NOT_IMPERSONATING_ANYONE");
    expect((await admin.c.get("/get-session")).body.user.id).toBe(admin.id);
    expect((await admin.c.get("/admin/list-users")).status).toBe(200);

    // The refused attempt is in the audit log, with the admin who was impersonating.
    const log = await deputy.c.get(`/admin/list-audit-events?action=user.impersonate.start&targetId=${user.id}`);
    expect(log.body.events).toEqual([
      expect.objectContaining({ actorId: deputy.id, impersonatorId: admin.id, outcome: "failure", details: expect.objectContaining({ error: "YOU_CANNOT_IMPERSONATE_WHILE_IMPERSONATING" }) }),
    ]);
  });

  it("is refused to a bearer client too", async () => {
    const admin = await anAdmin(withAdmins);
    const deputy = await anAdmin(withAdmins);
    const user = await aUser(withAdmins);
    const asAdmin = new TestClient(withAdmins.baseURL, { authorization: `Bearer ${admin.token}` });
    const started = await asAdmin.post("/admin/impersonate-user", { userId: deputy.id });
    expect(started.status).toBe(200);
    const asDeputy = new TestClient(withAdmins.baseURL, { authorization: `Bearer ${started.headers.get("set-auth-token")}` });
    const nested = await asDeputy.post("/admin/impersonate-user", { userId: user.id });
    expect(nested.status).toBe(403);
    expect(nested.body.code).toBe("YOU_CANNOT_IMPERSONATE_WHILE_IMPERSONATING");
    expect(nested.headers.get("set-auth-token")).toBeNull();
  });
});
