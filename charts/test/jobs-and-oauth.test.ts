// The admin bootstrap Job, the better-auth import Job, and the oauth service with its provider credentials.
import { readFileSync } from "node:fs";
import { gatewayConfig } from "../../gateway/src/config.js";
import { oauthConfig } from "../../services/oauth/src/config.js";
import { describe, expect, it } from "vitest";
import { RELEASE } from "../render.js";
import {
  type Component,
  NAMES,
  TLS_DIR,
  render,
  renderText,
  envOf,
  componentEnv,
  decoded,
  componentOf,
  one,
  single,
  selects,
  containerOf,
  expectSchemaValid,
  policyOf,
  documentedNames,
  isMigrationHook,
  GRPC,
} from "./helpers.js";

describe("the admin bootstrap Job", () => {
  const objects = render({ adminBootstrap: { enabled: true, email: "ops@example.com", name: "Ops", passwordSecret: { name: "first-admin", key: "pw" } } });
  const job = objects.find((o) => o.kind === "Job" && componentOf(o) === "admin-bootstrap")!;

  it("runs the bootstrap command after install and upgrade, with the admin certificate and the password from its Secret", () => {
    expectSchemaValid(objects);
    expect(job.metadata.annotations).toMatchObject({ "helm.sh/hook": "post-install,post-upgrade" });
    const container = job.spec.template.spec.containers[0];
    expect(container.command).toEqual(["node", "dist/admin-bootstrap.js", "--email", "ops@example.com", "--name", "Ops"]);
    const env = envOf(container);
    expect(env.get("ADMIN_BOOTSTRAP_PASSWORD")?.valueFrom?.secretKeyRef).toEqual({ name: "first-admin", key: "pw" });
    expect(env.get("GRPC_TLS_DIR")?.value).toBe(TLS_DIR);
    const volume = job.spec.template.spec.volumes.find((v: { name: string }) => v.name === "tls");
    expect(volume.secret.secretName).toBe(`${RELEASE.name}-auth-platform-admin-tls`);
    expect(job.spec.template.spec.automountServiceAccountToken).toBe(false);
  });

  it("is admitted to identity by its NetworkPolicy, and nowhere else", () => {
    const labels = job.spec.template.metadata.labels as Record<string, string>;
    const admitted = (name: Component) =>
      policyOf(objects, name).spec.ingress[0].from.some(
        (peer: { podSelector?: { matchLabels: Record<string, string> } }) => peer.podSelector && selects(peer.podSelector.matchLabels, labels),
      );
    expect(admitted("identity")).toBe(true);
    for (const name of ["session", "notification", "admin"] as const) expect(admitted(name), name).toBe(false);
  });

  it("needs an email", () => {
    expect(() => render({ adminBootstrap: { enabled: true } })).toThrow(/adminBootstrap\.email/);
  });
});

describe("the better-auth import Job", () => {
  const values = { importBetterAuth: { enabled: true, sourceSecret: { name: "old-app-db", key: "url" }, betterAuthSecret: { name: "old-app", key: "secret" } } };
  const objects = render(values);
  const job = objects.find((o) => o.kind === "Job" && componentOf(o) === "import-better-auth")!;
  const container = job?.spec.template.spec.containers[0];

  it("is a plain Job an operator enables, not a hook, running the import from the Secrets' source and old secret", () => {
    expectSchemaValid(objects);
    expect(job.metadata.annotations?.["helm.sh/hook"]).toBeUndefined();
    expect(container.command.at(-1)).toBe("dist/import-better-auth.js");
    expect(container.args).toEqual(["--from", "$(BETTER_AUTH_DATABASE_URL)", "--batch-size", "2000"]);
    const env = envOf(container);
    expect(env.get("BETTER_AUTH_DATABASE_URL")?.valueFrom?.secretKeyRef).toEqual({ name: "old-app-db", key: "url" });
    expect(env.get("BETTER_AUTH_SECRET")?.valueFrom?.secretKeyRef).toEqual({ name: "old-app", key: "secret" });
    expect(job.spec.template.spec.automountServiceAccountToken).toBe(false);
  });

  it("has every target store's variables, as the services' own config loaders read them", () => {
    const env = envOf(container);
    for (const key of ["IDENTITY_DATABASE_URL", "SESSION_DATABASE_URL", "ORGANIZATION_DATABASE_URL", "AUTH_SECRET", "IDENTITY_TWO_FACTOR_KEYS"]) {
      expect(env.get(key)?.valueFrom?.secretKeyRef?.name, key).toBe(`${RELEASE.name}-auth-platform-secrets`);
    }
    expect(env.get("OAUTH_DATABASE_URL")).toBeUndefined();
    expect(container.envFrom).toEqual([{ configMapRef: { name: objects.find((o) => o.kind === "ConfigMap")!.metadata.name } }]);
  });

  it("a dry run passes --dry-run; off by default; refused without its Secrets", () => {
    const dry = render({ importBetterAuth: { ...values.importBetterAuth, dryRun: true } }).find((o) => o.kind === "Job" && componentOf(o) === "import-better-auth")!;
    expect(dry.spec.template.spec.containers[0].args).toContain("--dry-run");
    expect(render().filter((o) => o.kind === "Job" && componentOf(o) === "import-better-auth")).toEqual([]);
    expect(() => render({ importBetterAuth: { enabled: true, betterAuthSecret: { name: "old-app" } } })).toThrow(/importBetterAuth\.sourceSecret\.name/);
    expect(() => render({ importBetterAuth: { enabled: true, sourceSecret: { name: "old-app-db" } } })).toThrow(/importBetterAuth\.betterAuthSecret\.name/);
  });
});

