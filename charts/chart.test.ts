// The Helm chart: lint, render with default and overridden values, validate every object against the
// Kubernetes schemas, and check what a user depends on (security, probes, wiring, secrets).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { gatewayConfig } from "../gateway/src/config.js";
import { identityConfig } from "../services/identity/src/config.js";
import { notificationConfig } from "../services/notification/src/config.js";
import { sessionConfig } from "../services/session/src/config.js";
import { CHART_DIR, type K8sObject, RELEASE, helm, render as renderValues, renderText as renderValuesText, schemaProblem } from "./render.js";

type Component = "gateway" | "identity" | "session" | "notification";

/** Each component's default port, the variable it listens on, and the variable others reach it by. */
const COMPONENTS: Record<Component, { port: number; portEnv: string; urlEnv?: string; main: string }> = {
  gateway: { port: 3000, portEnv: "PORT", main: "dist/gateway.js" },
  identity: { port: 50051, portEnv: "IDENTITY_PORT", urlEnv: "IDENTITY_SERVICE_URL", main: "dist/identity.js" },
  session: { port: 50052, portEnv: "SESSION_PORT", urlEnv: "SESSION_SERVICE_URL", main: "dist/session.js" },
  notification: {
    port: 50056,
    portEnv: "NOTIFICATION_PORT",
    urlEnv: "NOTIFICATION_SERVICE_URL",
    main: "dist/notification.js",
  },
};
const NAMES = Object.keys(COMPONENTS) as Component[];
const GRPC = NAMES.filter((name) => name !== "gateway");

/** The one value the chart requires: the public URL of the gateway. */
const REQUIRED = { config: { baseUrl: "https://auth.example.com" }, redis: { url: "redis://redis-master:6379/0" } };

type Values = { [key: string]: unknown };
const isObject = (value: unknown): value is Values => typeof value === "object" && value !== null && !Array.isArray(value);

/** `override` over `base`, objects merged key by key (null kept: helm reads it as "remove the default"). */
function merge(base: Values, override: Values): Values {
  const out: Values = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const current = out[key];
    out[key] = isObject(current) && isObject(value) ? merge(current, value) : value;
  }
  return out;
}

/** Renders with the required values and then `values` over them. */
const render = (values: Values = {}) => renderValues(merge(REQUIRED, values));
const renderText = (values: Values = {}) => renderValuesText(merge(REQUIRED, values));

/** A copy of `value` without `keys`. */
const without = <T extends object>(value: T, keys: readonly (keyof T)[]) =>
  Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key as keyof T)));

/** The environment a pod of the chart's image sees (its Dockerfile sets NODE_ENV=production). */
const podEnv = (configMap: Record<string, string>, secret: Record<string, string>) => ({ NODE_ENV: "production", ...configMap, ...secret });

/** Every variable name docs/configuration.md lists, with `A_MIN_X` / `_MAX_X` shorthand expanded. */
function documentedNames(): Set<string> {
  const text = readFileSync(new URL("../docs/configuration.md", import.meta.url), "utf8");
  const names = new Set<string>();
  let previous = "";
  for (const [, token = ""] of text.matchAll(/`(_?[A-Z][A-Z0-9_]*)`/g)) {
    const name = token.startsWith("_") ? expandSuffix(previous, token) : token;
    names.add(name);
    previous = name;
  }
  return names;
}

function expandSuffix(previous: string, suffix: string): string {
  const tail = suffix.slice(1).split("_");
  return [...previous.split("_").slice(0, -tail.length), ...tail].join("_");
}

const ofKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);
const componentOf = (o: K8sObject) => o.metadata.labels?.["app.kubernetes.io/component"];

/** The one object of a kind for a component; fails the test when there is not exactly one. */
function one(objects: K8sObject[], kind: string, component: Component): K8sObject {
  const found = ofKind(objects, kind).filter((o) => componentOf(o) === component);
  expect(found, `${kind} of ${component}`).toHaveLength(1);
  return found[0] as K8sObject;
}

function single(objects: K8sObject[], kind: string): K8sObject {
  const found = ofKind(objects, kind);
  expect(found, kind).toHaveLength(1);
  return found[0] as K8sObject;
}

/** Whether every label of a selector is on the pod. */
const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([key, value]) => labels[key] === value);

function containerOf(deployment: K8sObject) {
  const containers = deployment.spec.template.spec.containers;
  expect(containers).toHaveLength(1);
  return containers[0];
}

