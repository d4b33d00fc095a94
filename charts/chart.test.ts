// The Helm chart: lint, render with default and overridden values, validate every object against the
// Kubernetes schemas, and check what a user depends on (security, probes, wiring, secrets).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { NODE_FLAGS, PROCESS_ENV } from "../deploy/processes.js";
import { gatewayConfig } from "../gateway/src/config.js";
import { identityConfig } from "../services/identity/src/config.js";
import { notificationConfig } from "../services/notification/src/config.js";
import { organizationConfig } from "../services/organization/src/config.js";
import { oauthConfig } from "../services/oauth/src/config.js";
import { sessionConfig } from "../services/session/src/config.js";
import { runtimeConfigFromEnv } from "../web/server/runtime-config.js";
import { CHART_DIR, type K8sObject, RELEASE, chartWith, helm, parseObjects, render as renderValues, renderText as renderValuesText, schemaProblem } from "./render.js";

type Component = "gateway" | "identity" | "session" | "notification" | "oauth" | "organization" | "admin";

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
  oauth: { port: 50053, portEnv: "OAUTH_PORT", urlEnv: "OAUTH_SERVICE_URL", main: "dist/oauth.js" },
  organization: { port: 50054, portEnv: "ORGANIZATION_PORT", urlEnv: "ORGANIZATION_SERVICE_URL", main: "dist/organization.js" },
  admin: { port: 50055, portEnv: "ADMIN_PORT", urlEnv: "ADMIN_SERVICE_URL", main: "dist/admin.js" },
};
const NAMES = Object.keys(COMPONENTS) as Component[];
/** The platform's processes plus the web app, which every default install deploys too (an HTTP server, no mTLS). */
const WITH_WEB: (Component | "web")[] = [...NAMES, "web"];
const GRPC = NAMES.filter((name) => name !== "gateway");

/**
 * The values the chart requires: the public URL of the gateway, Redis (several session replicas) and the
 * cert-manager issuer of the mTLS certificates.
 */
const ISSUER = { name: "platform-ca", kind: "ClusterIssuer", group: "cert-manager.io" };
const REQUIRED = {
  config: { baseUrl: "https://auth.example.com" },
  redis: { url: "redis://redis-master:6379/0" },
  tls: { certManager: { issuerRef: ISSUER } },
};
/** GRPC_HEALTH_PORT by default, and where the certificates are mounted (GRPC_TLS_DIR). */
const HEALTH_PORT = 8081;
const TLS_DIR = "/etc/auth-platform/tls";
/** METRICS_PORT by default, and the NetworkPolicy rule admitting scrapes of it (from any source by default). */
const METRICS_PORT = 9464;
const METRICS_RULE = { ports: [{ port: "metrics", protocol: "TCP" }] };
/** Who calls whom (the call graph of docs/adr/0021-call-graph-deadlines-and-errors.md): the callers each service's NetworkPolicy admits. */
const CALLERS: Record<Component, Component[]> = {
  gateway: [],
  identity: ["gateway", "organization", "admin", "oauth"],
  session: ["gateway", "identity", "organization", "admin"],
  notification: ["gateway", "identity", "organization"],
  organization: ["gateway", "identity"],
  admin: ["gateway"],
  oauth: ["gateway"],
};
/** The secret keys each process reads, with whether the key may be missing. */
const SECRET_KEYS: Record<Component, Record<string, boolean>> = {
  gateway: { AUTH_SECRET: false, REDIS_URL: true, REDIS_USERNAME: true, REDIS_PASSWORD: true },
  identity: { AUTH_SECRET: false, IDENTITY_DATABASE_URL: false, IDENTITY_TWO_FACTOR_KEYS: true },
  session: { AUTH_SECRET: false, SESSION_DATABASE_URL: false, REDIS_URL: true, REDIS_USERNAME: true, REDIS_PASSWORD: true },
  notification: { NOTIFICATION_DATABASE_URL: false, SMTP_URL: true },
  organization: { ORGANIZATION_DATABASE_URL: false },
  admin: { ADMIN_DATABASE_URL: false },
  oauth: {
    OAUTH_DATABASE_URL: false,
    ...Object.fromEntries(
      ["apple", "discord", "facebook", "github", "microsoft", "google", "spotify", "twitch", "twitter", "dropbox", "linkedin", "gitlab", "reddit"].flatMap((p) => [
        [`${p.toUpperCase()}_CLIENT_ID`, true],
        [`${p.toUpperCase()}_CLIENT_SECRET`, true],
      ]),
    ),
  },
};

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
const without = <T extends object>(value: T, keys: readonly (keyof T)[]) => Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key as keyof T)));

/** The environment a pod of the chart's image sees (its Dockerfile sets NODE_ENV=production). */
const podEnv = (configMap: Record<string, string>, secret: Record<string, string>) => ({
  NODE_ENV: "production",
  GRPC_TLS_DIR: "/etc/auth-platform/tls",
  ...configMap,
  ...secret,
});

type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } };

/** A container's own env, values and Secret references as given. */
const envOf = (container: { env?: EnvVar[] }) => new Map((container.env ?? []).map((e) => [e.name, e]));

/**
 * The environment one component's process sees: the image's NODE_ENV, the ConfigMap, and its container's
 * env with secretKeyRefs resolved from `secret` (a missing optional key is left out, as the kubelet does).
 */
function componentEnv(deployment: K8sObject, configMap: Record<string, string>, secret: Record<string, string>) {
  const out: Record<string, string> = { NODE_ENV: "production", ...configMap };
  for (const e of containerOf(deployment).env ?? ([] as EnvVar[])) {
    const ref = e.valueFrom?.secretKeyRef;
    if (ref) {
      const value = secret[ref.key];
      if (value === undefined && !ref.optional) throw new Error(`${e.name}: key ${ref.key} missing from the Secret`);
      if (value !== undefined) out[e.name] = value;
    } else if (e.value !== undefined) out[e.name] = e.value;
  }
  return out;
}

/** Decoded data of a Secret object. */
const decoded = (secret: K8sObject) => Object.fromEntries(Object.entries((secret.data ?? {}) as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, "base64").toString()]));

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

/** Hooks that run before install and upgrade (the migration Jobs and their Secret). */
const isMigrationHook = (o: K8sObject) => (o.metadata.annotations?.["helm.sh/hook"] ?? "").includes("pre-install");
const isMetricsService = (o: K8sObject) => o.metadata.labels?.["auth-platform/metrics"] === "true";
/** The release's own objects of a kind; the migration hooks and the metrics Services are checked on their own. */
const ofKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind && !isMigrationHook(o) && !isMetricsService(o));
const componentOf = (o: K8sObject) => o.metadata.labels?.["app.kubernetes.io/component"];

/** The one object of a kind for a component; fails the test when there is not exactly one. */
function one(objects: K8sObject[], kind: string, component: Component | "web"): K8sObject {
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
const selects = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([key, value]) => labels[key] === value);

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
    const set = [`config.baseUrl=${REQUIRED.config.baseUrl}`, `redis.url=${REQUIRED.redis.url}`, `tls.certManager.issuerRef.name=${ISSUER.name}`];
    expect(helm(["lint", "--strict", CHART_DIR, ...set.flatMap((value) => ["--set", value])])).toMatch(/0 chart\(s\) failed/);
  });
});

