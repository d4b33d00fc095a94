import { describe, expect, it } from "vitest";
import { AuthError, CODES_APART_FROM_MESSAGE, ERRORS, codeOf } from "./errors.js";

describe("error catalogue", () => {
  it("every code is its message in UPPER_SNAKE form, but the few a better-auth client names apart", () => {
    const mismatched = Object.entries(ERRORS)
      .filter(([code, entry]) => codeOf(entry.message) !== code && !CODES_APART_FROM_MESSAGE.has(code as keyof typeof ERRORS))
      .map(([code, entry]) => `${code} <- ${entry.message}`);
    expect(mismatched).toEqual([]);
  });

  it("codeOf drops apostrophes and joins words and punctuation runs with one underscore", () => {
    expect(codeOf("You can't unlink your last account")).toBe("YOU_CANT_UNLINK_YOUR_LAST_ACCOUNT");
    expect(codeOf("Session expired. Re-authenticate to perform this action.")).toBe("SESSION_EXPIRED_RE_AUTHENTICATE_TO_PERFORM_THIS_ACTION");
    expect(codeOf("username is already taken. please try another.")).toBe("USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER");
  });

  it("the last-account refusal carries the derived code", () => {
    expect(new AuthError("YOU_CANT_UNLINK_YOUR_LAST_ACCOUNT")).toMatchObject({ http: 400, message: "You can't unlink your last account" });
  });
});