function expectSchemaValid(objects: K8sObject[]) {
  expect(objects.length).toBeGreaterThan(0);
  expect(objects.map(schemaProblem).filter(Boolean)).toEqual([]);
}

describe("helm lint", () => {
  it("passes in strict mode", () => {
    expect(helm(["lint", "--strict", CHART_DIR, "--set", `config.baseUrl=${REQUIRED.config.baseUrl}`, "--set", `redis.url=${REQUIRED.redis.url}`])).toMatch(/0 chart\(s\) failed/);
  });
});

describe("with default values (and the required config.baseUrl)", () => {
  const objects = render();
  const configMap = single(objects, "ConfigMap");
  const secret = single(objects, "Secret");
  const env = configMap.data as Record<string, string>;
  const secretEnv = Object.fromEntries(
    Object.entries(secret.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, "base64").toString()]),
  );

  it("renders objects that match the Kubernetes schemas", () => {
    expectSchemaValid(objects);
    for (const o of objects) expect(o.metadata.namespace, `${o.kind} ${o.metadata.name}`).toBe(RELEASE.namespace);
  });

  it("renders a Deployment, Service, HPA and PDB per component", () => {
    for (const kind of ["Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget"]) {
      expect(ofKind(objects, kind).map(componentOf).sort(), kind).toEqual([...NAMES].sort());
    }
  });

  it.each(NAMES)("runs %s as non-root on a read-only root file system, /tmp writable", (name) => {
    const pod = one(objects, "Deployment", name).spec.template.spec;
    const container = containerOf(one(objects, "Deployment", name));
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
    expect(container.securityContext).toMatchObject({
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
    });
    expect(container.command).toEqual(["node", COMPONENTS[name].main]);
    const tmp = container.volumeMounts.find((m: { mountPath: string }) => m.mountPath === "/tmp");
    expect(pod.volumes.find((v: { name: string }) => v.name === tmp?.name)).toHaveProperty("emptyDir");
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.enableServiceLinks).toBe(false);
  });

  it.each(NAMES)("gives %s resources, listens on its configured port, and reads the ConfigMap and Secret", (name) => {
    const container = containerOf(one(objects, "Deployment", name));
    expect(container.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(container.resources.limits).toMatchObject({ memory: expect.any(String) });
    expect(container.ports).toEqual([expect.objectContaining({ containerPort: COMPONENTS[name].port })]);
    expect(env[COMPONENTS[name].portEnv]).toBe(String(COMPONENTS[name].port));
    expect(container.envFrom).toEqual([
      { configMapRef: { name: configMap.metadata.name } },
      { secretRef: { name: secret.metadata.name } },
    ]);
  });

  it("probes the gateway with HTTP GET /api/auth/ok on its port", () => {
    const container = containerOf(one(objects, "Deployment", "gateway"));
    const http = container.ports[0];
    for (const probe of ["startupProbe", "livenessProbe", "readinessProbe"]) {
      expect(container[probe], probe).toMatchObject({ httpGet: { path: "/api/auth/ok" } });
      expect([http.name, http.containerPort]).toContain(container[probe].httpGet.port);
    }
  });

  it.each(GRPC)("probes %s with the native gRPC health check on its port", (name) => {
    const container = containerOf(one(objects, "Deployment", name));
    for (const probe of ["startupProbe", "livenessProbe", "readinessProbe"]) {
      expect(container[probe], probe).toMatchObject({ grpc: { port: COMPONENTS[name].port } });
      expect(container[probe], probe).not.toHaveProperty("httpGet");
    }
  });

  it.each(NAMES)("routes the %s Service to its pods' port", (name) => {
    const service = one(objects, "Service", name);
    const deployment = one(objects, "Deployment", name);
    expect(selects(service.spec.selector, deployment.spec.template.metadata.labels)).toBe(true);
    expect(deployment.spec.selector.matchLabels).toEqual(service.spec.selector);
    const [port] = service.spec.ports;
    const containerPort = containerOf(deployment).ports.find(
      (p: { name: string; containerPort: number }) => p.name === port.targetPort || p.containerPort === port.targetPort,
    );
    expect(containerPort?.containerPort).toBe(COMPONENTS[name].port);
    expect(port.port).toBe(COMPONENTS[name].port);
  });

  it.each(GRPC)("makes the %s Service headless, so DNS answers every pod", (name) => {
    const service = one(objects, "Service", name);
    expect(service.spec.type).toBe("ClusterIP");
    expect(service.spec.clusterIP).toBe("None");
  });

  it("keeps the gateway's Service a ClusterIP Service with a virtual IP", () => {
    expect(one(objects, "Service", "gateway").spec).not.toHaveProperty("clusterIP");
  });

  it.each(GRPC)("points the %s address at its Service's DNS name and port, as a dns:/// target", (name) => {
    const service = one(objects, "Service", name);
    const urlEnv = COMPONENTS[name].urlEnv as string;
    expect(service.spec.ports[0].port).toBe(COMPONENTS[name].port);
    expect(env[urlEnv]).toBe(`dns:///${service.metadata.name}.${RELEASE.namespace}.svc.cluster.local:${COMPONENTS[name].port}`);
  });

  it("sets the documented shared configuration", () => {
    expect(env).toMatchObject({
      LOG_LEVEL: "info",
      AUTH_BASE_PATH: "/api/auth",
      RATE_LIMIT_ENABLED: "true",
      RATE_LIMIT_WINDOW: "10",
      RATE_LIMIT_MAX: "100",
    });
    // Unset values are left out, so the processes keep their documented defaults.
    expect(env).not.toHaveProperty("RATE_LIMIT_RULES");
    expect(env).not.toHaveProperty("AUTH_APP_URL");
    expect(env).not.toHaveProperty("MAIL_FROM");
  });

  it("sets AUTH_BASE_URL to the public URL followed by the base path", () => {
    expect(env.AUTH_BASE_URL).toBe("https://auth.example.com/api/auth");
    expect(identityConfig(podEnv(env, secretEnv)).baseUrl).toBe("https://auth.example.com/api/auth");
  });

  it("sets the identity lifecycle settings and the mail settings, with the code's defaults", () => {
    expect(env).toMatchObject({
      SESSION_FRESH_AGE: "86400",
      IDENTITY_EMAIL_VERIFICATION_ENABLED: "true",
      IDENTITY_SEND_VERIFICATION_ON_SIGN_UP: "true",
      IDENTITY_REQUIRE_EMAIL_VERIFICATION: "false",
      IDENTITY_AUTO_SIGN_IN_AFTER_VERIFICATION: "false",
      IDENTITY_VERIFICATION_TOKEN_EXPIRES_IN: "3600",
      IDENTITY_RESET_PASSWORD_ENABLED: "true",
      IDENTITY_RESET_PASSWORD_TOKEN_EXPIRES_IN: "3600",
      IDENTITY_REVOKE_SESSIONS_ON_PASSWORD_RESET: "false",
      IDENTITY_CHANGE_EMAIL_ENABLED: "true",
      IDENTITY_DELETE_USER_ENABLED: "true",
      IDENTITY_DELETE_USER_VERIFICATION: "true",
      APP_NAME: "Auth Platform",
    });
    // Apart from addresses and secrets, every rendered value is what the process would pick by itself.
    const environment = podEnv(env, secretEnv);
    const identityWiring = ["baseUrl", "databaseUrl", "sessionServiceUrl", "notificationServiceUrl", "secret"] as const;
    expect(without(identityConfig(environment), identityWiring)).toEqual(without(identityConfig({}), identityWiring));
    const notificationWiring = ["databaseUrl", "footerUrl", "production"] as const;
    expect(without(notificationConfig(environment), notificationWiring)).toEqual(without(notificationConfig({}), notificationWiring));
    expect(notificationConfig(environment)).toMatchObject({ production: true, footerUrl: "https://auth.example.com" });
  });

  it("renders a configuration every process accepts", () => {
    const environment = podEnv(env, secretEnv);
    const gateway = gatewayConfig(environment);
    expect(gateway).toMatchObject({ baseUrl: "https://auth.example.com/api/auth", devMailbox: false, secretIsDefault: false });
    expect(gateway.notificationServiceUrl).toBe(env.NOTIFICATION_SERVICE_URL);
    expect(identityConfig(environment).notificationServiceUrl).toBe(env.NOTIFICATION_SERVICE_URL);
    expect(sessionConfig(environment).identityServiceUrl).toBe(env.IDENTITY_SERVICE_URL);
    expect(notificationConfig(environment).smtpUrl).toBeUndefined();
  });

  it("uses only variable names from docs/configuration.md", () => {
    const documented = documentedNames();
    const unknown = [...Object.keys(env), ...Object.keys(secretEnv)].filter((name) => !documented.has(name));
    expect(unknown).toEqual([]);
  });

  it("holds a generated AUTH_SECRET and a PostgreSQL URL per service", () => {
    expect(secretEnv.AUTH_SECRET?.length).toBeGreaterThanOrEqual(32);
    for (const name of GRPC) {
      expect(secretEnv[`${name.toUpperCase()}_DATABASE_URL`]).toBe(`postgres://auth@postgresql:5432/${name}`);
    }
    expect(secretEnv.REDIS_URL).toBe(REQUIRED.redis.url);
    expect(secretEnv).not.toHaveProperty("SMTP_URL");
  });

  it.each(NAMES)("scales %s with an HPA and protects it with a PDB", (name) => {
    const deployment = one(objects, "Deployment", name);
    const hpa = one(objects, "HorizontalPodAutoscaler", name);
    const pdb = one(objects, "PodDisruptionBudget", name);
    expect(hpa.apiVersion).toBe("autoscaling/v2");
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: "apps/v1", kind: "Deployment", name: deployment.metadata.name });
    // The HPA owns the replica count; a fixed one in the Deployment would fight it on every upgrade.
    expect(deployment.spec).not.toHaveProperty("replicas");
    expect(pdb.apiVersion).toBe("policy/v1");
    expect(selects(pdb.spec.selector.matchLabels, deployment.spec.template.metadata.labels)).toBe(true);
  });

  it("ships a helm test pod that calls the gateway's /api/auth/ok through its Service", () => {
    const pod = single(objects, "Pod");
    const gateway = one(objects, "Service", "gateway");
    expect(pod.metadata.annotations?.["helm.sh/hook"]).toBe("test");
    expect(pod.spec.containers[0].command).toContain(`http://${gateway.metadata.name}:3000/api/auth/ok`);
    expect(pod.spec.securityContext).toMatchObject({ runAsNonRoot: true });
  });
});

