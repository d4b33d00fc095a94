/**
 * A partition between identity and the session service (the admin service and the gateway still reach
 * both): a ban, a demotion and a password reset are stored and answered, and their effect on the session
 * service (the user's copy, the end of the sessions) follows as soon as the link is back, with nothing
 * lost and nothing done twice: identity's session outbox (services/identity/src/domain/session-outbox.ts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { backendLabel } from "../../testing/databases.js";
import { eventually } from "../../testing/eventually.js";
import { uniqueEmail } from "../../testing/http.js";
import { linkIn } from "../../testing/smtp.js";
import { startRelay } from "../../testing/tcp-relay.js";
import { usePlatform } from "../../testing/use-platform.js";
import { anAdmin, aUser, PASSWORD } from "./admin-fixtures.js";

// identity dials the session service through this relay; every other process dials it directly.
const relay = await startRelay();
afterAll(() => relay.close());

describe(`identity partitioned from the session service (${backendLabel()})`, () => {
  const platform = usePlatform({ smtp: true, serviceEnv: { identity: { SESSION_SERVICE_URL: `127.0.0.1:${relay.port}` } } });
  beforeAll(() => {
    relay.setTarget(Number(platform.sessionAddress.split(":").pop()));
  });
  // Each test starts with the link up and identity's channel through it connected.
  beforeEach(async () => {
    relay.restore();
    await eventually(() => platform.services.identity.deps.sessions.usersMissingSnapshot("", 1));
  });

  /** Heals the partition and lets the outbox's retry come due (it backs off while the link is cut). */
  const heal = () => {
    relay.restore();
    platform.clock.advance(120_000);
  };
  const signedIn = async (client: ReturnType<typeof platform.client>) => (await client.get("/get-session")).body !== null;

  it("a ban is stored and answered, and the banned user's sessions end once the session service is reachable", async () => {
    const admin = await anAdmin(platform);
    const user = await aUser(platform);

    relay.cut();
    const banned = await admin.c.post("/admin/ban-user", { userId: user.id, banReason: "partition" });
    expect(banned.status).toBe(200);
    expect(banned.body.user).toMatchObject({ id: user.id, banned: true });
    // Identity holds the ban: a new sign-in is refused already.
    expect([401, 403]).toContain((await platform.client().post("/sign-in/email", { email: user.email, password: PASSWORD })).status);
    expect(await platform.services.identity.deps.store.findSessionOutbox(user.id)).toMatchObject({ revokeSessions: true });

    heal();
    await eventually(async () => expect(await signedIn(user.c)).toBe(false));
    await eventually(async () => expect(await platform.services.identity.deps.store.findSessionOutbox(user.id)).toBeNull());
  });

  it("a demotion is stored and answered, and the demoted admin loses the admin area once the session service is reachable", async () => {
    const admin = await anAdmin(platform);
    const other = await anAdmin(platform);
    expect((await other.c.get("/admin/list-users?limit=1")).status).toBe(200);

    relay.cut();
    expect((await admin.c.post("/admin/set-role", { userId: other.id, role: "user" })).status).toBe(200);

    heal();
    await eventually(async () => expect((await other.c.get("/admin/list-users?limit=1")).status).toBe(403));
    expect((await other.c.get("/get-session")).body.user.role).toBe("user");
  });

  it("a password reset ends the old sessions once the session service is reachable, and not the session opened after it", async () => {
    const email = uniqueEmail("reset-partition");
    const intruder = platform.client();
    expect((await intruder.post("/sign-up/email", { name: "Reset", email, password: PASSWORD })).status).toBe(200);
    expect((await platform.client().post("/forget-password", { email, redirectTo: "/reset" })).status).toBe(200);
    const link = linkIn(await platform.smtp.waitFor(email, (m) => m.text.includes("/reset-password/")), "/reset-password/");
    const token = new URL(link).pathname.split("/").pop()!;

    relay.cut();
    expect(await platform.client().post("/reset-password", { newPassword: "new-password-456", token })).toMatchObject({ status: 200, body: { status: true } });
    // The link is spent: the reset is done, and its revocation is kept until it can be delivered.
    expect((await platform.client().post("/reset-password", { newPassword: "another-password-1", token })).body.code).toBe("INVALID_TOKEN");

    // The owner signs in as soon as the link is back, before the worker's retry: the revocation goes first.
    relay.restore();
    const owner = platform.client();
    await eventually(async () => expect((await owner.post("/sign-in/email", { email, password: "new-password-456" })).status).toBe(200));
    expect(await signedIn(intruder)).toBe(false);
    platform.clock.advance(120_000);
    await eventually(async () => expect(await platform.services.identity.deps.store.findSessionOutbox((await owner.get("/get-session")).body.user.id)).toBeNull());
    expect(await signedIn(owner)).toBe(true);
  });
});
