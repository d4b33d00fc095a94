import { describe, expect, it } from "vitest";
import { requireCaller } from "./caller.js";

const caller = { sessionId: "s1", userId: "u1", email: "a@example.com", emailVerified: true };

describe("requireCaller", () => {
  it("answers the caller the gateway asserted", () => {
    expect(requireCaller(caller)).toBe(caller);
  });

  it("refuses a call that acts for nobody", () => {
    for (const missing of [undefined, { ...caller, userId: "" }, { ...caller, sessionId: "" }]) {
      expect(() => requireCaller(missing)).toThrow(expect.objectContaining({ code: "UNAUTHORIZED" }));
    }
  });
});