describe("with default values (and the required config.baseUrl)", () => {
  const objects = render();
  const configMap = single(objects, "ConfigMap");
  const secret = single(objects, "Secret");
  const env = configMap.data as Record<string, string>;
  const secretEnv = decoded(secret);

  it("renders objects that match the Kubernetes schemas", () => {
    expectSchemaValid(objects);
    for (const o of objects) expect(o.metadata.namespace, `${o.kind} ${o.metadata.name}`).toBe(RELEASE.namespace);
  });

  it("renders a Deployment, Service, HPA, PDB, NetworkPolicy and Certificate per component", () => {
    for (const kind of ["Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget", "NetworkPolicy", "Certificate"]) {
      // The web app holds no workload certificate: it speaks no gRPC.
      expect(ofKind(objects, kind).map(componentOf).sort(), kind).toEqual([...(kind === "Certificate" ? NAMES : WITH_WEB)].sort());
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
    expect(container.command).toEqual(["node", ...NODE_FLAGS[name], COMPONENTS[name].main]);
    const tmp = container.volumeMounts.find((m: { mountPath: string }) => m.mountPath === "/tmp");
    expect(pod.volumes.find((v: { name: string }) => v.name === tmp?.name)).toHaveProperty("emptyDir");
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.enableServiceLinks).toBe(false);
  });

  it.each(NAMES)("gives %s the process environment the launcher gives it (PROCESS_ENV)", (name) => {
    const vars = envOf(containerOf(one(objects, "Deployment", name)));
    const wanted = PROCESS_ENV[name] ?? {};
    for (const [key, value] of Object.entries(wanted)) expect(vars.get(key)?.value, key).toBe(value);
    expect(vars.has("GLIBC_TUNABLES")).toBe("GLIBC_TUNABLES" in wanted);
  });

  it.each(NAMES)("gives %s resources, listens on its configured port, and reads the ConfigMap", (name) => {
    const container = containerOf(one(objects, "Deployment", name));
    expect(container.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(container.resources.limits).toMatchObject({ memory: expect.any(String) });
    expect(container.ports[0]).toMatchObject({ containerPort: COMPONENTS[name].port });
    expect(env[COMPONENTS[name].portEnv]).toBe(String(COMPONENTS[name].port));
    expect(container.envFrom).toEqual([{ configMapRef: { name: configMap.metadata.name } }]);
  });

  it.each(NAMES)("gives %s exactly the secret keys its process reads, from the chart's Secret", (name) => {
    const refs = [...envOf(containerOf(one(objects, "Deployment", name))).values()].filter((e) => e.valueFrom?.secretKeyRef);
    expect(Object.fromEntries(refs.map((e) => [e.name, Boolean(e.valueFrom?.secretKeyRef?.optional)]))).toEqual(SECRET_KEYS[name]);
    for (const e of refs) expect(e.valueFrom?.secretKeyRef).toMatchObject({ name: secret.metadata.name, key: e.name });
    // Every required key is in the Secret the chart writes.
    for (const [key, optional] of Object.entries(SECRET_KEYS[name])) if (!optional) expect(secretEnv, key).toHaveProperty(key);
  });

  it("gives AUTH_SECRET to gateway, identity and session, and never to notification", () => {
    const holders = NAMES.filter((name) => envOf(containerOf(one(objects, "Deployment", name))).has("AUTH_SECRET"));
    expect(holders).toEqual(["gateway", "identity", "session"]);
  });

  it.each(NAMES)("mounts the %s certificate Secret whole (rotation without restart) at GRPC_TLS_DIR", (name) => {
    const deployment = one(objects, "Deployment", name);
    const container = containerOf(deployment);
    const vars = envOf(container);
    expect(vars.get("GRPC_TLS_DIR")?.value).toBe(TLS_DIR);
    expect(vars.has("GRPC_INSECURE")).toBe(false);
    const mount = container.volumeMounts.find((m: { mountPath: string }) => m.mountPath === TLS_DIR);
    expect(mount).toMatchObject({ readOnly: true });
    // A subPath mount is never updated by the kubelet, so a renewed certificate would not reach the process.
    expect(mount).not.toHaveProperty("subPath");
    const volume = deployment.spec.template.spec.volumes.find((v: { name: string }) => v.name === mount.name);
    expect(volume.secret.secretName).toBe(one(objects, "Certificate", name).spec.secretName);
    // 0440: the pod's group (fsGroup) reads the key, others do not.
    expect(volume.secret.defaultMode).toBe(0o440);
    expect(container.volumeMounts.some((m: { subPath?: string }) => m.subPath)).toBe(false);
  });

  it.each(GRPC)("binds %s on every interface (GRPC_HOST) and serves the health check on GRPC_HEALTH_PORT", (name) => {
    const container = containerOf(one(objects, "Deployment", name));
    const vars = envOf(container);
    expect(vars.get("GRPC_HOST")?.value).toBe("0.0.0.0");
    expect(vars.get("GRPC_HEALTH_PORT")?.value).toBe(String(HEALTH_PORT));
    expect(container.ports).toEqual([
      { name: "grpc", containerPort: COMPONENTS[name].port, protocol: "TCP" },
      { name: "grpc-health", containerPort: HEALTH_PORT, protocol: "TCP" },
      { name: "metrics", containerPort: METRICS_PORT, protocol: "TCP" },
    ]);
    // The health port is for the kubelet only, the metrics port for the metrics Service only.
    expect(one(objects, "Service", name).spec.ports.map((p: { port: number }) => p.port)).toEqual([COMPONENTS[name].port]);
  });

  it("binds the gateway on every interface (HOST) and gives it no health port", () => {
    const container = containerOf(one(objects, "Deployment", "gateway"));
    expect(envOf(container).get("HOST")?.value).toBe("0.0.0.0");
    expect(envOf(container).has("GRPC_HEALTH_PORT")).toBe(false);
    expect(container.ports).toEqual([
      { name: "http", containerPort: 3000, protocol: "TCP" },
      { name: "metrics", containerPort: METRICS_PORT, protocol: "TCP" },
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

  it.each(GRPC)("probes %s with the native gRPC health check on GRPC_HEALTH_PORT, not the mTLS port", (name) => {
    const container = containerOf(one(objects, "Deployment", name));
    for (const probe of ["startupProbe", "livenessProbe", "readinessProbe"]) {
      expect(container[probe], probe).toMatchObject({ grpc: { port: HEALTH_PORT } });
      expect(container[probe], probe).not.toHaveProperty("httpGet");
    }
    expect(envOf(container).get("GRPC_HEALTH_PORT")?.value).toBe(String(container.startupProbe.grpc.port));
  });

  it.each(NAMES)("routes the %s Service to its pods' port", (name) => {
    const service = one(objects, "Service", name);
    const deployment = one(objects, "Deployment", name);
    expect(selects(service.spec.selector, deployment.spec.template.metadata.labels)).toBe(true);
    expect(deployment.spec.selector.matchLabels).toEqual(service.spec.selector);
    const [port] = service.spec.ports;
    const containerPort = containerOf(deployment).ports.find((p: { name: string; containerPort: number }) => p.name === port.targetPort || p.containerPort === port.targetPort);
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
      IDENTITY_REVOKE_SESSIONS_ON_PASSWORD_RESET: "true",
      IDENTITY_CHANGE_EMAIL_ENABLED: "true",
      IDENTITY_DELETE_USER_ENABLED: "true",
      IDENTITY_DELETE_USER_VERIFICATION: "true",
      IDENTITY_TWO_FACTOR_MAX_ATTEMPTS: "5",
      APP_NAME: "Auth Platform",
    });
    // Apart from addresses and secrets, every rendered value is what the process would pick by itself.
    const environment = podEnv(env, secretEnv);
    const identityWiring = ["baseUrl", "databaseUrl", "sessionServiceUrl", "notificationServiceUrl", "organizationServiceUrl", "secret", "grpc", "twoFactor"] as const;
    expect(without(identityConfig(environment), identityWiring)).toEqual(without(identityConfig({}), identityWiring));
    // The two-factor keys derive from the secret (wiring); the rest is the code's default.
    const { keys: _keys, ...twoFactor } = identityConfig(environment).twoFactor;
    const { keys: _defaultKeys, ...defaultTwoFactor } = identityConfig({}).twoFactor;
    expect(twoFactor).toEqual(defaultTwoFactor);
    const notificationWiring = ["databaseUrl", "footerUrl", "production", "grpc"] as const;
    expect(without(notificationConfig(environment), notificationWiring)).toEqual(without(notificationConfig({}), notificationWiring));
    expect(notificationConfig(environment)).toMatchObject({ production: true, footerUrl: "https://auth.example.com" });
    const organizationWiring = ["databaseUrl", "identityServiceUrl", "sessionServiceUrl", "notificationServiceUrl", "appUrl", "grpc"] as const;
    expect(without(organizationConfig(environment), organizationWiring)).toEqual(without(organizationConfig({}), organizationWiring));
    expect(organizationConfig(environment)).toMatchObject({ appUrl: "https://auth.example.com", databaseUrl: "postgres://auth@postgresql:5432/organization" });
  });

  it("renders a configuration every process accepts, each from its own container's environment", () => {
    const of = (name: Component) => componentEnv(one(objects, "Deployment", name), env, secretEnv);
    const gateway = gatewayConfig(of("gateway"));
    expect(gateway).toMatchObject({ baseUrl: "https://auth.example.com/api/auth", devMailbox: false, secretIsDefault: false });
    expect(gateway.notificationServiceUrl).toBe(env.NOTIFICATION_SERVICE_URL);
    expect(gateway.redis?.url).toBe(REQUIRED.redis.url);
    const identity = identityConfig(of("identity"));
    expect(identity).toMatchObject({ notificationServiceUrl: env.NOTIFICATION_SERVICE_URL, secret: secretEnv.AUTH_SECRET });
    expect(identity.databaseUrl).toBe("postgres://auth@postgresql:5432/identity");
    expect(sessionConfig(of("session"))).toMatchObject({
      databaseUrl: "postgres://auth@postgresql:5432/session",
      redis: { url: REQUIRED.redis.url },
      cacheStaleServeSeconds: 300,
    });
    expect(of("session").AUTH_SECRET).toBe(secretEnv.AUTH_SECRET);
    expect(notificationConfig(of("notification"))).toMatchObject({ smtpUrl: undefined, databaseUrl: "postgres://auth@postgresql:5432/notification" });
  });

  it("uses only variable names from docs/configuration.md", () => {
    const documented = documentedNames();
    const containerNames = WITH_WEB.flatMap((name) => [...envOf(containerOf(one(objects, "Deployment", name))).keys()]);
    // Variables only set by non-default values: the client-IP settings and the mTLS opt-out.
    const optional = render({ config: { trustedProxies: ["10.0.0.0/8"], clientIpHeaders: ["x-real-ip"] }, tls: { enabled: false } });
    const optionalNames = [...Object.keys(single(optional, "ConfigMap").data), ...NAMES.flatMap((name) => [...envOf(containerOf(one(optional, "Deployment", name))).keys()])];
    const unknown = [...new Set([...Object.keys(env), ...Object.keys(secretEnv), ...containerNames, ...optionalNames])].filter((name) => !documented.has(name));
    expect(unknown).toEqual([]);
  });

  it("holds a generated AUTH_SECRET and a PostgreSQL URL per service", () => {
    expect(secretEnv.AUTH_SECRET).toMatch(/^[A-Za-z0-9]{64}$/);
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
  const components = Object.fromEntries(WITH_WEB.map((name) => [name, { replicaCount: 3, autoscaling: { enabled: false }, pdb: { enabled: false } }]));
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
        defaultRole: "member",
      },
      admin: { assignableRoles: ["editor", "member"] },
      session: { expiresIn: 2592000, freshAge: 0, cacheStaleServeSeconds: 120 },
      notification: { appName: "Acme, Inc.", mailFrom: "Acme <no-reply@acme.example>", maxAttempts: 5, retryMaxMs: 600000 },
      organization: {
        allowCreation: false,
        limit: 5,
        deleteEnabled: false,
        invitationExpiresIn: 3600,
        invitationLimit: 25,
        roles: { owner: { organization: ["update", "delete"] }, member: {} },
      },
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
      const refs = [...envOf(containerOf(one(objects, "Deployment", name))).values()].flatMap((e) => e.valueFrom?.secretKeyRef ?? []);
      expect(refs.map((ref) => ref.key).sort()).toEqual(Object.keys(SECRET_KEYS[name]).sort());
      for (const ref of refs) expect(ref.name).toBe("auth-env");
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
      SESSION_CACHE_STALE_SERVE_SECONDS: "120",
      APP_NAME: "Acme, Inc.",
      MAIL_FROM: "Acme <no-reply@acme.example>",
      NOTIFICATION_MAX_ATTEMPTS: "5",
      NOTIFICATION_RETRY_MAX_MS: "600000",
    });
    expect(JSON.parse(env.RATE_LIMIT_RULES ?? "")).toEqual({ "/sign-in": { window: 60, max: 5 } });
  });

  it("lets admins give back the role new users get: identity.defaultRole joins admin.assignableRoles", () => {
    expect(env).toMatchObject({ IDENTITY_DEFAULT_ROLE: "member", ADMIN_ASSIGNABLE_ROLES: "editor,member" });
    const other = single(render({ ...values, config: { ...values.config, admin: { assignableRoles: ["editor"] } } }), "ConfigMap").data as Record<string, string>;
    expect(other.ADMIN_ASSIGNABLE_ROLES).toBe("editor,member");
    const defaults = single(render({}), "ConfigMap").data as Record<string, string>;
    expect(defaults.ADMIN_ASSIGNABLE_ROLES).toBe("user");
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
    expect(organizationConfig(environment)).toMatchObject({
      appUrl: "https://app.example.com",
      allowCreation: false,
      organizationLimit: 5,
      deleteEnabled: false,
      invitationExpiresInSeconds: 3600,
      invitationLimit: 25,
      roles: { owner: { organization: ["update", "delete"] }, member: {} },
    });
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

/** A component's pod labels as its Deployment renders them. */
const podLabels = (objects: K8sObject[], name: Component | "web") => one(objects, "Deployment", name).spec.template.metadata.labels as Record<string, string>;
/** The peer that admits one component's pods (same namespace), as the chart writes it. */
const peerOf = (objects: K8sObject[], name: Component | "web") => ({ podSelector: { matchLabels: one(objects, "Deployment", name).spec.selector.matchLabels } });
/** The container port a NetworkPolicy port (named or numbered) stands for. */
function containerPortOf(deployment: K8sObject, port: string | number): number | undefined {
  const ports = containerOf(deployment).ports as { name: string; containerPort: number }[];
  return typeof port === "number" ? ports.find((p) => p.containerPort === port)?.containerPort : ports.find((p) => p.name === port)?.containerPort;
}

/** The NetworkPolicy of a component, after checking that it selects that component's pods and no other. */
function policyOf(objects: K8sObject[], name: Component, present: Component[] = NAMES): K8sObject {
  const policy = one(objects, "NetworkPolicy", name);
  for (const other of present) {
    expect(selects(policy.spec.podSelector.matchLabels, podLabels(objects, other)), `${name}'s policy on ${other}`).toBe(other === name);
  }
  return policy;
}

describe("NetworkPolicies with default values", () => {
  const objects = render();

  it("renders one per component, valid against the schema", () => {
    expectSchemaValid(ofKind(objects, "NetworkPolicy"));
    expect(ofKind(objects, "NetworkPolicy").map(componentOf).sort()).toEqual([...WITH_WEB].sort());
  });

  it("admits HTTP to the gateway from any source, and nothing else", () => {
    const policy = policyOf(objects, "gateway");
    expect(policy.spec.ingress).toEqual([{ ports: [{ port: "http", protocol: "TCP" }] }, METRICS_RULE]);
    expect(containerPortOf(one(objects, "Deployment", "gateway"), "http")).toBe(3000);
  });

  it.each(GRPC)("admits gRPC to %s only from the components that call it", (name) => {
    const policy = policyOf(objects, name);
    expect(policy.spec.ingress).toEqual([{ ports: [{ port: "grpc", protocol: "TCP" }], from: CALLERS[name].map((caller) => peerOf(objects, caller)) }, METRICS_RULE]);
    expect(containerPortOf(one(objects, "Deployment", name), "grpc")).toBe(COMPONENTS[name].port);
    // The peers select exactly the callers' pods: not the service itself, not the other services, not the test pod.
    const [rule] = policy.spec.ingress;
    const admitted = NAMES.filter((other) =>
      rule.from.some((peer: { podSelector: { matchLabels: Record<string, string> } }) => selects(peer.podSelector.matchLabels, podLabels(objects, other))),
    );
    expect(admitted.sort()).toEqual([...CALLERS[name]].sort());
    const testPod = single(objects, "Pod").metadata.labels as Record<string, string>;
    expect(rule.from.some((peer: { podSelector: { matchLabels: Record<string, string> } }) => selects(peer.podSelector.matchLabels, testPod))).toBe(false);
  });

  it.each(NAMES)("leaves egress of %s open (PostgreSQL, Redis and SMTP live anywhere)", (name) => {
    const policy = policyOf(objects, name);
    expect(policy.spec.policyTypes).toEqual(["Ingress"]);
    expect(policy.spec).not.toHaveProperty("egress");
  });
});

describe("NetworkPolicies with restricted egress, an ingress namespace, internal clients and a health-probe peer", () => {
  const ingressController = { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "ingress-nginx" } } };
  const billing = { podSelector: { matchLabels: { app: "billing" } } };
  const nodes = { ipBlock: { cidr: "10.0.0.0/16" } };
  const coreDns = { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "kube-system" } }, podSelector: { matchLabels: { "k8s-app": "kube-dns" } } };
  const database = {
    to: [{ ipBlock: { cidr: "10.20.0.0/24" } }],
    ports: [
      { port: 5432, protocol: "TCP" },
      { port: 6379, protocol: "TCP" },
    ],
  };
  const smtp = { to: [{ ipBlock: { cidr: "0.0.0.0/0" } }], ports: [{ port: 465, protocol: "TCP" }] };
  const collector = { to: [{ ipBlock: { cidr: "10.30.0.0/24" } }], ports: [{ port: 4318, protocol: "TCP" }] };
  const objects = render({
    networkPolicy: {
      gateway: { from: [ingressController] },
      internalClients: [billing],
      healthProbeFrom: [nodes],
      egress: { allowAll: false, dnsTo: [coreDns], extraRules: [collector], componentRules: { session: [database], notification: [database, smtp] } },
    },
  });
  const CALLEES: Record<Component, Component[]> = {
    gateway: ["identity", "session", "notification", "oauth", "organization", "admin"],
    identity: ["session", "notification", "organization"],
    session: [],
    notification: [],
    organization: ["identity", "session", "notification"],
    admin: ["identity", "session"],
    oauth: ["identity"],
  };

  it("renders policies valid against the schema", () => {
    expectSchemaValid(objects);
  });

  it("admits the gateway's HTTP from the ingress controller and the helm test pod only", () => {
    const policy = policyOf(objects, "gateway");
    const testPod = single(objects, "Pod").metadata.labels as Record<string, string>;
    expect(policy.spec.ingress).toHaveLength(2);
    expect(policy.spec.ingress[1]).toEqual(METRICS_RULE);
    const [rule] = policy.spec.ingress;
    expect(rule.ports).toEqual([{ port: "http", protocol: "TCP" }]);
    expect(rule.from).toHaveLength(3);
    expect(rule.from[0]).toEqual(ingressController);
    expect(selects(rule.from[1].podSelector.matchLabels, testPod)).toBe(true);
    for (const name of WITH_WEB) expect(selects(rule.from[1].podSelector.matchLabels, podLabels(objects, name)), name).toBe(false);
    // The web app's server, which passes the API path on to the gateway, and nothing else.
    for (const name of WITH_WEB) expect(selects(rule.from[2].podSelector.matchLabels, podLabels(objects, name)), name).toBe(name === "web");
  });

  it("admits the internal clients to identity and session, never to notification", () => {
    for (const name of ["identity", "session"] as const) {
      expect(policyOf(objects, name).spec.ingress[0].from).toEqual([...CALLERS[name].map((caller) => peerOf(objects, caller)), billing]);
    }
    expect(policyOf(objects, "notification").spec.ingress[0].from).toEqual(CALLERS.notification.map((caller) => peerOf(objects, caller)));
  });

  it.each(GRPC)("admits the health-probe peer to the health port of %s only", (name) => {
    const rules = policyOf(objects, name).spec.ingress;
    expect(rules).toHaveLength(3);
    expect(rules[1]).toEqual({ ports: [{ port: "grpc-health", protocol: "TCP" }], from: [nodes] });
    expect(rules[2]).toEqual(METRICS_RULE);
    expect(containerPortOf(one(objects, "Deployment", name), "grpc-health")).toBe(HEALTH_PORT);
  });

  const OWN_RULES: Partial<Record<Component, object[]>> = { session: [database], notification: [database, smtp] };

  it.each(NAMES)("lets %s out to DNS, the gRPC ports of the services it calls, the extra rules and its own rules only", (name) => {
    const policy = policyOf(objects, name);
    expect(policy.spec.policyTypes).toEqual(["Ingress", "Egress"]);
    expect(policy.spec.egress).toEqual([
      {
        ports: [
          { port: 53, protocol: "UDP" },
          { port: 53, protocol: "TCP" },
        ],
        to: [coreDns],
      },
      ...CALLEES[name].map((callee) => ({ ports: [{ port: COMPONENTS[callee].port, protocol: "TCP" }], to: [peerOf(objects, callee)] })),
      collector,
      ...(OWN_RULES[name] ?? []),
    ]);
  });

  it("allows each call of the call graph both ways: the caller's egress and the callee's ingress", () => {
    for (const caller of NAMES) {
      for (const callee of GRPC) {
        const egress = policyOf(objects, caller).spec.egress.some(
          (rule: { to?: { podSelector?: { matchLabels: Record<string, string> } }[]; ports: { port: number }[] }) =>
            rule.ports.some((p) => p.port === COMPONENTS[callee].port) &&
            rule.to?.some((peer) => peer.podSelector && selects(peer.podSelector.matchLabels, podLabels(objects, callee))),
        );
        const ingress = policyOf(objects, callee).spec.ingress[0].from.some(
          (peer: { podSelector?: { matchLabels: Record<string, string> } }) => peer.podSelector && selects(peer.podSelector.matchLabels, podLabels(objects, caller)),
        );
        expect(egress, `${caller} -> ${callee} egress`).toBe(CALLERS[callee].includes(caller));
        expect(ingress, `${caller} -> ${callee} ingress`).toBe(CALLERS[callee].includes(caller));
      }
    }
  });

  it("drops the notification service from the policies when it is disabled", () => {
    const without = render({ notification: { enabled: false }, networkPolicy: { egress: { allowAll: false } } });
    const present = NAMES.filter((name) => name !== "notification");
    expect(ofKind(without, "NetworkPolicy").map(componentOf).sort()).toEqual([...present, "web"].sort());
    const ports = (name: Component) => policyOf(without, name, present).spec.egress.flatMap((rule: { ports: { port: number }[] }) => rule.ports.map((p) => p.port));
    expect(ports("gateway")).toEqual([53, 53, 50051, 50052, 50053, 50054, 50055]);
    expect(ports("identity")).toEqual([53, 53, 50052, 50054]);
  });

  it("drops the admin service, and the bootstrap Job, from the policies when it is disabled", () => {
    const withoutAdmin = render({ admin: { enabled: false }, adminBootstrap: { enabled: true, email: "ops@example.com" }, networkPolicy: { egress: { allowAll: false } } });
    const present = NAMES.filter((name) => name !== "admin");
    expect(ofKind(withoutAdmin, "NetworkPolicy").map(componentOf).sort()).toEqual([...present, "web"].sort());
    expect(withoutAdmin.filter((o) => o.kind === "Job" && componentOf(o) === "admin-bootstrap")).toEqual([]);
    expect(policyOf(withoutAdmin, "identity", present).spec.ingress[0].from).toEqual(
      ["gateway", "organization", "oauth"].map((caller) => peerOf(withoutAdmin, caller as Component)),
    );
  });

  it("renders no NetworkPolicy when turned off", () => {
    expect(ofKind(render({ networkPolicy: { enabled: false } }), "NetworkPolicy")).toEqual([]);
  });
});