describe("the oauth service and its provider credentials", () => {
  const objects = render({
    oauth: { providers: { github: { clientId: "gh-client", clientSecret: "gh-secret" }, google: { clientId: "only-an-id", clientSecret: "" } } },
    config: { oauth: { trustedProviders: ["github"], disableImplicitLinking: true } },
  });
  const env = single(objects, "ConfigMap").data as Record<string, string>;
  const secretEnv = decoded(single(objects, "Secret"));

  it("puts a provider's credentials in the Secret only when both are set, and only the oauth container reads them", () => {
    expect(secretEnv).toMatchObject({ GITHUB_CLIENT_ID: "gh-client", GITHUB_CLIENT_SECRET: "gh-secret" });
    expect(secretEnv).not.toHaveProperty("GOOGLE_CLIENT_ID");
    for (const name of NAMES.filter((n) => n !== "oauth")) {
      expect(
        [...envOf(containerOf(one(objects, "Deployment", name))).keys()].filter((key) => key.endsWith("_CLIENT_SECRET")),
        name,
      ).toEqual([]);
    }
    const config = oauthConfig(componentEnv(one(objects, "Deployment", "oauth"), env, secretEnv));
    expect(Object.keys(config.providers)).toEqual(["github"]);
    expect(config).toMatchObject({
      trustedProviders: ["github"],
      disableImplicitLinking: true,
      identityServiceUrl: env.IDENTITY_SERVICE_URL,
      databaseUrl: "postgres://auth@postgresql:5432/oauth",
      baseUrl: "https://auth.example.com/api/auth",
    });
    expect(gatewayConfig(componentEnv(one(objects, "Deployment", "gateway"), env, secretEnv)).oauthServiceUrl).toBe(env.OAUTH_SERVICE_URL);
  });

  it("refuses an unknown trusted provider", () => {
    expect(() => renderText({ config: { oauth: { trustedProviders: ["myspace"] } } })).toThrow(/trustedProviders/);
  });

  it("can be disabled: no oauth objects, no OAUTH_SERVICE_URL", () => {
    const disabled = render({ oauth: { enabled: false } });
    expect(disabled.filter((o) => componentOf(o) === "oauth")).toEqual([]);
    expect(single(disabled, "ConfigMap").data).not.toHaveProperty("OAUTH_SERVICE_URL");
  });
});

