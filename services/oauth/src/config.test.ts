import { describe, expect, it } from "vitest";
import { ConfigError } from "@auth-platform/runtime/config";
import { oauthConfig } from "./config.js";

describe("oauth configuration", () => {
  it("offers a provider only when both its client id and secret are set", () => {
    const config = oauthConfig({ GITHUB_CLIENT_ID: "id", GITHUB_CLIENT_SECRET: "secret", GOOGLE_CLIENT_ID: "only-id", REDDIT_CLIENT_SECRET: " " });
    expect(Object.keys(config.providers)).toEqual(["github"]);
    expect(config.providers.github).toEqual({ clientId: "id", clientSecret: "secret", scopes: [], endpoints: {} });
  });

  it("reads extra scopes and endpoint overrides, and refuses an override that is not a URL", () => {
    const config = oauthConfig({ GITLAB_CLIENT_ID: "i", GITLAB_CLIENT_SECRET: "s", GITLAB_SCOPES: "api, read_repository", GITLAB_TOKEN_URL: "https://git.example/oauth/token" });
    expect(config.providers.gitlab).toMatchObject({ scopes: ["api", "read_repository"], endpoints: { TOKEN_URL: "https://git.example/oauth/token" } });
    expect(() => oauthConfig({ GITLAB_CLIENT_ID: "i", GITLAB_CLIENT_SECRET: "s", GITLAB_TOKEN_URL: "not a url" })).toThrow(ConfigError);
  });

  it("has the documented defaults", () => {
    expect(oauthConfig({})).toMatchObject({
      port: 50053,
      databaseUrl: "file:data/oauth.db",
      identityServiceUrl: "127.0.0.1:50051",
      baseUrl: "http://localhost:3000/api/auth",
      trustedProviders: [],
      disableImplicitLinking: false,
      providers: {},
    });
    expect(oauthConfig({ AUTH_BASE_URL: "https://auth.example.com/api/auth/", OAUTH_TRUSTED_PROVIDERS: "github, gitlab", OAUTH_DISABLE_IMPLICIT_LINKING: "true" })).toMatchObject({
      baseUrl: "https://auth.example.com/api/auth",
      trustedProviders: ["github", "gitlab"],
      disableImplicitLinking: true,
    });
  });

  describe("generic providers (OAUTH_GENERIC_PROVIDERS)", () => {
    const oidc = { OAUTH_GENERIC_PROVIDERS: "corp-sso", OAUTH_GENERIC_CORP_SSO_CLIENT_ID: "id", OAUTH_GENERIC_CORP_SSO_CLIENT_SECRET: "secret" };

    it("reads an OpenID Connect provider by its issuer: openid always asked for, PKCE on, the OpenID claims", () => {
      const [provider] = oauthConfig({ ...oidc, OAUTH_GENERIC_CORP_SSO_ISSUER: "https://idp.example", OAUTH_GENERIC_CORP_SSO_NAME: "Corp SSO" }).genericProviders;
      expect(provider).toEqual({
        id: "corp-sso",
        displayName: "Corp SSO",
        kind: "oidc",
        clientId: "id",
        clientSecret: "secret",
        scopes: ["openid", "email", "profile"],
        endpoints: { ISSUER: "https://idp.example" },
        pkce: true,
        clientAuth: "post",
        claims: { id: "sub", email: "email", emailVerified: "email_verified", name: "name", picture: "picture" },
      });
      expect(oauthConfig({ ...oidc, OAUTH_GENERIC_CORP_SSO_ISSUER: "https://idp.example", OAUTH_GENERIC_CORP_SSO_SCOPES: "email, groups" }).genericProviders[0]).toMatchObject({
        displayName: "corp-sso",
        scopes: ["openid", "email", "groups"],
      });
    });

    it("reads a plain OAuth 2 provider: all three endpoints, its scopes as given, the claim mapping, PKCE and client auth", () => {
      const [provider] = oauthConfig({
        ...oidc,
        OAUTH_GENERIC_CORP_SSO_AUTHORIZATION_URL: "https://idp.example/authorize",
        OAUTH_GENERIC_CORP_SSO_TOKEN_URL: "https://idp.example/token",
        OAUTH_GENERIC_CORP_SSO_USERINFO_URL: "https://idp.example/user",
        OAUTH_GENERIC_CORP_SSO_SCOPES: "read:user",
        OAUTH_GENERIC_CORP_SSO_PKCE: "false",
        OAUTH_GENERIC_CORP_SSO_CLIENT_AUTH: "basic",
        OAUTH_GENERIC_CORP_SSO_CLAIM_ID: "id",
        OAUTH_GENERIC_CORP_SSO_CLAIM_EMAIL: "data.mail",
        OAUTH_GENERIC_CORP_SSO_CLAIM_EMAIL_VERIFIED: "verified",
      }).genericProviders;
      expect(provider).toMatchObject({
        kind: "oauth2",
        scopes: ["read:user"],
        pkce: false,
        clientAuth: "basic",
        claims: { id: "id", email: "data.mail", emailVerified: "verified", name: "name", picture: "picture" },
      });
    });

    it.each([
      ["no client secret", { ...oidc, OAUTH_GENERIC_CORP_SSO_CLIENT_SECRET: "", OAUTH_GENERIC_CORP_SSO_ISSUER: "https://idp.example" }, /OAUTH_GENERIC_CORP_SSO_CLIENT_SECRET/],
      ["neither an issuer nor the three endpoints", { ...oidc, OAUTH_GENERIC_CORP_SSO_TOKEN_URL: "https://idp.example/token" }, /OAUTH_GENERIC_CORP_SSO_AUTHORIZATION_URL/],
      ["an issuer that is not a URL", { ...oidc, OAUTH_GENERIC_CORP_SSO_ISSUER: "idp.example" }, /OAUTH_GENERIC_CORP_SSO_ISSUER/],
      ["an endpoint over plain HTTP to another machine", { ...oidc, OAUTH_GENERIC_CORP_SSO_ISSUER: "http://idp.example" }, /OAUTH_GENERIC_CORP_SSO_ISSUER: must be an https: URL/],
      [
        "an endpoint that is no web URL",
        { ...oidc, OAUTH_GENERIC_CORP_SSO_ISSUER: "https://idp.example", OAUTH_GENERIC_CORP_SSO_JWKS_URL: "file:///etc/keys" },
        /JWKS_URL: must be an https: URL/,
      ],
      ["a built-in provider's id", { OAUTH_GENERIC_PROVIDERS: "github" }, /built-in/],
      ["the password account's id", { OAUTH_GENERIC_PROVIDERS: "credential" }, /built-in/],
      ["an id that cannot name variables", { OAUTH_GENERIC_PROVIDERS: "Corp_SSO" }, /not a provider id/],
      ["an id listed twice", { ...oidc, OAUTH_GENERIC_PROVIDERS: "corp-sso,corp-sso" }, /twice/],
    ])("refuses %s, naming the variable", (_case, source, message) => {
      expect(() => oauthConfig(source)).toThrow(ConfigError);
      expect(() => oauthConfig(source)).toThrow(message);
    });
  });
});