describe("mTLS certificates from cert-manager", () => {
  const objects = render();
  const fullname = `${RELEASE.name}-auth-platform`;

  it("renders a Certificate per component that the cert-manager schema accepts, and no Issuer", () => {
    expectSchemaValid(ofKind(objects, "Certificate"));
    expect(ofKind(objects, "Certificate").map(componentOf).sort()).toEqual([...NAMES].sort());
    expect(ofKind(objects, "Issuer")).toEqual([]);
  });

  it.each(GRPC)("gives %s its workload URI SAN, its service name as DNS SAN, and server and client auth", (name) => {
    const { spec } = one(objects, "Certificate", name);
    expect(spec.uris).toEqual([`spiffe://auth-platform/${name}`]);
    expect(spec.dnsNames).toEqual([name]);
    expect(spec.usages).toEqual(["digital signature", "server auth", "client auth"]);
    expect(spec.issuerRef).toEqual(ISSUER);
    expect(spec.secretName).toBe(`${fullname}-${name}-tls`);
    expect(spec.privateKey).toMatchObject({ algorithm: "ECDSA", size: 256, rotationPolicy: "Always" });
    expect(spec).toMatchObject({ duration: "2160h", renewBefore: "720h" });
  });

  it("gives the gateway its URI SAN and client auth only (it serves no gRPC)", () => {
    const { spec } = one(objects, "Certificate", "gateway");
    expect(spec.uris).toEqual(["spiffe://auth-platform/gateway"]);
    expect(spec).not.toHaveProperty("dnsNames");
    expect(spec.usages).toEqual(["digital signature", "client auth"]);
    expect(spec.issuerRef).toEqual(ISSUER);
  });

  it("issues no internal-client certificate unless asked", () => {
    expect(ofKind(objects, "Certificate").filter((c) => c.spec.uris.includes("spiffe://auth-platform/internal-client"))).toEqual([]);
  });

  it("issues the internal-client certificate on request, client auth only, mounted by no component", () => {
    const withClient = render({ tls: { internalClient: { enabled: true } } });
    expectSchemaValid(withClient);
    const cert = ofKind(withClient, "Certificate").find((c) => componentOf(c) === "internal-client");
    expect(cert?.spec).toMatchObject({
      uris: ["spiffe://auth-platform/internal-client"],
      usages: ["digital signature", "client auth"],
      secretName: `${fullname}-internal-client-tls`,
      issuerRef: ISSUER,
    });
    expect(cert?.spec).not.toHaveProperty("dnsNames");
    for (const name of NAMES) {
      const volumes = one(withClient, "Deployment", name).spec.template.spec.volumes as { secret?: { secretName: string } }[];
      expect(volumes.map((v) => v.secret?.secretName)).not.toContain(`${fullname}-internal-client-tls`);
    }
  });

  it("signs with an RSA key when asked, adding key encipherment", () => {
    const rsa = render({ tls: { certManager: { privateKey: { algorithm: "RSA", size: 3072 } } } });
    expectSchemaValid(ofKind(rsa, "Certificate"));
    expect(one(rsa, "Certificate", "identity").spec.usages).toEqual(["digital signature", "key encipherment", "server auth", "client auth"]);
    expect(one(rsa, "Certificate", "identity").spec.privateKey).toMatchObject({ algorithm: "RSA", size: 3072 });
  });
});

