/** The admin use cases on fakes of identity and session, with an injected clock. */
import { describe, expect, it } from "vitest";
import { AuthError } from "@auth-platform/proto/errors";
import { holdNext } from "../../../../testing/hold-next.js";
import { purgeExpired } from "./audit.js";
import { impersonateUser, stopImpersonating } from "./impersonation.js";
import { roleHasPermissions } from "./permissions.js";
import { aSignedInUser, callerFor, T0, type TestRegistry, testRegistry } from "../../test/test-registry.js";
import { banUser, createUser, listUsers, removeUser, setRole, updateUser } from "./users.js";

/** The caller the gateway asserts for a request with this token (none without a live session). */
const caller = callerFor;
/** The admin's kept session as the gateway resolves it from its cookie (nothing when it is no live session). */
const kept = (token: string) => {
  const found = callerFor(token);
  return found ? { sessionId: found.sessionId, userId: found.userId } : {};
};

describe("who is an admin", () => {
  it("no session is UNAUTHORIZED, a user is refused (and the attempt recorded), any configured role passes", async () => {
    const deps = testRegistry({ ADMIN_ROLES: "admin, support" });
    await expect(listUsers(deps, caller("nope"), { limit: 0, offset: 0, countLimit: 0 })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    const user = aSignedInUser(deps);
    await expect(banUser(deps, caller(user.token), { userId: "x", expiresInSeconds: 0 })).rejects.toMatchObject({ code: "ONLY_ADMINS_CAN_ACCESS_THIS_ENDPOINT" });
    const { records } = await deps.store.list({ limit: 10, offset: 0 });
    expect(records).toMatchObject([{ action: "user.ban", actorId: user.user.id, outcome: "failure", ipAddress: "203.0.113.9", userAgent: "unit", at: new Date(T0) }]);
    const support = aSignedInUser(deps, "editor,support");
    await expect(listUsers(deps, caller(support.token), { limit: 0, offset: 0, countLimit: 0 })).resolves.toMatchObject({ total: 2 });
  });

  it("an expired session is refused", async () => {
    const deps = testRegistry();
    const admin = aSignedInUser(deps, "admin");
    deps.clock.advance(86_400_001);
    await expect(listUsers(deps, caller(admin.token), { limit: 0, offset: 0, countLimit: 0 })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });
});

describe("admin actions", () => {
  it("ban: never yourself, an unknown user is USER_NOT_FOUND, the user's sessions end, the expiry counts from now", async () => {
    const deps = testRegistry();
    const admin = aSignedInUser(deps, "admin");
    const user = aSignedInUser(deps);
    await expect(banUser(deps, caller(admin.token), { userId: admin.user.id, expiresInSeconds: 0 })).rejects.toMatchObject({ code: "YOU_CANNOT_BAN_YOURSELF" });
    await expect(banUser(deps, caller(admin.token), { userId: "ghost", expiresInSeconds: 0 })).rejects.toMatchObject({ code: "USER_NOT_FOUND" });
    deps.clock.advance(5_000);
    const banned = await banUser(deps, caller(admin.token), { userId: user.user.id, reason: "spam", expiresInSeconds: 60 });
    expect(banned.banExpires).toEqual(new Date(T0 + 5_000 + 60_000));
    expect(deps.sessionsByToken.has(user.token)).toBe(false);
    const { records } = await deps.store.list({ limit: 10, offset: 0, action: "user.ban" });
    expect(records.map((r) => r.outcome)).toEqual(["success", "failure", "failure"]);
    expect(records[0]).toMatchObject({ targetId: user.user.id, details: { reason: "spam", expiresInSeconds: 60 }, at: new Date(T0 + 5_000) });
  });

  it("remove: never yourself; set-role is recorded with the role", async () => {
    const deps = testRegistry({ ADMIN_ASSIGNABLE_ROLES: "user,editor" });
    const admin = aSignedInUser(deps, "admin");
    const user = aSignedInUser(deps);
    await expect(removeUser(deps, caller(admin.token), admin.user.id)).rejects.toMatchObject({ code: "YOU_CANNOT_REMOVE_YOURSELF" });
    await setRole(deps, caller(admin.token), user.user.id, "editor");
    expect((await deps.store.list({ limit: 1, offset: 0, action: "user.set-role" })).records[0]).toMatchObject({ details: { role: "editor" }, outcome: "success" });
    await removeUser(deps, caller(admin.token), user.user.id);
    expect(deps.users.has(user.user.id)).toBe(false);
  });
});

describe("assignable roles", () => {
  it("by default user and the admin roles; any other, alone or in a list, is refused and recorded, the user unchanged", async () => {
    const deps = testRegistry({ ADMIN_ROLES: "admin,support" });
    expect(deps.config.assignableRoles).toEqual(["user", "admin", "support"]);
    const admin = aSignedInUser(deps, "admin");
    const user = aSignedInUser(deps);
    for (const role of ["superuser", "user,superuser", " ", ","]) {
      await expect(setRole(deps, caller(admin.token), user.user.id, role)).rejects.toMatchObject({ code: "YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE", http: 400 });
      await expect(updateUser(deps, caller(admin.token), { userId: user.user.id, name: "Renamed", role, clearImage: false, extraFields: {} })).rejects.toMatchObject({
        code: "YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE",
      });
      await expect(createUser(deps, caller(admin.token), { email: "new@example.com", password: "password-123", name: "New", role, extraFields: {} })).rejects.toMatchObject({
        code: "YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE",
      });
    }
    expect(deps.users.get(user.user.id)).toMatchObject({ role: "user", name: "Ada" });
    expect(deps.users.size).toBe(2);
    const { records } = await deps.store.list({ limit: 10, offset: 0, action: "user.set-role" });
    expect(records.map((r) => [r.outcome, r.details.error])).toEqual(Array(4).fill(["failure", "YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE"]));
    await expect(setRole(deps, caller(admin.token), user.user.id, "support, user")).resolves.toMatchObject({ role: "support, user" });
    await expect(createUser(deps, caller(admin.token), { email: "new@example.com", password: "password-123", name: "New", role: "admin", extraFields: {} })).resolves.toMatchObject(
      { role: "admin" },
    );
  });

  it("ADMIN_ASSIGNABLE_ROLES replaces user; empty leaves the admin roles only", () => {
    expect(testRegistry({ ADMIN_ASSIGNABLE_ROLES: "member, editor" }).config.assignableRoles).toEqual(["member", "editor", "admin"]);
    expect(testRegistry({ ADMIN_ASSIGNABLE_ROLES: "" }).config.assignableRoles).toEqual(["admin"]);
  });
});

describe("create-user without a password or a role (better-auth 1.7)", () => {
  /** The registry with identity's createUser watched: what the admin service asked it for. */
  function watched(env: Record<string, string> = {}) {
    const deps = testRegistry(env);
    const asked: Array<Parameters<TestRegistry["identity"]["createUser"]>[0]> = [];
    const create = deps.identity.createUser;
    deps.identity.createUser = (input) => {
      asked.push(input);
      return create(input);
    };
    return { deps, asked };
  }

  it("asks identity for a user with neither (its default role, no credential account) and records the creation with a null role", async () => {
    const { deps, asked } = watched({ ADMIN_ASSIGNABLE_ROLES: "editor" });
    const admin = aSignedInUser(deps, "admin");
    // "user" is not assignable here: the default role is identity's, which no admin chose, so it is not checked.
    const user = await createUser(deps, caller(admin.token), { email: "new@example.com", name: "New", extraFields: {} });
    expect(user).toMatchObject({ email: "new@example.com", role: "user" });
    expect(asked).toEqual([{ email: "new@example.com", name: "New", extraFields: {} }]);
    expect(asked[0]).not.toHaveProperty("password");
    expect(asked[0]).not.toHaveProperty("role");
    const { records } = await deps.store.list({ limit: 10, offset: 0, action: "user.create" });
    expect(records).toMatchObject([{ outcome: "success", actorId: admin.user.id, targetId: user.id, details: { role: null } }]);
  });

  it("a role given without a password is still checked: refused and recorded, no user asked for", async () => {
    const { deps, asked } = watched();
    const admin = aSignedInUser(deps, "admin");
    await expect(createUser(deps, caller(admin.token), { email: "new@example.com", name: "New", role: "superuser", extraFields: {} })).rejects.toMatchObject({
      code: "YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE",
    });
    expect(asked).toEqual([]);
    const { records } = await deps.store.list({ limit: 10, offset: 0, action: "user.create" });
    expect(records).toMatchObject([{ outcome: "failure", details: { role: "superuser", error: "YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE" } }]);
    await expect(createUser(deps, caller(admin.token), { email: "new@example.com", name: "New", role: "admin", extraFields: {} })).resolves.toMatchObject({ role: "admin" });
    expect(asked).toEqual([{ email: "new@example.com", name: "New", role: "admin", extraFields: {} }]);
  });
});

describe("the last admin", () => {
  it("an admin cannot take their own admin role away while no other admin may sign in; the refusal is recorded and changes nothing", async () => {
    const deps = testRegistry({ ADMIN_ROLES: "admin,support", ADMIN_ASSIGNABLE_ROLES: "user,editor" });
    const admin = aSignedInUser(deps, "admin");
    aSignedInUser(deps, "user");
    await expect(setRole(deps, caller(admin.token), admin.user.id, "user")).rejects.toMatchObject({
      code: "YOU_CANNOT_REMOVE_THE_LAST_ADMIN",
      http: 400,
      message: "You cannot remove the last admin",
    });
    await expect(updateUser(deps, caller(admin.token), { userId: admin.user.id, name: "Renamed", role: "editor", clearImage: false, extraFields: {} })).rejects.toMatchObject({
      code: "YOU_CANNOT_REMOVE_THE_LAST_ADMIN",
    });
    expect(deps.users.get(admin.user.id)).toMatchObject({ role: "admin", name: "Ada" });
    const { records } = await deps.store.list({ limit: 10, offset: 0 });
    expect(records.map((r) => [r.action, r.targetId, r.outcome, r.details.error]).sort()).toEqual([
      ["user.set-role", admin.user.id, "failure", "YOU_CANNOT_REMOVE_THE_LAST_ADMIN"],
      ["user.update", admin.user.id, "failure", "YOU_CANNOT_REMOVE_THE_LAST_ADMIN"],
    ]);
    // Keeping any admin role is no demotion.
    await expect(setRole(deps, caller(admin.token), admin.user.id, "editor,support")).resolves.toMatchObject({ role: "editor,support" });
    await expect(setRole(deps, caller(admin.token), admin.user.id, "admin")).resolves.toMatchObject({ role: "admin" });
  });

  it("another admin, by any admin role, lets an admin step down; a banned one counts only once the ban has run out", async () => {
    const deps = testRegistry({ ADMIN_ROLES: "admin,support" });
    const first = aSignedInUser(deps, "admin");
    const second = aSignedInUser(deps, "support");
    await expect(setRole(deps, caller(first.token), first.user.id, "user")).resolves.toMatchObject({ role: "user" });
    // The second admin is now the last one.
    await expect(setRole(deps, caller(second.token), second.user.id, "user")).rejects.toMatchObject({ code: "YOU_CANNOT_REMOVE_THE_LAST_ADMIN" });
    await expect(updateUser(deps, caller(second.token), { userId: second.user.id, role: "user", clearImage: false, extraFields: {} })).rejects.toMatchObject({
      code: "YOU_CANNOT_REMOVE_THE_LAST_ADMIN",
    });
    const third = aSignedInUser(deps, "admin");
    await banUser(deps, caller(second.token), { userId: third.user.id, expiresInSeconds: 60 });
    await expect(setRole(deps, caller(second.token), second.user.id, "user")).rejects.toMatchObject({ code: "YOU_CANNOT_REMOVE_THE_LAST_ADMIN" });
    deps.clock.advance(60_001);
    await expect(setRole(deps, caller(second.token), second.user.id, "user")).resolves.toMatchObject({ role: "user" });
  });

  /**
   * Runs `first` until it is about to write (its identity.setRole held), then `second` until it has asked for
   * the admin change lock and had every chance to run on, then lets both finish.
   */
  async function atOnce(deps: TestRegistry, first: () => Promise<unknown>, second: () => Promise<unknown>) {
    const held = holdNext(deps.identity, "setRole");
    const lock = deps.store.withAdminChangeLock;
    try {
      const one = first();
      await held.reached;
      let queued!: () => void;
      const secondQueued = new Promise<void>((resolve) => (queued = resolve));
      deps.store.withAdminChangeLock = (work) => {
        queued();
        return lock(work);
      };
      const two = second();
      await secondQueued;
      for (let turn = 0; turn < 10; turn += 1) await new Promise((resolve) => setImmediate(resolve));
      held.release();
      return await Promise.allSettled([one, two]);
    } finally {
      held.restore();
      deps.store.withAdminChangeLock = lock;
    }
  }

  it("two last admins stepping down at once: the second is decided after the first, and refused", async () => {
    const deps = testRegistry();
    const [a, b] = [aSignedInUser(deps, "admin"), aSignedInUser(deps, "admin")];
    const [one, two] = await atOnce(
      deps,
      () => setRole(deps, caller(a.token), a.user.id, "user"),
      () => setRole(deps, caller(b.token), b.user.id, "user"),
    );
    expect(one).toMatchObject({ status: "fulfilled", value: { role: "user" } });
    expect(two).toMatchObject({ status: "rejected", reason: { code: "YOU_CANNOT_REMOVE_THE_LAST_ADMIN" } });
    expect(deps.users.get(b.user.id)!.role).toBe("admin");
  });

  it("two last admins demoting each other at once: one demotion stands, the other is refused", async () => {
    const deps = testRegistry();
    const [a, b] = [aSignedInUser(deps, "admin"), aSignedInUser(deps, "admin")];
    const [one, two] = await atOnce(
      deps,
      () => setRole(deps, caller(a.token), b.user.id, "user"),
      () => updateUser(deps, caller(b.token), { userId: a.user.id, role: "user", clearImage: false, extraFields: {} }),
    );
    expect(one).toMatchObject({ status: "fulfilled" });
    expect(two).toMatchObject({ status: "rejected", reason: { code: "YOU_CANNOT_REMOVE_THE_LAST_ADMIN" } });
    expect([deps.users.get(a.user.id)!.role, deps.users.get(b.user.id)!.role]).toEqual(["admin", "user"]);
  });

  it("an admin stepping down while banning or removing the only other admin: the second change is refused", async () => {
    for (const other of ["ban", "remove"] as const) {
      const deps = testRegistry();
      const [a, b] = [aSignedInUser(deps, "admin"), aSignedInUser(deps, "admin")];
      const [one, two] = await atOnce(
        deps,
        () => setRole(deps, caller(a.token), a.user.id, "user"),
        () => (other === "ban" ? banUser(deps, caller(a.token), { userId: b.user.id, expiresInSeconds: 0 }) : removeUser(deps, caller(a.token), b.user.id)),
      );
      expect(one, other).toMatchObject({ status: "fulfilled", value: { role: "user" } });
      expect(two, other).toMatchObject({ status: "rejected", reason: { code: "YOU_CANNOT_REMOVE_THE_LAST_ADMIN" } });
      expect(deps.users.get(b.user.id), other).toMatchObject({ role: "admin", banned: false });
    }
  });

  it("an admin whose role pairs an admin role with another role (a bootstrap promotion's user,admin) counts", async () => {
    for (const role of ["user,admin", "admin,editor", "support,admin"]) {
      const deps = testRegistry({ ADMIN_ROLES: "admin,support", ADMIN_ASSIGNABLE_ROLES: "user,editor" });
      const admin = aSignedInUser(deps, "admin");
      aSignedInUser(deps, role);
      await expect(setRole(deps, caller(admin.token), admin.user.id, "user")).resolves.toMatchObject({ role: "user" });
    }
  });

  it("an admin holding a longer list, or roles outside the configured ones, counts; a role that only contains the name does not", async () => {
    for (const role of ["editor,user,admin", "auditor, support ,user", "ADMIN,admin"]) {
      const deps = testRegistry({ ADMIN_ROLES: "admin,support", ADMIN_ASSIGNABLE_ROLES: "user,editor" });
      const admin = aSignedInUser(deps, "admin");
      aSignedInUser(deps, role);
      await expect(setRole(deps, caller(admin.token), admin.user.id, "user"), role).resolves.toMatchObject({ role: "user" });
    }
    for (const role of ["superadmin", "admins", "user,Admin", "support-admin"]) {
      const deps = testRegistry({ ADMIN_ROLES: "admin,support", ADMIN_ASSIGNABLE_ROLES: "user,editor" });
      const admin = aSignedInUser(deps, "admin");
      aSignedInUser(deps, role);
      await expect(setRole(deps, caller(admin.token), admin.user.id, "user"), role).rejects.toMatchObject({ code: "YOU_CANNOT_REMOVE_THE_LAST_ADMIN" });
    }
  });

  it("reads the first 100 users whose role contains an admin role's name: an admin past them is not seen, and the check refuses", async () => {
    const deps = testRegistry();
    const admin = aSignedInUser(deps, "admin");
    for (let i = 0; i < 99; i += 1) aSignedInUser(deps, "superadmin");
    const late = aSignedInUser(deps, "user,admin");
    await expect(setRole(deps, caller(admin.token), admin.user.id, "user")).rejects.toMatchObject({ code: "YOU_CANNOT_REMOVE_THE_LAST_ADMIN" });
    await setRole(deps, caller(admin.token), [...deps.users.values()].find((u) => u.role === "superadmin")!.id, "user");
    await expect(setRole(deps, caller(admin.token), admin.user.id, "user")).resolves.toMatchObject({ role: "user" });
    expect(deps.users.get(late.user.id)?.role).toBe("user,admin");
  });

  it("demoting, banning or removing another admin is allowed: the caller stays an admin", async () => {
    const deps = testRegistry();
    const admin = aSignedInUser(deps, "admin");
    const others = [aSignedInUser(deps, "admin"), aSignedInUser(deps, "admin"), aSignedInUser(deps, "admin")];
    await expect(setRole(deps, caller(admin.token), others[0]!.user.id, "user")).resolves.toMatchObject({ role: "user" });
    await expect(banUser(deps, caller(admin.token), { userId: others[1]!.user.id, expiresInSeconds: 0 })).resolves.toMatchObject({ banned: true });
    await expect(removeUser(deps, caller(admin.token), others[2]!.user.id)).resolves.toBeUndefined();
    await expect(setRole(deps, caller(admin.token), admin.user.id, "user")).rejects.toMatchObject({ code: "YOU_CANNOT_REMOVE_THE_LAST_ADMIN" });
  });
});

describe("impersonation", () => {
  it("starts a session of the configured length flagged with the admin, and stops back to the admin's session", async () => {
    const deps = testRegistry({ ADMIN_IMPERSONATION_SESSION_SECONDS: "600" });
    const admin = aSignedInUser(deps, "admin");
    const user = aSignedInUser(deps);
    const { session } = await impersonateUser(deps, caller(admin.token), user.user.id);
    expect(session).toMatchObject({ userId: user.user.id, impersonatedBy: admin.user.id, expiresAt: new Date(T0 + 600_000) });
    await expect(stopImpersonating(deps, caller(session.token), kept(""))).rejects.toMatchObject({ code: "FAILED_TO_FIND_ADMIN_SESSION" });
    // Another user's live session is not the impersonator's: refused.
    await expect(stopImpersonating(deps, caller(session.token), kept(user.token))).rejects.toMatchObject({ code: "FAILED_TO_FIND_ADMIN_SESSION" });
    await stopImpersonating(deps, caller(session.token), kept(admin.token));
    expect(deps.sessionsByToken.has(session.token)).toBe(false);
    expect(deps.sessionsByToken.has(admin.token)).toBe(true);
    await expect(stopImpersonating(deps, caller(admin.token), kept(admin.token))).rejects.toMatchObject({ code: "YOU_ARE_NOT_IMPERSONATING_ANYONE" });
  });

  it("an impersonation session ends on time (clock advanced)", async () => {
    const deps = testRegistry();
    const admin = aSignedInUser(deps, "admin");
    const user = aSignedInUser(deps);
    const { session } = await impersonateUser(deps, caller(admin.token), user.user.id);
    deps.clock.advance(3_600_000);
    await expect(stopImpersonating(deps, caller(session.token), kept(admin.token))).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });

  it("admins are impersonated only when configured", async () => {
    const refusing = testRegistry();
    const a = aSignedInUser(refusing, "admin");
    const b = aSignedInUser(refusing, "user,admin");
    await expect(impersonateUser(refusing, caller(a.token), b.user.id)).rejects.toMatchObject({ code: "YOU_CANNOT_IMPERSONATE_ADMINS" });
    const allowing = testRegistry({ ADMIN_IMPERSONATE_ADMINS: "true" });
    const c = aSignedInUser(allowing, "admin");
    const d = aSignedInUser(allowing, "admin");
    const { session } = await impersonateUser(allowing, caller(c.token), d.user.id);
    expect(session).toMatchObject({ userId: d.user.id, impersonatedBy: c.user.id });
    // Never from an impersonation session, although its user is an admin.
    const e = aSignedInUser(allowing);
    await expect(impersonateUser(allowing, caller(session.token), e.user.id)).rejects.toMatchObject({ code: "YOU_CANNOT_IMPERSONATE_WHILE_IMPERSONATING", http: 403 });
    expect([...allowing.sessionsByToken.values()].filter((s) => s.userId === e.user.id)).toHaveLength(1);
  });

  it("a ban landing between the target's read and its session is the banned-user refusal, not a server error", async () => {
    const deps = testRegistry();
    const admin = aSignedInUser(deps, "admin");
    const user = aSignedInUser(deps);
    const held = holdNext(deps.sessions, "createImpersonationSession");
    const impersonation = impersonateUser(deps, caller(admin.token), user.user.id);
    await held.reached;
    await banUser(deps, caller(aSignedInUser(deps, "admin").token), { userId: user.user.id, expiresInSeconds: 0 });
    held.release();
    await expect(impersonation).rejects.toMatchObject({ code: "YOU_CANNOT_IMPERSONATE_BANNED_USERS", http: 403 });
    expect([...deps.sessionsByToken.values()].filter((s) => s.userId === user.user.id)).toEqual([]);
    const { records } = await deps.store.list({ limit: 10, offset: 0 });
    expect(records.find((r) => r.action === "user.impersonate.start")).toMatchObject({
      outcome: "failure",
      targetId: user.user.id,
      details: { error: "YOU_CANNOT_IMPERSONATE_BANNED_USERS" },
    });
  });

  it("a session failure with no ban behind it stays a server failure", async () => {
    const deps = testRegistry();
    const admin = aSignedInUser(deps, "admin");
    const user = aSignedInUser(deps);
    deps.sessions.createImpersonationSession = async () => {
      throw new AuthError("FAILED_TO_CREATE_SESSION");
    };
    await expect(impersonateUser(deps, caller(admin.token), user.user.id)).rejects.toMatchObject({ code: "FAILED_TO_CREATE_SESSION", http: 500 });
  });
});

describe("permissions and retention", () => {
  it("admin roles hold the listed permissions, nothing unknown; other roles none", () => {
    const { config } = testRegistry();
    expect(roleHasPermissions(config, "admin", { user: ["ban", "impersonate"], session: ["revoke"] })).toBe(true);
    expect(roleHasPermissions(config, "admin", { user: ["fly"] })).toBe(false);
    expect(roleHasPermissions(config, "admin", { billing: ["read"] })).toBe(false);
    expect(roleHasPermissions(config, "user", { user: ["list"] })).toBe(false);
  });

  it("drops audit records past the retention, keeps everything with 0", async () => {
    const deps = testRegistry({ ADMIN_AUDIT_RETENTION_DAYS: "30", ADMIN_ASSIGNABLE_ROLES: "a,b" });
    const admin = aSignedInUser(deps, "admin");
    const user = aSignedInUser(deps);
    await setRole(deps, caller(admin.token), user.user.id, "a");
    deps.clock.advance(31 * 86_400_000);
    aSignedInUser(deps);
    await setRole(deps, caller(aSignedInUser(deps, "admin").token), user.user.id, "b");
    expect(await purgeExpired(deps)).toBe(1);
    expect((await deps.store.list({ limit: 10, offset: 0 })).records.map((r) => r.details.role)).toEqual(["b"]);
    const keeping = testRegistry({ ADMIN_AUDIT_RETENTION_DAYS: "0" });
    expect(await purgeExpired(keeping)).toBe(0);
  });
});