describe("with autoscaling and PDBs disabled, an existing secret and custom configuration", () => {
  const sentinels = {
    authSecret: "sentinel-auth-secret-0123456789abcdefghijkl",
    redis: "redis://:sentinel-redis-password@redis:6379",
    password: "sentinel-pg-password",
    smtp: "smtps://user:sentinel-smtp-password@smtp.example.com:465",
  };
  const components = Object.fromEntries(
    NAMES.map((name) => [name, { replicaCount: 3, autoscaling: { enabled: false }, pdb: { enabled: false } }]),
  );
  const values = {
    ...components,
    secret: { existingSecret: "auth-env", authSecret: sentinels.authSecret },
    redis: { url: sentinels.redis },
    smtp: { url: sentinels.smtp },
    postgresql: { password: sentinels.password },
    config: {
      basePath: "/auth",
      baseUrl: "https://auth.example.com/",
      appUrl: "https://app.example.com",
      trustedOrigins: ["https://app.example.com", "https://admin.example.com"],
      rateLimit: { rules: { "/sign-in": { window: 60, max: 5 } } },
      identity: {
        emailVerification: { required: true, autoSignInAfterVerification: true, tokenExpiresIn: 7200 },
        resetPassword: { enabled: false, revokeSessions: true },
        changeEmail: { enabled: false },
        deleteUser: { verification: false },
      },
      session: { expiresIn: 2592000, freshAge: 0 },
      notification: { appName: "Acme, Inc.", mailFrom: "Acme <no-reply@acme.example>", maxAttempts: 5, retryMaxMs: 600000 },
    },
    clusterDomain: "k8s.example.internal",
  };
  const text = renderText(values);
  const objects = render(values);
  const env = single(objects, "ConfigMap").data as Record<string, string>;

  it("renders objects that match the Kubernetes schemas", () => {
    expectSchemaValid(objects);
  });

  it("renders no HPA and no PDB, and fixes the replica count", () => {
    expect(ofKind(objects, "HorizontalPodAutoscaler")).toEqual([]);
    expect(ofKind(objects, "PodDisruptionBudget")).toEqual([]);
    for (const name of NAMES) expect(one(objects, "Deployment", name).spec.replicas).toBe(3);
  });

  it("creates no Secret and reads the existing one", () => {
    expect(ofKind(objects, "Secret")).toEqual([]);
    for (const name of NAMES) {
      expect(containerOf(one(objects, "Deployment", name)).envFrom).toContainEqual({ secretRef: { name: "auth-env" } });
    }
  });

  it("writes no secret value anywhere", () => {
    for (const value of Object.values(sentinels)) expect(text).not.toContain(value);
    expect(text).not.toContain(Buffer.from(sentinels.authSecret).toString("base64"));
  });

  it("passes the configuration through, numbers as integers", () => {
    expect(env).toMatchObject({
      AUTH_BASE_PATH: "/auth",
      AUTH_BASE_URL: "https://auth.example.com/auth",
      AUTH_APP_URL: "https://app.example.com",
      AUTH_TRUSTED_ORIGINS: "https://app.example.com,https://admin.example.com",
      SESSION_EXPIRES_IN: "2592000",
      SESSION_FRESH_AGE: "0",
      APP_NAME: "Acme, Inc.",
      MAIL_FROM: "Acme <no-reply@acme.example>",
      NOTIFICATION_MAX_ATTEMPTS: "5",
      NOTIFICATION_RETRY_MAX_MS: "600000",
    });
    expect(JSON.parse(env.RATE_LIMIT_RULES ?? "")).toEqual({ "/sign-in": { window: 60, max: 5 } });
  });

  it("gives identity and notification the configured lifecycle and mail settings", () => {
    const environment = podEnv(env, { AUTH_SECRET: sentinels.authSecret });
    expect(identityConfig(environment)).toMatchObject({
      baseUrl: "https://auth.example.com/auth",
      freshAgeSeconds: 0,
      emailVerification: { enabled: true, sendOnSignUp: true, required: true, autoSignIn: true, expiresInSeconds: 7200 },
      resetPassword: { enabled: false, expiresInSeconds: 3600, revokeSessions: true },
      changeEmailEnabled: false,
      deleteUser: { enabled: true, verification: false },
    });
    expect(notificationConfig(environment)).toMatchObject({
      appName: "Acme, Inc.",
      mailFrom: "Acme <no-reply@acme.example>",
      mailDomain: "acme.example",
      footerUrl: "https://app.example.com",
      maxAttempts: 5,
      retryMaxMs: 600000,
    });
    expect(gatewayConfig(environment)).toMatchObject({ appUrl: "https://app.example.com", baseUrl: "https://auth.example.com/auth" });
  });

  it("addresses the gRPC Services in the configured cluster domain", () => {
    for (const name of GRPC) {
      const service = one(objects, "Service", name);
      expect(env[COMPONENTS[name].urlEnv as string]).toBe(`dns:///${service.metadata.name}.${RELEASE.namespace}.svc.k8s.example.internal:${COMPONENTS[name].port}`);
    }
  });

  it("probes the gateway under the configured base path", () => {
    const container = containerOf(one(objects, "Deployment", "gateway"));
    expect(container.livenessProbe.httpGet.path).toBe("/auth/ok");
    expect(container.readinessProbe.httpGet.path).toBe("/auth/ok");
  });
});