describe("mTLS with the self-signed CA bootstrap", () => {
  const objects = render({ tls: { certManager: { issuerRef: { name: "" }, selfSignedCA: { enabled: true } } } });
  const issuers = ofKind(objects, "Issuer");
  const caCert = ofKind(objects, "Certificate").find((c) => c.spec.isCA === true);

  it("renders valid objects: a selfSigned Issuer, the CA Certificate and the CA Issuer", () => {
    expectSchemaValid(objects);
    expect(issuers).toHaveLength(2);
    expect(caCert).toBeDefined();
  });

  it("chains selfSigned Issuer -> CA Certificate -> CA Issuer -> every component's Certificate", () => {
    const selfSigned = issuers.find((i) => "selfSigned" in i.spec) as K8sObject;
    const ca = issuers.find((i) => "ca" in i.spec) as K8sObject;
    expect(caCert?.spec.issuerRef).toEqual({ name: selfSigned.metadata.name, kind: "Issuer", group: "cert-manager.io" });
    expect(ca.spec.ca.secretName).toBe(caCert?.spec.secretName);
    for (const name of NAMES) {
      expect(one(objects, "Certificate", name).spec.issuerRef).toEqual({ name: ca.metadata.name, kind: "Issuer", group: "cert-manager.io" });
    }
  });

  it("keeps the CA key on renewal, so certificates issued before and after keep trusting each other", () => {
    expect(caCert?.spec.privateKey.rotationPolicy).toBe("Never");
    expect(caCert?.spec.duration).toBe("87600h");
  });
});

