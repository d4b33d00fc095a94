/**
 * Attacks on bans and the admin area's write flows: a banned user gets no session through impersonation
 * either, and every admin mutation's audit record names its target.
 */
import { describe, expect, it } from "vitest";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";
import { aUser, anAdmin, PASSWORD } from "./admin-fixtures.js";

const platform = usePlatform();

describe("impersonating a banned user", () => {
  it("is refused while the ban holds: no session for the user, and the refusal is audited", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    expect((await admin.c.post("/admin/ban-user", { userId: user.id })).status).toBe(200);

    const res = await admin.c.post("/admin/impersonate-user", { userId: user.id });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("YOU_CANNOT_IMPERSONATE_BANNED_USERS");
    expect(res.headers.getSetCookie()).toEqual([]);
    expect((await admin.c.post("/admin/list-user-sessions", { userId: user.id })).body.sessions).toEqual([]);
    // The admin's own session is untouched.
    expect((await admin.c.get("/get-session")).body.user.id).toBe(admin.id);

    const log = await admin.c.get(`/admin/list-audit-events?actorId=${admin.id}&action=user.impersonate.start`);
    expect(log.body.events[0]).toMatchObject({ targetId: user.id, outcome: "failure", details: expect.objectContaining({ error: "YOU_CANNOT_IMPERSONATE_BANNED_USERS" }) });
  });

  it("lifts a ban that has expired, as any session creation does", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    expect((await admin.c.post("/admin/ban-user", { userId: user.id, banExpiresIn: 60 })).status).toBe(200);
    platform.clock.advance(61_000);

    const res = await admin.c.post("/admin/impersonate-user", { userId: user.id });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ id: user.id, banned: false, banReason: null, banExpires: null });
    // Lifted in the store, not only in the answer (the admin's client now holds the user's session).
    expect(await platform.services.identity.deps.store.findUserById(user.id)).toMatchObject({ banned: false, banReason: null, banExpires: null });
  });
});

describe("an admin reading another admin's sessions", () => {
  it("sees handles, not bearer tokens: no handle acts as the other admin, and each still revokes its session", async () => {
    const mallory = await anAdmin(platform);
    const ada = await anAdmin(platform);
    const listed = (await mallory.c.post("/admin/list-user-sessions", { userId: ada.id })).body.sessions;
    // Ada's sessions: sign-up's and the sign-in the fixture made.
    expect(listed).toHaveLength(2);
    const handles: string[] = listed.map((s: { token: string }) => s.token);
    expect(JSON.stringify(listed)).not.toContain(ada.token);
    const [handle] = handles as [string, string];

    // The handle is no session, as a bearer token or as the cookie's value.
    const bearer = new TestClient(platform.baseURL, { authorization: `Bearer ${handle}` });
    expect((await bearer.get("/get-session")).body).toBeNull();
    expect((await bearer.get("/admin/list-users")).status).toBe(401);

    // A tampered handle revokes nothing; the handle revokes the session it was listed for.
    const tampered = `${handle.slice(0, -2)}${handle.endsWith("AA") ? "BB" : "AA"}`;
    expect((await mallory.c.post("/admin/revoke-user-session", { sessionToken: tampered })).status).toBe(404);
    expect((await ada.c.get("/get-session")).body?.user.id).toBe(ada.id);
    for (const each of handles) expect((await mallory.c.post("/admin/revoke-user-session", { sessionToken: each })).status).toBe(200);
    expect((await ada.c.get("/get-session")).body).toBeNull();
    expect((await mallory.c.post("/admin/list-user-sessions", { userId: ada.id })).body.sessions).toEqual([]);
  });

  it("still revokes with a raw token, as clients that kept one do", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    const token = (await platform.client().post("/sign-in/email", { email: user.email, password: PASSWORD })).body.token;
    expect((await admin.c.post("/admin/revoke-user-session", { sessionToken: token })).status).toBe(200);
    expect((await new TestClient(platform.baseURL, { authorization: `Bearer ${token}` }).get("/get-session")).body).toBeNull();
  });
});

