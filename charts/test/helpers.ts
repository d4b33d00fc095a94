// What the chart suites share: the components and their wiring, the required values, rendering with them,
// and readers of the rendered objects (each suite in this folder covers one kind of template).
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import { type K8sObject, schemaProblem, render as renderValues, renderText as renderValuesText } from "../render.js";

export type Component = "gateway" | "identity" | "session" | "notification" | "oauth" | "organization" | "admin" | "sso";

/** Each component's default port, the variable it listens on, and the variable others reach it by. */
export const COMPONENTS: Record<Component, { port: number; portEnv: string; urlEnv?: string; main: string }> = {
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
  sso: { port: 50057, portEnv: "SSO_PORT", urlEnv: "SSO_SERVICE_URL", main: "dist/sso.js" },
};
export const NAMES = Object.keys(COMPONENTS) as Component[];
/** The platform's processes plus the web app, which every default install deploys too (an HTTP server, no mTLS). */
export const WITH_WEB: (Component | "web")[] = [...NAMES, "web"];
export const GRPC = NAMES.filter((name) => name !== "gateway");

/**
 * The values the chart requires: the public URL of the gateway, Redis (several session replicas) and the
 * cert-manager issuer of the mTLS certificates.
 */
export const ISSUER = { name: "platform-ca", kind: "ClusterIssuer", group: "cert-manager.io" };
export const REQUIRED = {
  config: { baseUrl: "https://auth.example.com" },
  redis: { url: "redis://redis-master:6379/0" },
  tls: { certManager: { issuerRef: ISSUER } },
};
/** GRPC_HEALTH_PORT by default, and where the certificates are mounted (GRPC_TLS_DIR). */
export const HEALTH_PORT = 8081;
export const TLS_DIR = "/etc/auth-platform/tls";
/** METRICS_PORT by default, and the NetworkPolicy rule admitting scrapes of it (from any source by default). */
export const METRICS_PORT = 9464;
export const METRICS_RULE = { ports: [{ port: "metrics", protocol: "TCP" }] };
/** Who calls whom (the call graph of docs/adr/0021-call-graph-deadlines-and-errors.md): the callers each service's NetworkPolicy admits. */
export const CALLERS: Record<Component, Component[]> = {
  gateway: [],
  identity: ["gateway", "organization", "admin", "oauth", "sso"],
  session: ["gateway", "identity", "organization", "admin"],
  notification: ["gateway", "identity", "session", "organization", "admin"],
  organization: ["gateway", "identity", "sso"],
  admin: ["gateway"],
  oauth: ["gateway"],
  sso: ["gateway", "identity"],
};
/** The secret keys each process reads, with whether the key may be missing. */
export const SECRET_KEYS: Record<Component, Record<string, boolean>> = {
  gateway: { AUTH_SECRET: false, REDIS_URL: true, REDIS_USERNAME: true, REDIS_PASSWORD: true },
  identity: { AUTH_SECRET: false, IDENTITY_DATABASE_URL: false, IDENTITY_TWO_FACTOR_KEYS: true },
  session: { AUTH_SECRET: false, SESSION_DATABASE_URL: false, REDIS_URL: true, REDIS_USERNAME: true, REDIS_PASSWORD: true },
  notification: { AUTH_SECRET: false, NOTIFICATION_DATABASE_URL: false, SMTP_URL: true },
  organization: { ORGANIZATION_DATABASE_URL: false },
  admin: { ADMIN_DATABASE_URL: false },
  sso: { AUTH_SECRET: false, SSO_DATABASE_URL: false },
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

export type Values = { [key: string]: unknown };
export const isObject = (value: unknown): value is Values => typeof value === "object" && value !== null && !Array.isArray(value);

/** `override` over `base`, objects merged key by key (null kept: helm reads it as "remove the default"). */
export function merge(base: Values, override: Values): Values {
  const out: Values = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const current = out[key];
    out[key] = isObject(current) && isObject(value) ? merge(current, value) : value;
  }
  return out;
}

/** Renders with the required values and then `values` over them. */
export const render = (values: Values = {}) => renderValues(merge(REQUIRED, values));
export const renderText = (values: Values = {}) => renderValuesText(merge(REQUIRED, values));

/** A copy of `value` without `keys`. */
export const without = <T extends object>(value: T, keys: readonly (keyof T)[]) => Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key as keyof T)));