describe("mTLS with Secrets of your own", () => {
  const secrets = { gateway: "gw-tls", identity: "id-tls", session: "se-tls", notification: "no-tls", oauth: "oa-tls", organization: "or-tls", admin: "ad-tls" };
  const objects = render({ tls: { certManager: { enabled: false }, existingSecrets: secrets } });

  it("renders no cert-manager object and mounts each component's Secret at GRPC_TLS_DIR", () => {
    expectSchemaValid(objects);
    expect(objects.filter((o) => o.apiVersion === "cert-manager.io/v1")).toEqual([]);
    for (const name of NAMES) {
      const deployment = one(objects, "Deployment", name);
      const mount = containerOf(deployment).volumeMounts.find((m: { mountPath: string }) => m.mountPath === TLS_DIR);
      const volume = deployment.spec.template.spec.volumes.find((v: { name: string }) => v.name === mount?.name);
      expect(volume?.secret.secretName).toBe(secrets[name]);
      expect(envOf(containerOf(deployment)).get("GRPC_TLS_DIR")?.value).toBe(TLS_DIR);
    }
  });
});

/** A copy of the chart whose extra template renders NOTES.txt into a ConfigMap (helm template prints no notes). */
const notesChart = chartWith({
  "notes-under-test.txt": readFileSync(`${CHART_DIR}/templates/NOTES.txt`, "utf8"),
  "templates/zz-notes.yaml": [
    "apiVersion: v1",
    "kind: ConfigMap",
    "metadata:",
    "  name: notes-under-test",
    "data:",
    '  notes: {{ tpl (.Files.Get "notes-under-test.txt") . | toJson }}',
  ].join("\n"),
});
const notesOf = (values: Values) =>
  (parseObjects(renderValuesText(merge(REQUIRED, values), notesChart)).find((o) => o.metadata.name === "notes-under-test")!.data as { notes: string }).notes;

