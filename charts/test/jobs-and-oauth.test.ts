// The admin bootstrap Job, and the oauth service with its provider credentials.
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