/** The environment a pod of the chart's image sees (its Dockerfile sets NODE_ENV=production). */
export const podEnv = (configMap: Record<string, string>, secret: Record<string, string>) => ({
  NODE_ENV: "production",
  GRPC_TLS_DIR: "/etc/auth-platform/tls",
  ...configMap,
  ...secret,
});

export type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } };

/** A container's own env, values and Secret references as given. */
export const envOf = (container: { env?: EnvVar[] }) => new Map((container.env ?? []).map((e) => [e.name, e]));

/**
 * The environment one component's process sees: the image's NODE_ENV, the ConfigMap, and its container's
 * env with secretKeyRefs resolved from `secret` (a missing optional key is left out, as the kubelet does).
 */
export function componentEnv(deployment: K8sObject, configMap: Record<string, string>, secret: Record<string, string>) {
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
export const decoded = (secret: K8sObject) =>
  Object.fromEntries(Object.entries((secret.data ?? {}) as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, "base64").toString()]));

/** Every variable name docs/configuration.md lists, with `A_MIN_X` / `_MAX_X` shorthand expanded. */
export function documentedNames(): Set<string> {
  const text = readFileSync(new URL("../../docs/configuration.md", import.meta.url), "utf8");
  const names = new Set<string>();
  let previous = "";
  for (const [, token = ""] of text.matchAll(/`(_?[A-Z][A-Z0-9_]*)`/g)) {
    const name = token.startsWith("_") ? expandSuffix(previous, token) : token;
    names.add(name);
    previous = name;
  }
  return names;
}

export function expandSuffix(previous: string, suffix: string): string {
  const tail = suffix.slice(1).split("_");
  return [...previous.split("_").slice(0, -tail.length), ...tail].join("_");
}

/** Hooks that run before install and upgrade (the migration Jobs and their Secret). */
export const isMigrationHook = (o: K8sObject) => (o.metadata.annotations?.["helm.sh/hook"] ?? "").includes("pre-install");
export const isMetricsService = (o: K8sObject) => o.metadata.labels?.["auth-platform/metrics"] === "true";
/** The release's own objects of a kind; the migration hooks and the metrics Services are checked on their own. */
export const ofKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind && !isMigrationHook(o) && !isMetricsService(o));
export const componentOf = (o: K8sObject) => o.metadata.labels?.["app.kubernetes.io/component"];

/** The one object of a kind for a component; fails the test when there is not exactly one. */
export function one(objects: K8sObject[], kind: string, component: Component | "web"): K8sObject {
  const found = ofKind(objects, kind).filter((o) => componentOf(o) === component);
  expect(found, `${kind} of ${component}`).toHaveLength(1);
  return found[0] as K8sObject;
}

export function single(objects: K8sObject[], kind: string): K8sObject {
  const found = ofKind(objects, kind);
  expect(found, kind).toHaveLength(1);
  return found[0] as K8sObject;
}

/** Whether every label of a selector is on the pod. */
export const selects = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([key, value]) => labels[key] === value);

export function containerOf(deployment: K8sObject) {
  const containers = deployment.spec.template.spec.containers;
  expect(containers).toHaveLength(1);
  return containers[0];
}

export function expectSchemaValid(objects: K8sObject[]) {
  expect(objects.length).toBeGreaterThan(0);
  expect(objects.map(schemaProblem).filter(Boolean)).toEqual([]);
}

/** A component's pod labels as its Deployment renders them. */
export const podLabels = (objects: K8sObject[], name: Component | "web") => one(objects, "Deployment", name).spec.template.metadata.labels as Record<string, string>;
/** The peer that admits one component's pods (same namespace), as the chart writes it. */
export const peerOf = (objects: K8sObject[], name: Component | "web") => ({ podSelector: { matchLabels: one(objects, "Deployment", name).spec.selector.matchLabels } });
/** The container port a NetworkPolicy port (named or numbered) stands for. */
export function containerPortOf(deployment: K8sObject, port: string | number): number | undefined {
  const ports = containerOf(deployment).ports as { name: string; containerPort: number }[];
  return typeof port === "number" ? ports.find((p) => p.containerPort === port)?.containerPort : ports.find((p) => p.name === port)?.containerPort;
}

/** The NetworkPolicy of a component, after checking that it selects that component's pods and no other. */
export function policyOf(objects: K8sObject[], name: Component, present: Component[] = NAMES): K8sObject {
  const policy = one(objects, "NetworkPolicy", name);
  for (const other of present) {
    expect(selects(policy.spec.podSelector.matchLabels, podLabels(objects, other)), `${name}'s policy on ${other}`).toBe(other === name);
  }
  return policy;
}