describe("with mTLS turned off explicitly", () => {
  const objects = render({ tls: { enabled: false } });

  it.each(NAMES)("runs %s with GRPC_INSECURE=true, no GRPC_TLS_DIR and no certificate volume", (name) => {
    const deployment = one(objects, "Deployment", name);
    const vars = envOf(containerOf(deployment));
    expect(vars.get("GRPC_INSECURE")?.value).toBe("true");
    expect(vars.has("GRPC_TLS_DIR")).toBe(false);
    expect(containerOf(deployment).volumeMounts.map((m: { mountPath: string }) => m.mountPath)).toEqual(["/tmp"]);
  });

  it("renders no certificate and needs no issuer", () => {
    expectSchemaValid(objects);
    expect(objects.filter((o) => o.apiVersion === "cert-manager.io/v1")).toEqual([]);
    expect(() => render({ tls: { enabled: false, certManager: { issuerRef: { name: "" } } } })).not.toThrow();
  });

  it("warns in NOTES.txt, which says nothing of the kind while mTLS is on", () => {
    expect(notesOf({ tls: { enabled: false } })).toMatch(/WARNING: tls\.enabled is false\. The internal gRPC API runs in plaintext with GRPC_INSECURE=true/);
    const on = notesOf({});
    expect(on).not.toMatch(/GRPC_INSECURE/);
    expect(on).toMatch(/Internal gRPC: mutual TLS, certificates mounted at \/etc\/auth-platform\/tls \(GRPC_TLS_DIR\) and issued by cert-manager\./);
  });
});

describe("AUTH_SECRET across upgrades", () => {
  // `helm template` has no cluster, so `lookup` answers an empty map. The choice between a kept, a
  // configured and a new secret is in the named template auth-platform.authSecret, rendered here with a
  // Secret as the cluster would return it.
  const KEPT = "kept-secret-0123456789-abcdefghijklmnopqrstuvwxyz";
  const probe = chartWith({
    "templates/zz-auth-secret.yaml": [
      `{{- $cluster := dict "data" (dict "AUTH_SECRET" (b64enc "${KEPT}")) }}`,
      `{{- $short := dict "data" (dict "AUTH_SECRET" (b64enc "short")) }}`,
      "apiVersion: v1",
      "kind: ConfigMap",
      "metadata:",
      "  name: auth-secret-probe",
      "data:",
      '  upgrade: {{ include "auth-platform.authSecret" (dict "root" . "current" $cluster) | quote }}',
      '  install: {{ include "auth-platform.authSecret" (dict "root" . "current" (dict)) | quote }}',
      '  installAgain: {{ include "auth-platform.authSecret" (dict "root" . "current" (dict)) | quote }}',
      '  noCluster: {{ include "auth-platform.authSecret" (dict "root" . "current" (lookup "v1" "Secret" .Release.Namespace "absent")) | quote }}',
      '  tooShort: {{ include "auth-platform.authSecret" (dict "root" . "current" $short) | quote }}',
    ].join("\n"),
  });
  const probeOf = (values: Values) =>
    parseObjects(renderValuesText(merge(REQUIRED, values), probe)).find((o) => o.metadata.name === "auth-secret-probe")?.data as Record<string, string>;

  it("keeps the AUTH_SECRET of the Secret already in the cluster", () => {
    expect(probeOf({}).upgrade).toBe(KEPT);
  });

  it("generates 64 random characters when there is none (first install, or no cluster)", () => {
    const data = probeOf({});
    for (const key of ["install", "installAgain", "noCluster", "tooShort"]) expect(data[key], key).toMatch(/^[A-Za-z0-9]{64}$/);
    // Drawn once per render, so the Secret, the migration hook's Secret and the checksums agree.
    expect(new Set([data.install, data.installAgain, data.noCluster, data.tooShort]).size).toBe(1);
  });

  it("takes secret.authSecret over a kept one", () => {
    const configured = "configured-secret-0123456789abcdefghijklmnop";
    expect(probeOf({ secret: { authSecret: configured } })).toMatchObject({ upgrade: configured, install: configured });
  });

  it("looks up the chart's own Secret, in the release namespace, for the kept value", () => {
    const template = readFileSync(`${CHART_DIR}/templates/secret_auth-platform.yaml`, "utf8");
    expect(template).toMatch(/\$name := include "auth-platform\.secretName" \./);
    expect(template).toMatch(/\$current := lookup "v1" "Secret" \.Release\.Namespace \$name/);
    expect(template).toMatch(/include "auth-platform\.authSecret" \(dict "root" \. "current" \$current\)/);
  });

  it("generates a different secret on each render without a cluster (so helm template users must set one)", () => {
    const a = decoded(single(render(), "Secret")).AUTH_SECRET;
    const b = decoded(single(render(), "Secret")).AUTH_SECRET;
    expect(a).toMatch(/^[A-Za-z0-9]{64}$/);
    expect(a).not.toBe(b);
  });
});

describe("client IP settings", () => {
  it("leaves AUTH_TRUSTED_PROXIES and AUTH_CLIENT_IP_HEADERS to the process defaults", () => {
    const env = single(render(), "ConfigMap").data as Record<string, string>;
    expect(env).not.toHaveProperty("AUTH_TRUSTED_PROXIES");
    expect(env).not.toHaveProperty("AUTH_CLIENT_IP_HEADERS");
  });

  it("passes the configured proxies and single-value headers through", () => {
    const env = single(render({ config: { trustedProxies: ["10.42.0.0/16", "fd00::/8"], clientIpHeaders: ["CF-Connecting-IP", "x-real-ip"] } }), "ConfigMap").data as Record<
      string,
      string
    >;
    expect(env.AUTH_TRUSTED_PROXIES).toBe("10.42.0.0/16,fd00::/8");
    expect(env.AUTH_CLIENT_IP_HEADERS).toBe("cf-connecting-ip,x-real-ip");
  });

  // Regression: a LoadBalancer or NodePort Service with kube-proxy's default policy (Cluster) hands the
  // gateway (or the web app, which appends its peer) a node's private address as the peer. That address
  // is a trusted proxy by default, so each client's own X-Forwarded-For chose its rate-limit key: unlimited
  // sign-in attempts, and any victim's address could be locked out.
  it("keeps the client's address as the source of an outside gateway or web Service", () => {
    for (const type of ["LoadBalancer", "NodePort"]) {
      const objects = render({ gateway: { service: { type } }, web: { service: { type } } });
      expectSchemaValid(objects);
      for (const component of ["gateway", "web"] as const) {
        expect(one(objects, "Service", component).spec).toMatchObject({ type, externalTrafficPolicy: "Local" });
      }
    }
    const chosen = render({ gateway: { service: { type: "LoadBalancer", externalTrafficPolicy: "Cluster" } } });
    expect(one(chosen, "Service", "gateway").spec.externalTrafficPolicy).toBe("Cluster");
    // A ClusterIP Service takes no such field.
    expect(one(render(), "Service", "gateway").spec).not.toHaveProperty("externalTrafficPolicy");
  });
});

