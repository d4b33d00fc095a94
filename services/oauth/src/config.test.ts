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
});