describe("with the notification service disabled", () => {
  const objects = render({ notification: { enabled: false } });

  it("renders nothing for it and leaves its variables unset", () => {
    expectSchemaValid(objects);
    expect(objects.filter((o) => componentOf(o) === "notification")).toEqual([]);
    const env = single(objects, "ConfigMap").data as Record<string, string>;
    for (const name of ["NOTIFICATION_SERVICE_URL", "NOTIFICATION_PORT", "APP_NAME", "NOTIFICATION_MAX_ATTEMPTS"]) expect(env).not.toHaveProperty(name);
    expect(single(objects, "Secret").data).not.toHaveProperty("NOTIFICATION_DATABASE_URL");
  });
});

describe("with SMTP configured and a gRPC Service not headless", () => {
  const objects = render({ smtp: { url: "smtps://mailer:smtp-password@smtp.example.com:465" }, session: { service: { headless: false } } });
  const env = single(objects, "ConfigMap").data as Record<string, string>;
  const secret = single(objects, "Secret").data as Record<string, string>;

  it("keeps SMTP_URL in the Secret only", () => {
    expectSchemaValid(objects);
    expect(Buffer.from(secret.SMTP_URL ?? "", "base64").toString()).toBe("smtps://mailer:smtp-password@smtp.example.com:465");
    expect(env).not.toHaveProperty("SMTP_URL");
    expect(JSON.stringify(env)).not.toContain("smtp-password");
  });

  it("renders the Service with a virtual IP and still addresses it by DNS", () => {
    const service = one(objects, "Service", "session");
    expect(service.spec).not.toHaveProperty("clusterIP");
    expect(env.SESSION_SERVICE_URL).toBe(`dns:///${service.metadata.name}.${RELEASE.namespace}.svc.cluster.local:50052`);
    expect(one(objects, "Service", "identity").spec.clusterIP).toBe("None");
  });
});