describe("invalid values", () => {
  it.each([
    ["a short AUTH_SECRET", { secret: { authSecret: "too-short" } }, /authSecret/],
    ["an unknown key", { config: { baseURL: "https://auth.example.com" } }, /baseURL/],
    ["a PDB with neither bound", { gateway: { pdb: { maxUnavailable: null } } }, /gateway\.pdb/],
    ["an HPA without a target", { identity: { autoscaling: { targetCPUUtilizationPercentage: null } } }, /identity\.autoscaling/],
    ["a non-PostgreSQL database URL", { identity: { database: { url: "file:data/identity.db" } } }, /identity\.database\.url/],
    [
      "a base URL with the base path already in it",
      { config: { baseUrl: "https://auth.example.com/api/auth" } },
      /config\.baseUrl \(https:\/\/auth\.example\.com\/api\/auth\) must not end with config\.basePath/,
    ],
    ["a base URL that is not http(s)", { config: { baseUrl: "auth.example.com" } }, /config\.baseUrl/],
    ["the root as base path beside the web app", { config: { basePath: "/" } }, /config\.basePath must not be \/ while web\.enabled/],
    ["a headless Service of type LoadBalancer", { identity: { service: { type: "LoadBalancer" } } }, /identity\.service\.headless needs service\.type ClusterIP/],
    ["an unknown traffic policy", { gateway: { service: { type: "LoadBalancer", externalTrafficPolicy: "Nearest" } } }, /externalTrafficPolicy/],
    ["a MAIL_FROM without an address", { config: { notification: { mailFrom: "Acme" } } }, /mailFrom/],
    ["a health port equal to a service's port", { probes: { grpcHealthPort: 50052 } }, /probes\.grpcHealthPort \(50052\) must differ from session\.port/],
    ["mTLS by cert-manager without an issuer", { tls: { certManager: { issuerRef: { name: "" } } } }, /tls\.certManager\.issuerRef\.name is required/],
    [
      "own TLS Secrets with one missing",
      { tls: { certManager: { enabled: false }, existingSecrets: { gateway: "gw", identity: "id", session: "se", oauth: "oa", organization: "or", admin: "ad" } } },
      /tls\.existingSecrets\.notification is required/,
    ],
    [
      "the internal-client certificate without cert-manager",
      {
        tls: {
          certManager: { enabled: false },
          existingSecrets: { gateway: "gw", identity: "id", session: "se", notification: "no", oauth: "oa", organization: "or", admin: "ad" },
          internalClient: { enabled: true },
        },
      },
      /tls\.internalClient\.enabled needs tls\.enabled and tls\.certManager\.enabled/,
    ],
    ["a TLS Secret name that is not a name", { tls: { certManager: { enabled: false }, existingSecrets: { gateway: "Gateway_TLS" } } }, /existingSecrets\.gateway/],
    ["tls.enabled as a string", { tls: { enabled: "false" } }, /tls\.enabled/],
    ["a certificate lifetime that is not a Go duration", { tls: { certManager: { duration: "90d" } } }, /tls\.certManager\.duration/],
    ["an ECDSA key of an RSA size", { tls: { certManager: { privateKey: { size: 2048 } } } }, /tls\.certManager\.privateKey\.size/],
    ["a NetworkPolicy peer with an unknown field", { networkPolicy: { gateway: { from: [{ namespace: "ingress-nginx" }] } } }, /networkPolicy\.gateway\.from/],
    ["an egress rule with a lower-case protocol", { networkPolicy: { egress: { extraRules: [{ ports: [{ port: 5432, protocol: "tcp" }] }] } } }, /protocol/],
    [
      "a component's egress rule with a lower-case protocol",
      { networkPolicy: { egress: { componentRules: { session: [{ ports: [{ port: 5432, protocol: "tcp" }] }] } } } },
      /protocol/,
    ],
    [
      "egress rules for a component the chart does not have",
      { networkPolicy: { egress: { componentRules: { database: [{ ports: [{ port: 5432 }] }] } } } },
      /componentRules|database|additional/,
    ],
    ["X-Forwarded-For named as a single-value header", { config: { clientIpHeaders: ["X-Forwarded-For"] } }, /config\.clientIpHeaders/],
    ["two client-IP headers in one item", { config: { clientIpHeaders: ["cf-connecting-ip,x-real-ip"] } }, /config\.clientIpHeaders/],
  ])("refuses %s", (_, values, message) => {
    expect(() => renderText(values)).toThrow(message);
  });

  it("refuses to render without config.baseUrl, saying what it is for", () => {
    expect(() => renderValuesText({ redis: REQUIRED.redis, tls: REQUIRED.tls })).toThrow(
      /config\.baseUrl is required: the public URL of the gateway without the base path, e\.g\. --set config\.baseUrl=https:\/\/auth\.example\.com\. Identity builds the links in verification, password-reset and delete-account mails from it/,
    );
    expect(() => renderValuesText({ config: { baseUrl: "" }, redis: REQUIRED.redis, tls: REQUIRED.tls })).toThrow(/config\.baseUrl is required/);
  });

  it("refuses several session replicas without Redis (a revoked session would stay valid on the others)", () => {
    const withoutRedis = { config: REQUIRED.config, tls: REQUIRED.tls };
    expect(() => renderValuesText(withoutRedis)).toThrow(/redis\.url is required when the session service runs more than one replica/);
    expect(() => renderValuesText(merge(withoutRedis, { session: { autoscaling: { enabled: false }, replicaCount: 2 } }))).toThrow(/redis\.url is required/);
    // One replica, or Redis from an existing Secret, renders.
    expect(() => renderValuesText(merge(withoutRedis, { session: { autoscaling: { enabled: false }, replicaCount: 1 } }))).not.toThrow();
    expect(() => renderValuesText(merge(withoutRedis, { secret: { existingSecret: "auth-secrets" } }))).not.toThrow();
  });
});

