import { describe, expect, it } from "vitest";
import { mapClaims } from "./generic.js";

const claims = { id: "sub", email: "email", emailVerified: "email_verified", name: "name", picture: "picture" };

describe("a generic provider's claim mapping", () => {
  it("maps the OpenID claims, a missing sub falling back to a plain OAuth 2 id", () => {
    expect(mapClaims({ sub: "s1", email: "a@example.com", email_verified: true, name: "Ada", picture: "https://img.example/a.png" }, claims)).toEqual({
      accountId: "s1",
      email: "a@example.com",
      emailVerified: true,
      name: "Ada",
      image: "https://img.example/a.png",
    });
    expect(mapClaims({ id: 42, email: "a@example.com" }, claims)).toMatchObject({ accountId: "42", emailVerified: false, name: "", image: null });
    expect(mapClaims({ email: "a@example.com" }, claims)).toBeNull();
  });

  it('vouches for the address only on a true (or "true") claim', () => {
    for (const [value, vouched] of [
      [true, true],
      ["true", true],
      [false, false],
      ["false", false],
      [1, false],
      ["yes", false],
      [undefined, false],
    ] as const) {
      expect(mapClaims({ sub: "s", email: "a@example.com", email_verified: value }, claims)?.emailVerified, String(value)).toBe(vouched);
    }
  });

  it("reads configured claims, dotted names into nested objects", () => {
    const mapping = { id: "user.uid", email: "user.mail", emailVerified: "user.mail_ok", name: "display", picture: "avatar.url" };
    expect(mapClaims({ user: { uid: "u7", mail: "b@example.com", mail_ok: "true" }, display: "Bob", avatar: { url: "https://img.example/b.png" } }, mapping)).toEqual({
      accountId: "u7",
      email: "b@example.com",
      emailVerified: true,
      name: "Bob",
      image: "https://img.example/b.png",
    });
    // A configured id claim does not fall back to another one.
    expect(mapClaims({ sub: "s", id: "i" }, { ...claims, id: "uid" })).toBeNull();
  });
});
