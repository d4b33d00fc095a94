/** The user in both wire forms for one release (user-message.ts): what a writer sets, what a reader takes. */
import { describe, expect, it } from "vitest";
import type { User } from "@auth-platform/proto/gen/auth/common/v1/user";
import { carriedUser, userFields } from "./user-message.js";

const user = (name: string): User => ({ id: "u1", name, email: "u1@example.com", emailVerified: true, banned: false, twoFactorEnabled: false });

describe("the user in both wire forms", () => {
  it("a writer sets both forms to the same user, and neither without one", () => {
    const ada = user("Ada");
    expect(userFields(ada)).toEqual({ user: ada, sessionUser: ada });
    expect(userFields(undefined)).toEqual({});
  });

  it("a reader takes `user`, and the deprecated form only when `user` is absent", () => {
    expect(carriedUser({ user: user("New"), sessionUser: user("Old") })?.name).toBe("New");
    expect(carriedUser({ sessionUser: user("Old") })?.name).toBe("Old");
    expect(carriedUser({ user: user("New") })?.name).toBe("New");
    expect(carriedUser({})).toBeUndefined();
  });
});