describe("Redis over TLS with an ACL user (the session cache is an authorisation input)", () => {
  const values = {
    redis: { url: "rediss://redis.example.internal:6380/0", username: "auth", password: "sentinel-redis-acl-password", tls: { caSecret: "redis-ca", caKey: "ca.pem" } },
  };
  const objects = render(values);
  const secretEnv = decoded(single(objects, "Secret"));
  const env = single(objects, "ConfigMap").data as Record<string, string>;

  it("renders objects that match the Kubernetes schemas", () => {
    expectSchemaValid(objects);
  });

  it("keeps the user and password in the Secret, and gives them only to the gateway and the session service", () => {
    expect(secretEnv).toMatchObject({ REDIS_URL: values.redis.url, REDIS_USERNAME: "auth", REDIS_PASSWORD: values.redis.password });
    expect(renderText(values)).not.toContain(values.redis.password);
    for (const name of NAMES) {
      const keys = [...envOf(containerOf(one(objects, "Deployment", name))).values()].flatMap((e) => e.valueFrom?.secretKeyRef?.key ?? []);
      expect(keys.includes("REDIS_PASSWORD"), name).toBe(name === "gateway" || name === "session");
    }
  });

  it("mounts the CA Secret's key into the gateway and session pods only, and both processes accept the result", () => {
    for (const name of NAMES) {
      const deployment = one(objects, "Deployment", name);
      const container = containerOf(deployment);
      const mount = container.volumeMounts?.find((m: { name: string }) => m.name === "redis-tls");
      const file = envOf(container).get("REDIS_TLS_CA_FILE")?.value;
      if (name !== "gateway" && name !== "session") {
        expect(mount, name).toBeUndefined();
        expect(file, name).toBeUndefined();
        continue;
      }
      expect(mount).toMatchObject({ mountPath: "/etc/auth-platform/redis-tls", readOnly: true });
      expect(file).toBe("/etc/auth-platform/redis-tls/ca.crt");
      expect(deployment.spec.template.spec.volumes).toContainEqual({
        name: "redis-tls",
        secret: { secretName: "redis-ca", items: [{ key: "ca.pem", path: "ca.crt" }], defaultMode: 288 },
      });
    }
    // The CA file exists only in the pod: the processes read their own environment with a readable one.
    const dir = mkdtempSync(join(tmpdir(), "chart-redis-ca-"));
    try {
      writeFileSync(join(dir, "ca.crt"), "CA");
      const of = (name: Component) => ({ ...componentEnv(one(objects, "Deployment", name), env, secretEnv), REDIS_TLS_CA_FILE: join(dir, "ca.crt") });
      const expected = { url: values.redis.url, username: "auth", password: values.redis.password, ca: "CA" };
      expect(gatewayConfig(of("gateway")).redis).toEqual(expected);
      expect(sessionConfig(of("session")).redis).toEqual(expected);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ["a CA for a plaintext redis:// URL", { redis: { url: "redis://redis:6379", tls: { caSecret: "redis-ca" } } }, /redis\.tls\.caSecret needs a rediss:\/\/ redis\.url/],
    ["a user without password", { redis: { username: "auth" } }, /redis\.username needs redis\.password/],
    ["credentials in the URL and apart", { redis: { url: "rediss://:pw@redis:6380", password: "other" } }, /redis\.url already holds credentials/],
    ["a CA Secret name that is not a name", { redis: { url: "rediss://redis:6380", tls: { caSecret: "Redis_CA" } } }, /caSecret/],
  ])("refuses %s", (_, override, message) => {
    expect(() => renderText(override)).toThrow(message);
  });
});

describe("the web app and the Ingress", () => {
  const objects = render();

  it("runs dist/web.js as non-root on a read-only root file system, with no secret and no certificate", () => {
    const deployment = one(objects, "Deployment", "web");
    const container = containerOf(deployment);
    expect(container.command).toEqual(["node", "dist/web.js"]);
    expect(container.securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    const env = envOf(container);
    expect([...env.values()].filter((e) => e.valueFrom)).toEqual([]);
    expect(env.has("GRPC_TLS_DIR")).toBe(false);
    expect(deployment.spec.template.spec.volumes.map((v: { name: string }) => v.name)).toEqual(["tmp"]);
  });

  it("listens on its port on every interface, passes the API on to the gateway's Service, and is probed on /healthz", () => {
    const container = containerOf(one(objects, "Deployment", "web"));
    const env = envOf(container);
    expect(env.get("WEB_PORT")?.value).toBe("8080");
    expect(env.get("WEB_HOST")?.value).toBe("0.0.0.0");
    const gatewayService = one(objects, "Service", "gateway").metadata.name;
    expect(env.get("AUTH_GATEWAY_URL")?.value).toBe(`http://${gatewayService}.${RELEASE.namespace}.svc.cluster.local:3000`);
    // Its Prometheus metrics on their own port, like every process (METRICS_PORT, bound on WEB_HOST).
    expect(env.get("METRICS_PORT")?.value).toBe("9464");
    expect(container.ports).toEqual([
      { name: "http", containerPort: 8080, protocol: "TCP" },
      { name: "metrics", containerPort: 9464, protocol: "TCP" },
    ]);
    for (const probe of [container.readinessProbe, container.livenessProbe]) expect(probe.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(one(objects, "Service", "web").spec).toMatchObject({ type: "ClusterIP", ports: [{ name: "http", port: 8080, targetPort: "http" }] });
    expect(one(objects, "Service", "web").spec.clusterIP).toBeUndefined();
  });

  it("gives the web app the gateway's base path and the analytics path, in a form its server accepts", () => {
    const rendered = render({ config: { basePath: "/auth" }, web: { analyticsPath: "/_vercel/insights/script.js" } });
    const configMap = single(rendered, "ConfigMap").data as Record<string, string>;
    const web = componentEnv(one(rendered, "Deployment", "web"), configMap, {});
    // The ConfigMap's AUTH_BASE_PATH, the variable the gateway mounts its routes at.
    expect(web.AUTH_BASE_PATH).toBe(configMap.AUTH_BASE_PATH);
    expect(containerOf(one(rendered, "Deployment", "web")).envFrom).toEqual(containerOf(one(rendered, "Deployment", "gateway")).envFrom);
    expect(runtimeConfigFromEnv(web)).toEqual({ basePath: "/auth", analyticsPath: "/_vercel/insights/script.js" });
    // Unset: the default base path and no analytics script.
    const plain = componentEnv(one(objects, "Deployment", "web"), single(objects, "ConfigMap").data as Record<string, string>, {});
    expect(plain.WEB_ANALYTICS_PATH).toBeUndefined();
    expect(runtimeConfigFromEnv(plain)).toEqual({ basePath: "/api/auth" });
  });

  it("renders no Ingress unless enabled", () => {
    expect(ofKind(objects, "Ingress")).toEqual([]);
  });

  it("routes the base path to the gateway and the rest to the web app on one host, with optional TLS", () => {
    const values = {
      ingress: {
        enabled: true,
        className: "nginx",
        host: "auth.example.com",
        annotations: { "cert-manager.io/cluster-issuer": "letsencrypt" },
        tls: { enabled: true, secretName: "" },
      },
    };
    const rendered = render(values);
    expectSchemaValid(rendered);
    const ingress = single(rendered, "Ingress");
    expect(ingress.metadata.annotations).toEqual({ "cert-manager.io/cluster-issuer": "letsencrypt" });
    expect(ingress.spec.ingressClassName).toBe("nginx");
    expect(ingress.spec.tls).toEqual([{ hosts: ["auth.example.com"], secretName: `${ingress.metadata.name}-ingress-tls` }]);
    expect(ingress.spec.rules).toEqual([
      {
        host: "auth.example.com",
        http: {
          paths: [
            { path: "/api/auth", pathType: "Prefix", backend: { service: { name: one(rendered, "Service", "gateway").metadata.name, port: { name: "http" } } } },
            { path: "/", pathType: "Prefix", backend: { service: { name: one(rendered, "Service", "web").metadata.name, port: { name: "http" } } } },
          ],
        },
      },
    ]);
    const plain = single(render({ ingress: { enabled: true, host: "auth.example.com" }, config: { basePath: "/auth" } }), "Ingress");
    expect(plain.spec.tls).toBeUndefined();
    expect(plain.spec.rules[0].http.paths[0].path).toBe("/auth");
  });

  it("refuses an enabled Ingress without a host", () => {
    expect(() => render({ ingress: { enabled: true } })).toThrow(/ingress.host is required/);
  });

  it("deploys no web app when disabled, and the Ingress then serves the API path only", () => {
    const rendered = render({ web: { enabled: false }, ingress: { enabled: true, host: "auth.example.com" } });
    expect(rendered.filter((o) => componentOf(o) === "web")).toEqual([]);
    expect(single(rendered, "Ingress").spec.rules[0].http.paths.map((p: { path: string }) => p.path)).toEqual(["/api/auth"]);
  });

  it("admits the web app's HTTP like the gateway's, and lets it out to the gateway only (besides DNS and the extra rules)", () => {
    const restricted = render({ networkPolicy: { egress: { allowAll: false } } });
    const policy = ofKind(restricted, "NetworkPolicy").find((o) => componentOf(o) === "web")!;
    expect(policy.spec.ingress).toEqual([{ ports: [{ port: "http", protocol: "TCP" }] }, METRICS_RULE]);
    expect(policy.spec.egress).toEqual([
      {
        ports: [
          { port: 53, protocol: "UDP" },
          { port: 53, protocol: "TCP" },
        ],
      },
      { ports: [{ port: 3000, protocol: "TCP" }], to: [peerOf(restricted, "gateway")] },
    ]);
  });
});

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
