/** What a user copy's change means for WatchUserEvents, and when the domain publishes it. */
import type { CachedUser } from "@auth-platform/runtime/session-cache";
import { describe, expect, it } from "vitest";
import { testRegistry } from "../../test/test-registry.js";
import { forgetUser, revokeUserSessions } from "./sessions.js";
import { userChanges } from "./user-events.js";

const user = (fields: Partial<CachedUser> = {}): CachedUser => ({
  id: "u1",
  name: "Ada",
  email: "ada@example.com",
  emailVerified: true,
  image: null,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  username: null,
  displayUsername: null,
  extraFields: {},
  twoFactorEnabled: false,
  role: "user",
  banned: false,
  banReason: null,
  banExpires: null,
  ...fields,
});

describe("userChanges", () => {
  it("names a ban, an unban, a role change, a deletion, another update, and nothing for the same copy", () => {
    expect(userChanges(user(), user({ banned: true }))).toEqual(["banned"]);
    expect(userChanges(user({ banned: true }), user())).toEqual(["unbanned"]);
    expect(userChanges(user(), user({ role: "admin" }))).toEqual(["role-changed"]);
    expect(userChanges(user(), user({ role: "admin", banned: true }))).toEqual(["banned", "role-changed"]);
    expect(userChanges(user(), user({ name: "Grace" }))).toEqual(["updated"]);
    expect(userChanges(user(), null)).toEqual(["deleted"]);
    expect(userChanges(user(), user())).toEqual([]);
    expect(userChanges(null, user())).toEqual(["updated"]);
    expect(userChanges(null, user({ banned: true }))).toEqual(["banned"]);
  });
});

describe("the domain publishes user events after the change", () => {
  it("a copy kept, a ban's copy, a stale copy ignored, a deletion", async () => {
    const registry = testRegistry();
    const at = (n: number) => `2026-01-0${n}T00:00:00.000Z`;
    await forgetUser(registry, "u1", user({ updatedAt: at(2) }));
    await revokeUserSessions(registry, "u1", { user: user({ updatedAt: at(3), banned: true }) });
    // The same ban delivered again by identity's outbox, then an older copy: neither changes anything.
    await forgetUser(registry, "u1", user({ updatedAt: at(3), banned: true }));
    await forgetUser(registry, "u1", user({ updatedAt: at(1), role: "admin" }));
    await forgetUser(registry, "u1", user({ updatedAt: at(4), banned: true, role: "admin" }));
    await forgetUser(registry, "u1", undefined, { deleted: true });
    await forgetUser(registry, "u2");
    expect(registry.userEvents.published.map((e) => [e.userId, e.kind])).toEqual([
      ["u1", "updated"],
      ["u1", "banned"],
      ["u1", "role-changed"],
      ["u1", "deleted"],
      ["u2", "updated"],
    ]);
  });
});