describe("revoke-user-session audit", () => {
  it("names the user whose session was revoked as the target", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    const [session] = (await admin.c.post("/admin/list-user-sessions", { userId: user.id })).body.sessions;
    expect((await admin.c.post("/admin/revoke-user-session", { sessionToken: session.token })).status).toBe(200);
    expect((await user.c.get("/get-session")).body).toBeNull();
    const log = await admin.c.get(`/admin/list-audit-events?actorId=${admin.id}&action=session.revoke`);
    expect(log.body.events[0]).toMatchObject({ action: "session.revoke", actorId: admin.id, targetId: user.id, outcome: "success" });
  });
});

describe("create-user audit", () => {
  it("names the created user as the target", async () => {
    const admin = await anAdmin(platform);
    const email = uniqueEmail();
    const created = await admin.c.post("/admin/create-user", { email, password: PASSWORD, name: "New", role: "user" });
    expect(created.status).toBe(200);
    const log = await admin.c.get(`/admin/list-audit-events?actorId=${admin.id}&action=user.create`);
    expect(log.body.events[0]).toMatchObject({ action: "user.create", actorId: admin.id, targetId: created.body.user.id, outcome: "success" });

    const dup = await admin.c.post("/admin/create-user", { email, password: PASSWORD, name: "New", role: "user" });
    expect(dup.status).toBe(422);
    const after = await admin.c.get(`/admin/list-audit-events?actorId=${admin.id}&action=user.create`);
    expect(after.body.events[0]).toMatchObject({ outcome: "failure", details: expect.objectContaining({ error: "USER_ALREADY_EXISTS" }) });
  });

  it("a user created without a password or a role is recorded alike, the role null (the default role applied)", async () => {
    const admin = await anAdmin(platform);
    const created = await admin.c.post("/admin/create-user", { email: uniqueEmail(), name: "Bare" });
    expect([created.status, created.body.user.role]).toEqual([200, "user"]);
    const log = await admin.c.get(`/admin/list-audit-events?actorId=${admin.id}&action=user.create`);
    expect(log.body.events[0]).toMatchObject({ action: "user.create", actorId: admin.id, targetId: created.body.user.id, outcome: "success", details: { role: null } });
  });
});

/**
 * Has the admin ban the user while identity checks the next password (a scrypt takes tens of milliseconds),
 * once; returns what puts the real check back.
 */
function banWhileVerifying(admin: { c: { post(path: string, body: unknown): Promise<{ status: number }> } }, userId: string): () => void {
  const passwords = platform.services.identity.deps.passwords;
  const verify = passwords.verify;
  passwords.verify = async (...args: Parameters<typeof verify>) => {
    passwords.verify = verify;
    expect((await admin.c.post("/admin/ban-user", { userId })).status).toBe(200);
    return verify.apply(passwords, args);
  };
  return () => {
    passwords.verify = verify;
  };
}

describe("a ban during a sign-in in flight", () => {
  it("leaves no session: the ban is read after the password is proven, not before", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    const restore = banWhileVerifying(admin, user.id);
    try {
      const res = await platform.client().post("/sign-in/email", { email: user.email, password: PASSWORD });
      expect(res).toMatchObject({ status: 403, body: { code: "BANNED_USER" } });
    } finally {
      restore();
    }
    expect((await admin.c.post("/admin/list-user-sessions", { userId: user.id })).body.sessions).toEqual([]);
  });
});

describe("a ban during a password change in flight", () => {
  it("ends every session, and revokeOtherSessions hands the banned user no new one", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    const restore = banWhileVerifying(admin, user.id);
    try {
      const res = await user.c.post("/change-password", { currentPassword: PASSWORD, newPassword: "password-456", revokeOtherSessions: true });
      expect(res.status).toBe(200);
      expect(res.body.token).toBeNull();
    } finally {
      restore();
    }
    expect((await admin.c.post("/admin/list-user-sessions", { userId: user.id })).body.sessions).toEqual([]);
    expect((await user.c.get("/get-session")).body).toBeNull();
  });
});
