import { describe, expect, it } from "vitest";
import type { GenericProviderSettings } from "../config.js";
import { genericDefinition, mapClaims } from "./generic.js";
import type { Json, ProviderHttp } from "./http.js";

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

describe("a generic provider's profile", () => {
  const settings = (kind: "oidc" | "oauth2"): GenericProviderSettings => ({
    id: "corp",
    displayName: "Corp",
    kind,
    clientId: "id",
    clientSecret: "secret",
    scopes: [],
    endpoints: kind === "oidc" ? { ISSUER: "https://idp.example" } : {},
    pkce: true,
    clientAuth: "post",
    claims,
  });
  /** A provider HTTP whose user-info endpoint answers `info`, counting the reads. */
  const userInfo = (info: Json) => {
    const reads: string[] = [];
    const http = {
      getJson: async (url: string) => {
        reads.push(url);
        return info;
      },
    } as unknown as ProviderHttp;
    return { http, reads };
  };
  const endpoints = { authorization: "https://idp.example/a", token: "https://idp.example/t", userInfo: "https://idp.example/me" };

  it("OpenID Connect: the id token's claims when they name the user and the address, without asking user info", async () => {
    const { http, reads } = userInfo({});
    const { profile } = await genericDefinition(settings("oidc")).profile({
      accessToken: "at",
      claims: { sub: "s1", email: "a@example.com", email_verified: true },
      http,
      endpoints,
    });
    expect(profile).toMatchObject({ accountId: "s1", email: "a@example.com", emailVerified: true });
    expect(reads).toEqual([]);
  });

  it("OpenID Connect: user info fills what the id token lacks, only about the id token's subject", async () => {
    const same = userInfo({ sub: "s1", email: "a@example.com", email_verified: "true", name: "Ada" });
    expect((await genericDefinition(settings("oidc")).profile({ accessToken: "at", claims: { sub: "s1" }, http: same.http, endpoints })).profile).toMatchObject({
      accountId: "s1",
      email: "a@example.com",
      emailVerified: true,
      name: "Ada",
    });
    const other = userInfo({ sub: "someone-else", email: "b@example.com", email_verified: true });
    expect((await genericDefinition(settings("oidc")).profile({ accessToken: "at", claims: { sub: "s1" }, http: other.http, endpoints })).profile).toBeNull();
  });

  it("plain OAuth 2: the profile from user info", async () => {
    const { http, reads } = userInfo({ id: 7, email: "c@example.com" });
    const { profile } = await genericDefinition(settings("oauth2")).profile({ accessToken: "at", claims: null, http, endpoints });
    expect(profile).toMatchObject({ accountId: "7", email: "c@example.com", emailVerified: false });
    expect(reads).toEqual(["https://idp.example/me"]);
  });
});