describe("generic providers (oauth.genericProviders)", () => {
  const corp = {
    id: "corp-sso",
    name: "Corp SSO",
    issuer: "https://sso.example.com",
    scopes: ["email", "groups"],
    trusted: true,
    clientId: "corp-id",
    clientSecret: "corp-secret",
  };
  const legacy = {
    id: "legacy",
    authorizationUrl: "https://legacy.example.com/authorize",
    tokenUrl: "https://legacy.example.com/token",
    userInfoUrl: "https://legacy.example.com/me",
    pkce: false,
    clientAuth: "basic",
    claims: { id: "uid", emailVerified: "mail_ok" },
    clientId: "legacy-id",
    clientSecret: "legacy-secret",
  };
  const objects = render({ oauth: { genericProviders: [corp, legacy] }, config: { oauth: { trustedProviders: ["github"] } } });
  const env = single(objects, "ConfigMap").data as Record<string, string>;
  const secretEnv = decoded(single(objects, "Secret"));

  it("configures the oauth service with each one, credentials from the Secret, trusted ones added to the trusted list", () => {
    expectSchemaValid(objects);
    expect(secretEnv).toMatchObject({
      OAUTH_GENERIC_CORP_SSO_CLIENT_ID: "corp-id",
      OAUTH_GENERIC_CORP_SSO_CLIENT_SECRET: "corp-secret",
      OAUTH_GENERIC_LEGACY_CLIENT_SECRET: "legacy-secret",
    });
    expect(Object.keys(env).filter((key) => key.endsWith("_CLIENT_SECRET") || key.endsWith("_CLIENT_ID"))).toEqual([]);
    const config = oauthConfig(componentEnv(one(objects, "Deployment", "oauth"), env, secretEnv));
    expect(config.trustedProviders).toEqual(["github", "corp-sso"]);
    expect(config.genericProviders).toEqual([
      expect.objectContaining({ id: "corp-sso", displayName: "Corp SSO", kind: "oidc", clientSecret: "corp-secret", scopes: ["openid", "email", "groups"], pkce: true }),
      expect.objectContaining({
        id: "legacy",
        displayName: "legacy",
        kind: "oauth2",
        endpoints: { AUTHORIZATION_URL: legacy.authorizationUrl, TOKEN_URL: legacy.tokenUrl, USERINFO_URL: legacy.userInfoUrl },
        pkce: false,
        clientAuth: "basic",
        claims: { id: "uid", email: "email", emailVerified: "mail_ok", name: "name", picture: "picture" },
      }),
    ]);
  });

  it("requires the credentials' keys of the oauth container only, and documents every variable it sets", () => {
    const refs = envOf(containerOf(one(objects, "Deployment", "oauth")));
    expect(refs.get("OAUTH_GENERIC_CORP_SSO_CLIENT_SECRET")?.valueFrom?.secretKeyRef).not.toHaveProperty("optional");
    for (const name of NAMES.filter((n) => n !== "oauth"))
      expect(envOf(containerOf(one(objects, "Deployment", name))).has("OAUTH_GENERIC_CORP_SSO_CLIENT_SECRET"), name).toBe(false);
    // docs/configuration.md names them with `<ID>` for the provider's part.
    const documented = documentedNames();
    const docs = readFileSync(new URL("../../docs/configuration.md", import.meta.url), "utf8");
    const generic = (name: string) => `\`${name.replace(/^OAUTH_GENERIC_(CORP_SSO|LEGACY)_/, "OAUTH_GENERIC_<ID>_")}\``;
    const undocumented = [...new Set([...Object.keys(env), ...Object.keys(secretEnv)])].filter((name) => !documented.has(name) && !docs.includes(generic(name)));
    expect(undocumented).toEqual([]);
  });

  it.each([
    ["a built-in provider's id", [{ ...corp, id: "github" }], /genericProviders/],
    ["an id that cannot name variables", [{ ...corp, id: "Corp_SSO" }], /genericProviders/],
    ["an id listed twice", [corp, corp], /listed twice/],
    ["neither an issuer nor the three endpoints", [{ ...legacy, userInfoUrl: "" }], /set issuer/],
    ["no credentials (and no existing Secret)", [{ ...corp, clientSecret: "" }], /clientId and clientSecret are required/],
  ])("refuses %s", (_case, genericProviders, message) => {
    expect(() => renderText({ oauth: { genericProviders } })).toThrow(message);
  });

  it("with an existing Secret, reads the credentials from it and requires them", () => {
    const external = render({ secret: { existingSecret: "platform-secrets" }, oauth: { genericProviders: [{ ...corp, clientId: "", clientSecret: "" }] } });
    const ref = envOf(containerOf(one(external, "Deployment", "oauth"))).get("OAUTH_GENERIC_CORP_SSO_CLIENT_ID");
    expect(ref?.valueFrom?.secretKeyRef).toEqual({ name: "platform-secrets", key: "OAUTH_GENERIC_CORP_SSO_CLIENT_ID" });
  });
});

describe("the migration Jobs", () => {
  const objects = render();
  const jobs = objects.filter((o) => o.kind === "Job" && isMigrationHook(o));

  it("check the database before they migrate it, with the same image, command and settings", () => {
    expectSchemaValid(objects);
    expect(jobs.map(componentOf).sort()).toEqual(GRPC.map((name) => `${name}-migrate`).sort());
    for (const job of jobs) {
      const pod = job.spec.template.spec;
      const [check] = pod.initContainers;
      const [migrate] = pod.containers;
      // The check runs to completion first: when it fails, nothing is migrated and the upgrade stops.
      expect(pod.initContainers).toHaveLength(1);
      expect(check.args).toEqual(["migrate", "--check"]);
      expect(migrate.args).toEqual(["migrate"]);
      expect(check.command).toEqual(migrate.command);
      expect(check.image).toBe(migrate.image);
      expect(check.env).toEqual(migrate.env);
    }
  });
});
