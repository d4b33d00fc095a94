/**
 * Security events in the audit log: a user's own password change, password reset (and what a reset of an
 * unverified user removed), email change (requested and confirmed) and session revocations, sign-in failure bursts, wrong two-factor codes and their bursts, failed social
 * sign-ins, reported by the gateway to the admin service and read by an admin through
 * GET /admin/list-audit-events with actor, target, IP, user agent and outcome; and delivered after the admin
 * service was down for a while.
 */
import { describe, expect, it } from "vitest";
import { base32Decode, totpCode, totpStep } from "../../services/identity/src/domain/totp.js";
import { eventually } from "../../testing/eventually.js";
import { uniqueEmail } from "../../testing/http.js";
import { startAdmin } from "../../testing/platform.js";
import { linkIn } from "../../testing/smtp.js";
import { usePlatform } from "../../testing/use-platform.js";
import { PASSWORD, aUser, anAdmin } from "./admin-fixtures.js";

// Warnings kept: the last test waits for the gateway's first failed delivery.
const logs: Array<Record<string, unknown>> = [];
const platform = usePlatform({ smtp: true, env: { LOG_LEVEL: "warn" }, logs: (entry) => logs.push(entry) });
const AGENT = { "user-agent": "security-events-suite/1.0" };

type Event = {
  id: string;
  action: string;
  actorId: string | null;
  targetId: string | null;
  ipAddress: string | null;
  userAgent: string | null;
  outcome: string;
  details: Record<string, unknown>;
};

/** The events matching `where`, once at least `count` are there (delivery is asynchronous). */
async function eventsOf(admin: Awaited<ReturnType<typeof anAdmin>>, query: string, where: (e: Event) => boolean, count = 1, timeoutMs?: number): Promise<Event[]> {
  return eventually(async () => {
    const res = await admin.c.get(`/admin/list-audit-events?${query}`);
    // Not 200 only while the gateway reconnects to a restarted admin service (503, the last test).
    expect(res.status).toBe(200);
    const found = (res.body.events as Event[]).filter(where);
    expect(found.length).toBeGreaterThanOrEqual(count);
    return found;
  }, timeoutMs);
}

