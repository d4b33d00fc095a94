/**
 * The last admin through the gateway: an admin cannot take their own admin role away (set-role,
 * update-user) while no other admin may sign in. The refusal is the catalogue's 400, which both
 * generations of better-auth's adminClient read as `error.code` and `error.message`, and it is audited.
 * Its own platform: the suite decides who the admins are.
 */
import { describe, expect, it } from "vitest";
import { createAuthClient as createLegacyClient } from "better-auth/client";
import { adminClient as legacyAdminClient } from "better-auth/client/plugins";
import { createAuthClient as createCurrentClient } from "better-auth-1.7/client";
import { adminClient as currentAdminClient } from "better-auth-1.7/client/plugins";
import { browserFetch } from "../../testing/browser.js";
import { holdNext } from "../../testing/hold-next.js";
import { usePlatform } from "../../testing/use-platform.js";
import { aUser, anAdmin } from "./admin-fixtures.js";

const platform = usePlatform({ env: { ADMIN_ASSIGNABLE_ROLES: "user,editor" } });
const REFUSAL = { code: "YOU_CANNOT_REMOVE_THE_LAST_ADMIN", message: "You cannot remove the last admin" };

/** A new admin made the only one: every other admin is demoted by it (allowed: the caller stays an admin). */
async function theLastAdmin() {
  const admin = await anAdmin(platform);
  const users = await admin.c.get("/admin/list-users?limit=1000");
  for (const user of users.body.users as Array<{ id: string; role: string | null }>) {
    const isAdmin = (user.role ?? "").split(",").includes("admin");
    if (isAdmin && user.id !== admin.id) expect((await admin.c.post("/admin/set-role", { userId: user.id, role: "user" })).status).toBe(200);
  }
  return admin;
}

describe("the last admin", () => {
  it("cannot take their own admin role away through set-role or update-user: 400, nothing changed, the refusal audited", async () => {
    const admin = await theLastAdmin();
    const setRole = await admin.c.post("/admin/set-role", { userId: admin.id, role: "user" });
    expect(setRole.status).toBe(400);
    expect(setRole.body).toEqual(REFUSAL);
    const update = await admin.c.post("/admin/update-user", { userId: admin.id, data: { name: "Renamed", role: ["editor"] } });
    expect(update.status).toBe(400);
    expect(update.body).toEqual(REFUSAL);
    expect((await admin.c.get("/get-session")).body.user).toMatchObject({ id: admin.id, role: "admin", name: "Ada" });
    expect((await admin.c.get("/admin/list-users")).status).toBe(200);
    const log = await admin.c.get(`/admin/list-audit-events?actorId=${admin.id}&targetId=${admin.id}`);
    expect(log.body.events.map((e: { action: string; outcome: string; details: { error?: string } }) => [e.action, e.outcome, e.details.error]).sort()).toEqual([
      ["user.set-role", "failure", REFUSAL.code],
      ["user.update", "failure", REFUSAL.code],
    ]);
    // Keeping an admin role is no demotion.
    expect((await admin.c.post("/admin/set-role", { userId: admin.id, role: ["editor", "admin"] })).body.user.role).toBe("editor,admin");
  });

  it("may step down once another admin may sign in, who is then the last; a banned admin does not count", async () => {
    const first = await theLastAdmin();
    const second = await anAdmin(platform);
    expect((await second.c.post("/admin/ban-user", { userId: first.id })).status).toBe(200);
    expect((await second.c.post("/admin/set-role", { userId: second.id, role: "user" })).body).toEqual(REFUSAL);
    expect((await second.c.post("/admin/unban-user", { userId: first.id })).status).toBe(200);
    const stepDown = await second.c.post("/admin/set-role", { userId: second.id, role: "user" });
    expect(stepDown.status).toBe(200);
    expect(stepDown.body.user.role).toBe("user");
    expect((await second.c.get("/admin/list-users")).status).toBe(403);
  });

  it("counts an admin whose role is a longer list, but not one whose role only contains the name", async () => {
    const first = await theLastAdmin();
    const other = await aUser(platform);
    await platform.services.identity.deps.store.updateUser(other.id, { role: "superadmin" });
    expect((await first.c.post("/admin/set-role", { userId: first.id, role: "user" })).body).toEqual(REFUSAL);
    expect((await first.c.post("/admin/set-role", { userId: other.id, role: ["editor", "user", "admin"] })).body.user.role).toBe("editor,user,admin");
    const stepDown = await first.c.post("/admin/set-role", { userId: first.id, role: "user" });
    expect(stepDown.status).toBe(200);
    expect(stepDown.body.user.role).toBe("user");
  });

  it("two last admins demoting each other at once: one demotion stands, the other is refused, one admin remains", async () => {
    const first = await theLastAdmin();
    const second = await anAdmin(platform);
    const admin = platform.services.admin.deps;
    // The first demotion held at its write, after its check; the second sent while it is held, answered once
    // the first is done. Which interleavings the lock rules out is for the domain's tests and the store
    // contract (admin-domain.test.ts, audit-store.contract.ts); this is the real services' answer to it.
    const held = holdNext(admin.identity, "setRole");
    const lock = admin.store.withAdminChangeLock;
    let results;
    try {
      const one = first.c.post("/admin/set-role", { userId: second.id, role: "user" });
      await held.reached;
      let queued!: () => void;
      const secondQueued = new Promise<void>((resolve) => (queued = resolve));
      admin.store.withAdminChangeLock = (work) => {
        queued();
        return lock(work);
      };
      const two = second.c.post("/admin/set-role", { userId: first.id, role: "user" });
      await secondQueued;
      held.release();
      results = await Promise.all([one, two]);
    } finally {
      held.restore();
      admin.store.withAdminChangeLock = lock;
    }
    expect(results.map((r) => r.status)).toEqual([200, 400]);
    expect(results[1]!.body).toEqual(REFUSAL);
    expect((await first.c.get("/get-session")).body.user.role).toBe("admin");
    // Recorded once, as the admin service refused it (the gateway asks nothing more about its answer).
    const log = await first.c.get(`/admin/list-audit-events?actorId=${second.id}&action=user.set-role`);
    expect(log.body.events.map((e: { targetId: string; details: { error?: string } }) => [e.targetId, e.details.error])).toEqual([[first.id, REFUSAL.code]]);
    expect((await first.c.get("/admin/list-users")).status).toBe(200);
  });

  const current = (baseURL: string, f: typeof fetch) => createCurrentClient({ baseURL, plugins: [currentAdminClient()], fetchOptions: { customFetchImpl: f } });
  const GENERATIONS = [
    {
      version: "1.1.9",
      make: (baseURL: string, f: typeof fetch) =>
        createLegacyClient({ baseURL, plugins: [legacyAdminClient()], fetchOptions: { customFetchImpl: f } }) as unknown as ReturnType<typeof current>,
    },
    { version: "1.7.25", make: current },
  ];

  it.each(GENERATIONS)("better-auth $version adminClient's setRole reads the refusal as the catalogue's code and message", async ({ make }) => {
    const admin = await theLastAdmin();
    const { customFetchImpl } = browserFetch(platform.origin);
    const client = make(platform.baseURL, customFetchImpl as typeof fetch);
    const signIn = await client.signIn.email({ email: admin.email, password: "password-123" });
    expect(signIn.error).toBeNull();
    const { data, error } = await client.admin.setRole({ userId: admin.id, role: "user" });
    expect(data).toBeNull();
    expect(error).toMatchObject({ status: 400, ...REFUSAL });
  });
});
