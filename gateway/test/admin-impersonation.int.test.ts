/**
 * Impersonation through the gateway: start, act as the user, stop (the admin session restored from the
 * signed cookie), the session hidden from the user's own list, the cookie tampered with, admin-on-admin,
 * no impersonation from an impersonation session, none of the user's own sessions seen or ended from one,
 * and the same with bearer tokens instead of cookies.
 */
import { describe, expect, it } from "vitest";
import { eventually } from "../../testing/eventually.js";
import { TestClient } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";
import { aUser, anAdmin, PASSWORD } from "./admin-fixtures.js";

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

describe("an impersonation session holds none of the user's own sessions", () => {
  const REFUSED = { code: "YOU_CANNOT_REVOKE_SESSIONS_WHILE_IMPERSONATING", message: "You cannot revoke sessions while impersonating" };
  const bearer = (token: string) => new TestClient(platform.baseURL, { authorization: `Bearer ${token}` });

  it("list-sessions shows handles, never a token: after stop-impersonating none of them is a session of the user", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    const phone = platform.client();
    expect((await phone.post("/sign-in/email", { email: user.email, password: PASSWORD })).status).toBe(200);
    const tokens = [(await user.c.get("/get-session")).body.session.token, (await phone.get("/get-session")).body.session.token];
    // The user's own listing is unchanged: the raw tokens, which the user's client revokes with.
    expect((await user.c.get("/list-sessions")).body.map((s: { token: string }) => s.token).sort()).toEqual([...tokens].sort());

    expect((await admin.c.post("/admin/impersonate-user", { userId: user.id })).status).toBe(200);
    const listed = await admin.c.get("/list-sessions");
    expect(listed.status).toBe(200);
    expect(listed.body).toHaveLength(2);
    const handles: string[] = listed.body.map((s: { token: string; userId: string }) => {
      expect(s.userId).toBe(user.id);
      return s.token;
    });
    for (const handle of handles) {
      expect(handle).toMatch(/^sh2\./);
      for (const token of tokens) expect(handle).not.toContain(token);
    }
    expect(JSON.stringify(listed.body)).not.toMatch(new RegExp(tokens.join("|")));

    const stopped = await admin.c.post("/admin/stop-impersonating");
    expect(stopped.body.user.id).toBe(admin.id);
    // The attack: a listed token used as a session of the user. No handle is one, as a bearer or as the cookie.
    for (const handle of handles) {
      expect((await bearer(handle).get("/get-session")).body).toBeNull();
      expect((await bearer(handle).get("/list-sessions")).status).toBe(401);
    }
    // The user's sessions live on.
    expect((await user.c.get("/get-session")).body.user.id).toBe(user.id);
    expect((await phone.get("/get-session")).body.user.id).toBe(user.id);
  });

  it("revoke-session, revoke-sessions, revoke-other-sessions and change-password's revokeOtherSessions are refused: every session of the user lives on", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    const userToken = (await user.c.get("/get-session")).body.session.token;
    expect((await admin.c.post("/admin/impersonate-user", { userId: user.id })).status).toBe(200);
    const handle = (await admin.c.get("/list-sessions")).body[0].token;

    // Even a raw token the admin learnt elsewhere is refused, as is a token that names no session.
    for (const token of [handle, userToken, "no-such-token"]) {
      const res = await admin.c.post("/revoke-session", { token });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(REFUSED);
    }
    for (const path of ["/revoke-sessions", "/revoke-other-sessions"]) {
      const res = await admin.c.post(path, {});
      expect(res.status, path).toBe(403);
      expect(res.body).toEqual(REFUSED);
    }
    // A new password with revokeOtherSessions would end the user's sessions and mint a plain one for the admin.
    const changed = await admin.c.post("/change-password", { currentPassword: PASSWORD, newPassword: "new-password-456", revokeOtherSessions: true });
    expect(changed.status).toBe(403);
    expect(changed.body).toEqual(REFUSED);
    expect(changed.headers.get("set-auth-token")).toBeNull();
    expect(changed.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`))).toBeUndefined();
    expect((await platform.client().post("/sign-in/email", { email: user.email, password: PASSWORD })).status).toBe(200);

    // Nothing ended: the user's session, and the impersonation itself.
    expect((await user.c.get("/get-session")).body.session.token).toBe(userToken);
    expect((await admin.c.get("/get-session")).body.session).toMatchObject({ userId: user.id, impersonatedBy: admin.id });
    // The refusals are in the audit log as the impersonating admin's attempts.
    const other = await anAdmin(platform);
    await eventually(async () => {
      const log = await other.c.get(`/admin/list-audit-events?actorId=${user.id}&action=session.revoke-own-all`);
      expect(log.body.events).toEqual([expect.objectContaining({ impersonatorId: admin.id, outcome: "failure", details: expect.objectContaining({ error: REFUSED.code }) })]);
    });

    // The impersonation session may end itself: the admin's own session is untouched, stop-impersonating then finds none to leave.
    const ownToken = (await admin.c.get("/get-session")).body.session.token;
    expect((await admin.c.post("/revoke-session", { token: ownToken })).body).toEqual({ status: true });
    expect((await admin.c.get("/get-session")).body).toBeNull();
    expect((await user.c.get("/get-session")).body.user.id).toBe(user.id);
  });

  it("the same for a bearer client", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    const userToken = (await user.c.get("/get-session")).body.session.token;
    const started = await bearer(admin.token).post("/admin/impersonate-user", { userId: user.id });
    const asUser = bearer(started.headers.get("set-auth-token")!);
    const listed = await asUser.get("/list-sessions");
    expect(listed.body.map((s: { token: string }) => s.token)).not.toContain(userToken);
    expect(listed.body[0].token).toMatch(/^sh2\./);
    expect((await asUser.post("/revoke-other-sessions", {})).body.code).toBe(REFUSED.code);
    expect((await asUser.post("/revoke-sessions", {})).body.code).toBe(REFUSED.code);
    expect((await user.c.get("/get-session")).body.session.token).toBe(userToken);
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
      expect.objectContaining({
        actorId: deputy.id,
        impersonatorId: admin.id,
        outcome: "failure",
        details: expect.objectContaining({ error: "YOU_CANNOT_IMPERSONATE_WHILE_IMPERSONATING" }),
      }),
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
