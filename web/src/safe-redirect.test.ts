/**
 * safeRedirect against values that look like a path but name another host once the URL parser has removed
 * dot segments ("/./", "/%2e/", "/a/../") or tabs: the result must never start with "//" (a
 * protocol-relative URL, another site wherever it is followed as a URL).
 */
import { describe, expect, it } from "vitest";
import { safeRedirect } from "./safe-redirect";

describe("safeRedirect, dot segments", () => {
  it.each(["/.//evil.example", "/%2e//evil.example", "/%2E%2E//evil.example", "/a/..//evil.example", "/a/%2e%2e//evil.example/x?y=1#z"])("refuses %j", (value) => {
    expect(safeRedirect(value)).toBe("/account");
  });

  it("still keeps a path whose dot segments stay on this origin", () => {
    expect(safeRedirect("/a/../account?tab=sessions")).toBe("/account?tab=sessions");
  });
});
