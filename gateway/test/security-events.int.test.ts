/**
 * Security events in the audit log: a user's own password change, email change and session revocations, and
 * sign-in failure bursts, reported by the gateway to the admin service and read by an admin through
 * GET /admin/list-audit-events with actor, target, IP, user agent and outcome.
 */
import { describe, expect, it } from "vitest";
import { uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";
import { PASSWORD, aUser, anAdmin } from "./admin-fixtures.js";

const platform = usePlatform();
const AGENT = { "user-agent": "security-events-suite/1.0" };

type Event = { id: string; action: string; actorId: string | null; targetId: string | null; ipAddress: string | null; userAgent: string | null; outcome: string; details: Record<string, unknown> };

/** The events matching `where`, once at least `count` are there (delivery is asynchronous). */
async function eventsOf(admin: Awaited<ReturnType<typeof anAdmin>>, query: string, where: (e: Event) => boolean, count = 1): Promise<Event[]> {
  for (let i = 0; ; i++) {
    const res = await admin.c.get(`/admin/list-audit-events?${query}`);
    expect(res.status).toBe(200);
    const found = (res.body.events as Event[]).filter(where);
    if (found.length >= count || i === 100) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
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

  it("records an email change", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);
    expect((await user.c.post("/change-email", { newEmail: uniqueEmail("moved") }, AGENT)).status).toBe(200);
    const [event] = await eventsOf(admin, `action=user.change-email&targetId=${user.id}`, () => true);
    expect(event).toMatchObject({ actorId: user.id, targetId: user.id, outcome: "success", userAgent: AGENT["user-agent"] });
    expect(event!.ipAddress).toBeTruthy();
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
    await new Promise((resolve) => setTimeout(resolve, 300));
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
});
