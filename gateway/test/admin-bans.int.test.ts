/**
 * Bans through the gateway: a banned user has no live session anywhere (both session replicas and the
 * shared cache) the moment ban-user answers, cannot sign in by any method (the right password is told the
 * ban and its end, a wrong one gets the generic failure), and is let back in when the ban expires (the clock
 * advanced) or is lifted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_REDIS_URL } from "../../testing/databases.js";
import { holdNext } from "../../testing/hold-next.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { freePorts, type RunningGateway, type RunningSession, startGateway, startSession } from "../../testing/platform.js";
import { usePlatform } from "../../testing/use-platform.js";
import { aUser, anAdmin, PASSWORD } from "./admin-fixtures.js";

const platform = usePlatform();

describe("ban-user", () => {
  it("bans with the default reason, ends every session, refuses sign-in; unban lets the user back", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    const laptop = platform.client();
    expect((await laptop.post("/sign-in/email", { email: user.email, password: PASSWORD })).status).toBe(200);

    const banned = await admin.c.post("/admin/ban-user", { userId: user.id });
    expect(banned.status).toBe(200);
    expect(banned.body.user).toMatchObject({ id: user.id, banned: true, banReason: "No reason", banExpires: null });
    expect((await user.c.get("/get-session")).body).toBeNull();
    expect((await laptop.get("/get-session")).body).toBeNull();
    expect((await admin.c.post("/admin/list-user-sessions", { userId: user.id })).body.sessions).toEqual([]);

    // The right password learns of the ban (a permanent one: no end); a wrong one only that it is wrong.
    const refused = await platform.client().post("/sign-in/email", { email: user.email, password: PASSWORD });
    expect(refused).toMatchObject({ status: 403, body: { code: "BANNED_USER", message: "You have been banned from this application", banExpires: null } });
    const guessed = await platform.client().post("/sign-in/email", { email: user.email, password: "wrong-password-1" });
    expect(guessed).toMatchObject({ status: 401, body: { code: "INVALID_EMAIL_OR_PASSWORD" } });
    expect(guessed.body).not.toHaveProperty("banExpires");

    const listed = await admin.c.get(`/admin/list-users?filterField=banned&filterValue=true&searchValue=${encodeURIComponent(user.email)}`);
    expect(listed.body.users.map((u: { id: string }) => u.id)).toEqual([user.id]);

    const unbanned = await admin.c.post("/admin/unban-user", { userId: user.id });
    expect(unbanned.body.user).toMatchObject({ banned: false, banReason: null, banExpires: null });
    expect((await platform.client().post("/sign-in/email", { email: user.email, password: PASSWORD })).status).toBe(200);
  });

  it("a ban landing between a sign-in's last read of the user and its session leaves the user no live session", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    // Hold the sign-in after identity read the user (not banned yet), before its CreateSession.
    const held = holdNext(platform.services.identity.deps.sessions, "createSession");
    const laptop = platform.client();
    let signedIn;
    try {
      const signIn = laptop.post("/sign-in/email", { email: user.email, password: PASSWORD });
      await held.reached;
      expect((await admin.c.post("/admin/ban-user", { userId: user.id })).status).toBe(200);
      held.release();
      signedIn = await signIn;
    } finally {
      held.restore();
    }
    // The ban's revocation ran before the session existed: the banned copy it handed over refuses the session.
    expect((await laptop.get("/get-session")).body).toBeNull();
    expect((await user.c.get("/get-session")).body).toBeNull();
    expect(await platform.services.session.deps.store.listByUser(user.id)).toEqual([]);
    expect((await admin.c.post("/admin/list-user-sessions", { userId: user.id })).body.sessions).toEqual([]);
    // And the sign-in is answered as a banned user's is (the password was right): the ban, not a server error.
    expect(signedIn).toMatchObject({ status: 403, body: { code: "BANNED_USER", banExpires: null } });
  });

  it("a ban landing between an impersonation's read of the user and its session: refused as banned, no session", async () => {
    const admin = await anAdmin(platform);
    const other = await anAdmin(platform);
    const user = await aUser(platform);
    // Hold the impersonation after the admin service read the user (not banned yet), before CreateSession.
    const held = holdNext(platform.services.admin.deps.sessions, "createImpersonationSession");
    let started;
    try {
      const impersonation = admin.c.post("/admin/impersonate-user", { userId: user.id });
      await held.reached;
      expect((await other.c.post("/admin/ban-user", { userId: user.id })).status).toBe(200);
      held.release();
      started = await impersonation;
    } finally {
      held.restore();
    }
    // The answer an earlier ban gets, not a server error; the admin keeps their own session, the user has none.
    expect(started).toMatchObject({ status: 403, body: { code: "YOU_CANNOT_IMPERSONATE_BANNED_USERS" } });
    expect((await admin.c.get("/get-session")).body.user.id).toBe(admin.id);
    expect(await platform.services.session.deps.store.listByUser(user.id)).toEqual([]);
  });

  it("tells a banned user of the ban at username sign-in, after the right password only", async () => {
    const admin = await anAdmin(platform);
    const c = platform.client();
    const username = `banned_${Date.now().toString(36)}`;
    const up = await c.post("/sign-up/email", { name: "U", email: uniqueEmail(), password: PASSWORD, username });
    expect(up.status).toBe(200);
    await admin.c.post("/admin/ban-user", { userId: up.body.user.id, banReason: "spam" });
    const refused = await platform.client().post("/sign-in/username", { username, password: PASSWORD });
    expect(refused).toMatchObject({ status: 403, body: { code: "BANNED_USER", banExpires: null } });
    const guessed = await platform.client().post("/sign-in/username", { username, password: "wrong-password-1" });
    expect(guessed).toMatchObject({ status: 401, body: { code: "INVALID_USERNAME_OR_PASSWORD" } });
  });

  it("a ban with an expiry holds until it passes, then the next sign-in clears it", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    const before = Date.now();
    const banned = await admin.c.post("/admin/ban-user", { userId: user.id, banReason: "cool off", banExpiresIn: 60 });
    expect(banned.body.user.banReason).toBe("cool off");
    const expires = Date.parse(banned.body.user.banExpires);
    expect(expires).toBeGreaterThanOrEqual(before + 60_000);
    expect(expires).toBeLessThan(Date.now() + 61_000);
    expect(await platform.client().post("/sign-in/email", { email: user.email, password: PASSWORD })).toMatchObject({
      status: 403,
      body: { code: "BANNED_USER", banExpires: banned.body.user.banExpires },
    });

    platform.clock.advance(61_000);
    const back = await platform.client().post("/sign-in/email", { email: user.email, password: PASSWORD });
    expect(back.status).toBe(200);
    expect(back.body.user).toMatchObject({ banned: false, banReason: null, banExpires: null });
  });

  it("refuses banning yourself, an unknown user and a bad expiry", async () => {
    const admin = await anAdmin(platform);
    const self = await admin.c.post("/admin/ban-user", { userId: admin.id });
    expect(self.status).toBe(400);
    expect(self.body).toEqual({ code: "YOU_CANNOT_BAN_YOURSELF", message: "You cannot ban yourself" });
    expect((await admin.c.get("/get-session")).body.user.id).toBe(admin.id);
    const unknown = await admin.c.post("/admin/ban-user", { userId: "no-such-user" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("USER_NOT_FOUND");
    expect((await admin.c.post("/admin/unban-user", { userId: "no-such-user" })).status).toBe(404);
    expect((await admin.c.post("/admin/ban-user", { userId: "x", banExpiresIn: -5 })).status).toBe(400);
    expect((await admin.c.post("/admin/ban-user", { userId: "x", banExpiresIn: "soon" })).status).toBe(400);
  });

  it("is recorded in the audit log with actor, target, reason, IP, user agent and outcome", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    await admin.c.post("/admin/ban-user", { userId: user.id, banReason: "audit me" }, { "user-agent": "audit-test/1.0" });
    await admin.c.post("/admin/ban-user", { userId: admin.id });
    const log = await admin.c.get(`/admin/list-audit-events?actorId=${admin.id}&action=user.ban`);
    expect(log.status).toBe(200);
    expect(log.body.total).toBe(2);
    const [refusal, ban] = log.body.events;
    expect(ban).toMatchObject({ action: "user.ban", actorId: admin.id, targetId: user.id, outcome: "success", userAgent: "audit-test/1.0", impersonatorId: null });
    expect(ban.details.reason).toBe("audit me");
    expect(ban.ipAddress).toBeTruthy();
    expect(Date.parse(ban.at)).toBeGreaterThan(Date.now() - 60_000);
    expect(refusal).toMatchObject({ targetId: admin.id, outcome: "failure", details: expect.objectContaining({ error: "YOU_CANNOT_BAN_YOURSELF" }) });
    const page = await admin.c.get(`/admin/list-audit-events?actorId=${admin.id}&limit=1&offset=1`);
    expect(page.body.events.map((e: { id: string }) => e.id)).toEqual([ban.id]);
    expect((await admin.c.get("/admin/list-audit-events?limit=0.5")).status).toBe(400);
    expect((await admin.c.get("/admin/list-audit-events?since=yesterday")).status).toBe(400);
  });
});

describe.skipIf(!TEST_REDIS_URL)("ban across replicas (needs TEST_REDIS_URL)", () => {
  let sessionB: RunningSession;
  let gatewayB: RunningGateway;
  beforeAll(async () => {
    const [sessionPort, gatewayPort] = await freePorts(2);
    sessionB = await startSession({ ...platform.env, SESSION_PORT: String(sessionPort) });
    gatewayB = await startGateway({ ...platform.env, PORT: String(gatewayPort), SESSION_SERVICE_URL: `127.0.0.1:${sessionPort}` });
  });
  afterAll(async () => {
    await gatewayB?.close();
    await sessionB?.close();
  });

  it("the banned user's sessions are refused through the other gateway and session replica at once", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    const onB = new TestClient(`${gatewayB.origin}/api/auth`);
    expect((await onB.post("/sign-in/email", { email: user.email, password: PASSWORD })).status).toBe(200);
    // Warm: both gateways now serve the user's sessions from the shared cache.
    expect((await onB.get("/get-session")).body.user.id).toBe(user.id);
    const aOnB = new TestClient(`${gatewayB.origin}/api/auth`, { cookie: user.c.cookieHeader() });
    expect((await aOnB.get("/get-session")).body.user.id).toBe(user.id);

    expect((await admin.c.post("/admin/ban-user", { userId: user.id })).status).toBe(200);
    expect((await onB.get("/get-session")).body).toBeNull();
    expect((await aOnB.get("/get-session")).body).toBeNull();
    expect((await user.c.get("/get-session")).body).toBeNull();
    expect((await onB.post("/sign-in/email", { email: user.email, password: PASSWORD })).status).toBe(403);
  });
});
