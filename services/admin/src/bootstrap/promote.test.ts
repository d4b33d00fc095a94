/** The bootstrap command's rule on identity's fake: the role must be an admin role, and is added to a user's roles. */
import { describe, expect, it } from "vitest";
import type { User } from "../domain/ports.js";
import { aSignedInUser, type TestRegistry, testRegistry } from "../../test/test-registry.js";
import { bootstrapAdmin } from "./promote.js";

/** A user whose email is stored lower-case, as identity stores it. */
function aUser(deps: TestRegistry, role: string): User {
  const { user } = aSignedInUser(deps, role);
  const stored = { ...user, email: user.email.toLowerCase() };
  deps.users.set(user.id, stored);
  return stored;
}

describe("bootstrapAdmin", () => {
  it("refuses a role that is not one of ADMIN_ROLES, before creating or changing anyone", async () => {
    const deps = testRegistry({ ADMIN_ROLES: "admin,support", ADMIN_ASSIGNABLE_ROLES: "user,editor" });
    const user = aUser(deps, "user");
    for (const role of ["editor", "user", "admin,editor", ""]) {
      await expect(bootstrapAdmin(deps.identity, { email: user.email, role }, deps.config.adminRoles)).rejects.toThrow(/is not an admin role \(ADMIN_ROLES: admin,support\)/);
      await expect(bootstrapAdmin(deps.identity, { email: "new@example.com", password: "password-123", role }, deps.config.adminRoles)).rejects.toThrow(/is not an admin role/);
    }
    expect(deps.users.get(user.id)?.role).toBe("user");
    expect(deps.users.size).toBe(1);
    await expect(bootstrapAdmin(deps.identity, { email: "new@example.com", password: "password-123", role: "support" }, deps.config.adminRoles)).resolves.toMatchObject({
      created: true,
      user: { role: "support" },
    });
  });

  it("adds the admin role to an existing user's roles, and again changes nothing", async () => {
    const deps = testRegistry();
    const user = aUser(deps, "editor, reviewer");
    await expect(bootstrapAdmin(deps.identity, { email: user.email, role: "admin" }, deps.config.adminRoles)).resolves.toMatchObject({
      created: false,
      user: { role: "editor,reviewer,admin" },
    });
    await expect(bootstrapAdmin(deps.identity, { email: user.email, role: "admin" }, deps.config.adminRoles)).resolves.toMatchObject({
      created: false,
      user: { role: "editor,reviewer,admin" },
    });
    const plain = aUser(deps, "");
    await expect(bootstrapAdmin(deps.identity, { email: plain.email, role: "admin" }, deps.config.adminRoles)).resolves.toMatchObject({ user: { role: "admin" } });
  });
});