describe("with database URLs given in full or built from parts", () => {
  it("percent-encodes the PostgreSQL user and password and keeps a full URL as given", () => {
    const objects = render({
      postgresql: { username: "auth user", password: "p@ss:w/rd+x", params: "sslmode=require" },
      session: { database: { url: "postgres://session:pw@sessions-db:5432/sessions" } },
    });
    const data = single(objects, "Secret").data as Record<string, string>;
    const decode = (key: string) => Buffer.from(data[key] ?? "", "base64").toString();
    expect(decode("IDENTITY_DATABASE_URL")).toBe("postgres://auth%20user:p%40ss%3Aw%2Frd%2Bx@postgresql:5432/identity?sslmode=require");
    expect(new URL(decode("IDENTITY_DATABASE_URL")).password).toBe("p%40ss%3Aw%2Frd%2Bx");
    expect(decodeURIComponent(new URL(decode("IDENTITY_DATABASE_URL")).password)).toBe("p@ss:w/rd+x");
    expect(decode("SESSION_DATABASE_URL")).toBe("postgres://session:pw@sessions-db:5432/sessions");
  });
});

describe("invalid values", () => {
  it.each([
    ["a short AUTH_SECRET", { secret: { authSecret: "too-short" } }, /authSecret/],
    ["an unknown key", { config: { baseURL: "https://auth.example.com" } }, /baseURL/],
    ["a PDB with neither bound", { gateway: { pdb: { maxUnavailable: null } } }, /gateway\.pdb/],
    ["an HPA without a target", { identity: { autoscaling: { targetCPUUtilizationPercentage: null } } }, /identity\.autoscaling/],
    ["a non-PostgreSQL database URL", { identity: { database: { url: "file:data/identity.db" } } }, /identity\.database\.url/],
    ["a base URL with the base path already in it", { config: { baseUrl: "https://auth.example.com/api/auth" } }, /config\.baseUrl \(https:\/\/auth\.example\.com\/api\/auth\) must not end with config\.basePath/],
    ["a base URL that is not http(s)", { config: { baseUrl: "auth.example.com" } }, /config\.baseUrl/],
    ["a headless Service of type LoadBalancer", { identity: { service: { type: "LoadBalancer" } } }, /identity\.service\.headless needs service\.type ClusterIP/],
    ["a MAIL_FROM without an address", { config: { notification: { mailFrom: "Acme" } } }, /mailFrom/],
  ])("refuses %s", (_, values, message) => {
    expect(() => renderText(values)).toThrow(message);
  });

  it("refuses to render without config.baseUrl, saying what it is for", () => {
    expect(() => renderValuesText({ redis: REQUIRED.redis })).toThrow(
      /config\.baseUrl is required: the public URL of the gateway without the base path, e\.g\. --set config\.baseUrl=https:\/\/auth\.example\.com\. Identity builds the links in verification, password-reset and delete-account mails from it/,
    );
    expect(() => renderValuesText({ config: { baseUrl: "" }, redis: REQUIRED.redis })).toThrow(/config\.baseUrl is required/);
  });

  it("refuses several session replicas without Redis (a revoked session would stay valid on the others)", () => {
    const withoutRedis = { config: REQUIRED.config };
    expect(() => renderValuesText(withoutRedis)).toThrow(/redis\.url is required when the session service runs more than one replica/);
    expect(() => renderValuesText(merge(withoutRedis, { session: { autoscaling: { enabled: false }, replicaCount: 2 } }))).toThrow(/redis\.url is required/);
    // One replica, or Redis from an existing Secret, renders.
    expect(() => renderValuesText(merge(withoutRedis, { session: { autoscaling: { enabled: false }, replicaCount: 1 } }))).not.toThrow();
    expect(() => renderValuesText(merge(withoutRedis, { secret: { existingSecret: "auth-secrets" } }))).not.toThrow();
  });
});