describe("security events in the audit log", () => {
  it("records a password change, refused and done, with actor, target, IP, user agent and outcome", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    const wrong = await user.c.post("/change-password", { currentPassword: "not-the-password", newPassword: "next-password-1" }, AGENT);
    expect(wrong.status).toBe(400);
    const done = await user.c.post("/change-password", { currentPassword: PASSWORD, newPassword: "next-password-1", revokeOtherSessions: true }, AGENT);
    expect(done.status).toBe(200);
    const events = await eventsOf(admin, `action=user.change-password&actorId=${user.id}`, () => true, 2);
    expect(events).toHaveLength(2);
    const expected = { action: "user.change-password", actorId: user.id, targetId: user.id, userAgent: AGENT["user-agent"], ipAddress: expect.stringMatching(/127\.0\.0\.1|::1/) };
    expect(events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ ...expected, outcome: "success", details: { revokeOtherSessions: true } }),
        expect.objectContaining({ ...expected, outcome: "failure", details: { revokeOtherSessions: false, error: "INVALID_PASSWORD" } }),
      ]),
    );
  });

  it("records a password reset, naming the two-factor setup a reset of an unverified user removed", async () => {
    const admin = await anAdmin(platform);
    const resetBy = async (email: string, newPassword: string) => {
      await platform.client().post("/forget-password", { email });
      const token = new URL(linkIn(await platform.smtp.waitFor(email, (m) => m.text.includes("/reset-password/")), "/reset-password/")).pathname.split("/").pop()!;
      expect((await platform.client().post("/reset-password", { token, newPassword }, AGENT)).status).toBe(200);
    };
    const unverified = await aUser(platform);
    const enabled = await unverified.c.post("/two-factor/enable", { password: PASSWORD });
    const secret = base32Decode(new URL(enabled.body.totpURI).searchParams.get("secret")!);
    expect((await unverified.c.post("/two-factor/verify-totp", { code: totpCode(secret, totpStep(new Date())) })).status).toBe(200);
    await resetBy(unverified.email, "owner-password-1");
    const plain = await aUser(platform);
    await resetBy(plain.email, "owner-password-1");

    const expected = { action: "user.reset-password", outcome: "success", userAgent: AGENT["user-agent"] };
    const [removed] = await eventsOf(admin, `action=user.reset-password&targetId=${unverified.id}`, () => true);
    expect(removed).toMatchObject({ ...expected, actorId: unverified.id });
    expect(removed!.details).toEqual({ providerAccountsRemoved: 0, twoFactorRemoved: true });
    const [nothingRemoved] = await eventsOf(admin, `action=user.reset-password&targetId=${plain.id}`, () => true);
    expect(nothingRemoved).toMatchObject({ ...expected, actorId: plain.id });
    expect(nothingRemoved!.details).toEqual({});
  });

  it("records an email change", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    expect((await user.c.post("/change-email", { newEmail: uniqueEmail("moved") }, AGENT)).status).toBe(200);
    const [event] = await eventsOf(admin, `action=user.change-email&targetId=${user.id}`, () => true);
    expect(event).toMatchObject({ actorId: user.id, targetId: user.id, outcome: "success", userAgent: AGENT["user-agent"] });
    expect(event!.ipAddress).toBeTruthy();
  });

  it("records the confirmation of a verified user's email change, in the user's session", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    await user.c.post("/send-verification-email", { email: user.email });
    await platform.follow(user.c, linkIn(await platform.smtp.waitFor(user.email, (m) => m.text.includes("/verify-email")), "/verify-email"));
    const newEmail = uniqueEmail("confirmed");
    expect((await user.c.post("/change-email", { newEmail }, AGENT)).status).toBe(200);
    const approval = new URL(linkIn(await platform.smtp.waitFor(user.email, (m) => m.text.includes(newEmail)), "/verify-email"));
    approval.searchParams.delete("callbackURL");
    const path = `/verify-email${approval.search}`;
    // Followed elsewhere (no session), the link moves nothing and records nothing.
    expect((await platform.client().get(path)).status).toBe(401);
    const res = await user.c.get(path, AGENT);
    expect(res.status).toBe(200);
    expect(res.body.user.email).toBe(newEmail);
    const [event, ...more] = await eventsOf(admin, `action=user.change-email.confirm&targetId=${user.id}`, () => true);
    expect(more).toEqual([]);
    expect(event).toMatchObject({ actorId: user.id, targetId: user.id, outcome: "success", userAgent: AGENT["user-agent"] });
    expect(event!.ipAddress).toBeTruthy();
  });

  it("records wrong two-factor codes, signed in and at a sign-in challenge, and the burst of them once", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    const enabled = await user.c.post("/two-factor/enable", { password: PASSWORD });
    expect(enabled.status).toBe(200);
    const secret = base32Decode(new URL(enabled.body.totpURI).searchParams.get("secret")!);
    const code = () => totpCode(secret, totpStep(new Date()));
    const wrong = () => (code() === "000000" ? "111111" : "000000");
    expect((await user.c.post("/two-factor/verify-totp", { code: wrong() }, AGENT)).status).toBe(401);
    expect((await user.c.post("/two-factor/verify-totp", { code: code() })).status).toBe(200);
    const signingIn = platform.client();
    expect((await signingIn.post("/sign-in/email", { email: user.email, password: PASSWORD })).body).toMatchObject({ twoFactorRedirect: true });
    for (let i = 0; i < 4; i++) expect((await signingIn.post("/two-factor/verify-totp", { code: wrong() }, AGENT)).status).toBe(401);

    const failures = await eventsOf(admin, `action=two-factor.verify&targetId=${user.id}`, () => true, 5);
    expect(failures).toHaveLength(5);
    const expected = { targetId: user.id, outcome: "failure", userAgent: AGENT["user-agent"], ipAddress: expect.any(String) };
    expect(failures.filter((e) => e.details.signedIn)).toEqual([
      expect.objectContaining({ ...expected, actorId: user.id, details: { method: "totp", signedIn: true, error: "INVALID_TWO_FACTOR_AUTHENTICATION" } }),
    ]);
    expect(failures.filter((e) => !e.details.signedIn)).toEqual(
      Array(4).fill(expect.objectContaining({ ...expected, actorId: null, details: { method: "totp", signedIn: false, error: "INVALID_TWO_FACTOR_AUTHENTICATION" } })),
    );
    const bursts = await eventsOf(admin, `action=two-factor.failure-burst&targetId=${user.id}`, () => true);
    expect(bursts).toEqual([
      expect.objectContaining({ targetId: user.id, outcome: "failure", details: { scope: "account", failures: 5, windowSeconds: 900, ipAddresses: [expect.any(String)] } }),
    ]);
  });

  it("records failed social sign-ins: a callback whose state this browser was not given, a refused id token", async () => {
    const admin = await anAdmin(platform);
    const before = (await eventsOf(admin, "action=sign-in.social&limit=1000", () => true, 0, 0)).length;
    const res = await platform.client().get("/callback/google?state=not-this-browsers&code=x", AGENT);
    expect(res.status).toBe(302);
    const events = await eventsOf(admin, "action=sign-in.social&limit=1000", () => true, before + 1);
    expect(events).toHaveLength(before + 1);
    expect(events[0]).toMatchObject({ actorId: null, outcome: "failure", userAgent: AGENT["user-agent"], details: { provider: "google", error: "please_restart_the_process" } });
    // An id token sign-in refused by the oauth service is recorded with the refusal's code.
    const refused = await platform.client().post("/sign-in/social", { provider: "google", idToken: { token: "not-a-jwt" } }, AGENT);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    const [latest] = await eventsOf(admin, "action=sign-in.social&limit=1000", () => true, before + 2);
    expect(latest).toMatchObject({ actorId: null, outcome: "failure", userAgent: AGENT["user-agent"], details: { provider: "google", error: refused.body.code } });
  });

  it("records a user revoking their own sessions: one, the others, all", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    const other = platform.client();
    const signedIn = await other.post("/sign-in/email", { email: user.email, password: PASSWORD });
    expect(signedIn.status).toBe(200);
    expect((await user.c.post("/revoke-session", { token: signedIn.body.token }, AGENT)).status).toBe(200);
    expect((await user.c.post("/revoke-other-sessions", {}, AGENT)).status).toBe(200);
    expect((await user.c.post("/revoke-sessions", {}, AGENT)).status).toBe(200);
    const events = await eventsOf(admin, `actorId=${user.id}`, (e) => e.action.startsWith("session.revoke-own"), 3);
    expect(events.map((e) => e.action).sort()).toEqual(["session.revoke-own", "session.revoke-own-all", "session.revoke-own-others"]);
    for (const event of events) expect(event).toMatchObject({ actorId: user.id, targetId: user.id, outcome: "success", userAgent: AGENT["user-agent"] });
  });

  it("records a burst of failed sign-ins to one account once, however long it goes on", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    for (let i = 0; i < 8; i++) {
      const res = await platform.client().post("/sign-in/email", { email: user.email, password: `wrong-${i}-password` }, AGENT);
      expect(res.status).toBe(401);
    }
    const burst = (e: Event) => e.details.identifier === user.email;
    const events = await eventsOf(admin, "action=sign-in.failure-burst&limit=1000", burst);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ actorId: null, outcome: "failure", userAgent: AGENT["user-agent"], details: { scope: "account", failures: 5 } });
    expect(events[0]!.ipAddress).toBeTruthy();
    // Further failures in the same window add no second event.
    await platform.client().post("/sign-in/email", { email: user.email, password: "wrong-again-password" });
    // A later event from the same gateway proves delivery has caught up before counting again.
    expect((await user.c.post("/change-email", { newEmail: uniqueEmail("after-burst") })).status).toBe(200);
    await eventsOf(admin, `action=user.change-email&targetId=${user.id}`, () => true);
    expect(await eventsOf(admin, "action=sign-in.failure-burst&limit=1000", burst)).toHaveLength(1);
  });

  it("does not count a successful sign-in or a handful of failures as a burst", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    for (let i = 0; i < 4; i++) expect((await platform.client().post("/sign-in/email", { email: user.email, password: "wrong-password-x" })).status).toBe(401);
    expect((await platform.client().post("/sign-in/email", { email: user.email, password: PASSWORD })).status).toBe(200);
    // A later event from the same suite proves delivery has caught up before asserting the absence.
    expect((await user.c.post("/change-email", { newEmail: uniqueEmail("later") })).status).toBe(200);
    await eventsOf(admin, `action=user.change-email&targetId=${user.id}`, () => true);
    expect(await eventsOf(admin, "action=sign-in.failure-burst&limit=1000", (e) => e.details.identifier === user.email, 0)).toHaveLength(0);
  });

  // Last: it stops the platform's admin service (a restarted one serves the rest of this file's clean-up).
  it("delivers events reported while the admin service was down, once it is back", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    await platform.services.admin.close();
    expect((await user.c.post("/change-password", { currentPassword: PASSWORD, newPassword: "while-admin-was-down-1" }, AGENT)).status).toBe(200);
    // The gateway has tried while the admin service was down (and keeps the event to retry).
    await eventually(async () => expect(logs).toContainEqual(expect.objectContaining({ msg: "security event not delivered yet; retrying", action: "user.change-password" })));
    const restarted = await startAdmin(platform.env);
    try {
      const events = await eventsOf(admin, `action=user.change-password&actorId=${user.id}`, () => true, 1, 20_000);
      expect(events).toEqual([expect.objectContaining({ actorId: user.id, outcome: "success", userAgent: AGENT["user-agent"] })]);
    } finally {
      await restarted.close();
    }
  }, 60_000);
});
