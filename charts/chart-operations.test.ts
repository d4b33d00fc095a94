// The chart's operations side: migrations as pre-install/pre-upgrade hook Jobs (pods never migrate),
// readiness probes on the services' own dependencies, metrics ports and Services, the ServiceMonitor;
// every object validated against the Kubernetes (and Prometheus Operator) schemas, default and full options.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { adminConfig } from "../services/admin/src/config.js";
import { identityConfig } from "../services/identity/src/config.js";
import { oauthConfig } from "../services/oauth/src/config.js";
import { ssoConfig } from "../services/sso/src/config.js";
import { notificationConfig } from "../services/notification/src/config.js";
import { organizationConfig } from "../services/organization/src/config.js";
import { sessionConfig } from "../services/session/src/config.js";
import { CHART_DIR, chartWith, type K8sObject, parseObjects, render as renderValues, renderText as renderValuesText, schemaProblem } from "./render.js";

const REQUIRED = {
  config: { baseUrl: "https://auth.example.com" },
  redis: { url: "redis://redis-master:6379/0" },
  tls: { certManager: { issuerRef: { name: "platform-ca", kind: "ClusterIssuer", group: "cert-manager.io" } } },
};
type Values = { [key: string]: unknown };
const isObject = (value: unknown): value is Values => typeof value === "object" && value !== null && !Array.isArray(value);
function merge(base: Values, override: Values): Values {
  const out: Values = { ...base };
  for (const [key, value] of Object.entries(override)) out[key] = isObject(out[key]) && isObject(value) ? merge(out[key] as Values, value) : value;
  return out;
}
const render = (values: Values = {}) => renderValues(merge(REQUIRED, values));

const SERVICES = ["identity", "session", "notification", "oauth", "organization", "admin", "sso"] as const;
const COMPONENTS = ["gateway", ...SERVICES] as const;
/** Every process with metrics: the components plus the web app's server. */
const WITH_WEB = [...COMPONENTS, "web"] as const;
const CONFIGS = {
  identity: identityConfig,
  session: sessionConfig,
  notification: notificationConfig,
  organization: organizationConfig,
  admin: adminConfig,
  oauth: oauthConfig,
  sso: ssoConfig,
};

const hookOf = (o: K8sObject) => o.metadata.annotations?.["helm.sh/hook"] as string | undefined;
const componentOf = (o: K8sObject) => o.metadata.labels?.["app.kubernetes.io/component"] as string | undefined;
const named = (objects: K8sObject[], kind: string, name: string) => {
  const found = objects.filter((o) => o.kind === kind && o.metadata.name === name);
  expect(found, `${kind} ${name}`).toHaveLength(1);
  return found[0]!;
};
const deploymentOf = (objects: K8sObject[], component: string) => named(objects, "Deployment", `auth-auth-platform-${component}`);
const containerOf = (o: K8sObject) => o.spec.template.spec.containers[0];
type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } };
const envOf = (container: { env?: EnvVar[] }) => new Map((container.env ?? []).map((e) => [e.name, e]));
const decoded = (secret: K8sObject) => Object.fromEntries(Object.entries(secret.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, "base64").toString()]));

/** The environment a container's process sees (the image sets NODE_ENV=production), secrets resolved from `secret`. */
function processEnv(container: { env?: EnvVar[] }, secret: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = { NODE_ENV: "production" };
  for (const e of container.env ?? []) {
    const ref = e.valueFrom?.secretKeyRef;
    if (ref) {
      if (secret[ref.key] !== undefined) out[e.name] = secret[ref.key]!;
      else expect(ref.optional, `${e.name} missing from the Secret`).toBe(true);
    } else if (e.value !== undefined) out[e.name] = e.value;
  }
  return out;
}

const expectSchemaValid = (objects: K8sObject[]) => expect(objects.map(schemaProblem).filter(Boolean)).toEqual([]);

describe("migrations as hook Jobs (default values)", () => {
  const objects = render();
  const jobs = objects.filter((o) => o.kind === "Job");
  const configMap = objects.find((o) => o.kind === "ConfigMap")!;
  const releaseSecret = named(objects, "Secret", "auth-auth-platform-secrets");
  const hookSecret = named(objects, "Secret", "auth-auth-platform-migrations");

  it("renders objects, hooks included, that match the Kubernetes schemas", () => {
    expectSchemaValid(objects);
  });

  it("runs one Job per service with a database, none for the gateway, before install and upgrade", () => {
    expect(jobs.map(componentOf).sort()).toEqual(SERVICES.map((s) => `${s}-migrate`).sort());
    for (const job of jobs) {
      expect(hookOf(job)).toBe("pre-install,pre-upgrade");
      expect(job.metadata.annotations!["helm.sh/hook-delete-policy"]).toBe("before-hook-creation,hook-succeeded");
      expect(job.spec.template.spec.restartPolicy).toBe("Never");
      expect(job.spec.backoffLimit).toBeGreaterThanOrEqual(1);
      expect(job.spec.activeDeadlineSeconds).toBeGreaterThan(0);
    }
  });

  it.each(SERVICES)("runs %s's own command with `migrate`, as non-root on a read-only root file system", (service) => {
    const job = named(objects, "Job", `auth-auth-platform-${service}-migrate`);
    const container = containerOf(job);
    expect(container.command).toEqual(containerOf(deploymentOf(objects, service)).command);
    expect(container.args).toEqual(["migrate"]);
    expect(job.spec.template.spec.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
    expect(container.securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } });
    expect(job.spec.template.spec.automountServiceAccountToken).toBe(false);
    expect(container.resources.limits.memory).toBeDefined();
  });

  it.each(SERVICES)("gives %s's Job a configuration its process accepts, without the ConfigMap (it does not exist yet)", (service) => {
    const job = named(objects, "Job", `auth-auth-platform-${service}-migrate`);
    const container = containerOf(job);
    expect(container.envFrom).toBeUndefined();
    const env = processEnv(container, decoded(hookSecret));
    for (const [key, value] of Object.entries(configMap.data as Record<string, string>)) expect(env[key], key).toBe(value);
    for (const e of container.env as EnvVar[]) if (e.valueFrom) expect(e.valueFrom.secretKeyRef?.name).toBe(hookSecret.metadata.name);
    const config = CONFIGS[service](env);
    expect(config.databaseUrl).toBe(decoded(releaseSecret)[`${service.toUpperCase()}_DATABASE_URL`]);
  });

  it("creates the hook Secret before the Jobs, with the release Secret's content (the same AUTH_SECRET), deleted once they succeeded", () => {
    expect(hookOf(hookSecret)).toBe("pre-install,pre-upgrade");
    expect(Number(hookSecret.metadata.annotations!["helm.sh/hook-weight"])).toBeLessThan(Math.min(...jobs.map((j) => Number(j.metadata.annotations!["helm.sh/hook-weight"]))));
    expect(hookSecret.metadata.annotations!["helm.sh/hook-delete-policy"]).toContain("hook-succeeded");
    expect(decoded(hookSecret)).toEqual(decoded(releaseSecret));
  });

  it.each(SERVICES)("starts %s's pods with MIGRATIONS=skip, and the gateway with no such setting", (service) => {
    expect(envOf(containerOf(deploymentOf(objects, service))).get("MIGRATIONS")?.value).toBe("skip");
    expect(envOf(containerOf(deploymentOf(objects, "gateway"))).has("MIGRATIONS")).toBe(false);
  });
});

describe("migrations with an existing Secret", () => {
  const objects = render({ secret: { existingSecret: "platform-secrets" } });

  it("creates no Secret at all and points the Jobs at the existing one", () => {
    expect(objects.filter((o) => o.kind === "Secret")).toEqual([]);
    for (const job of objects.filter((o) => o.kind === "Job")) {
      for (const e of containerOf(job).env as EnvVar[]) if (e.valueFrom) expect(e.valueFrom.secretKeyRef?.name).toBe("platform-secrets");
    }
  });
});

describe("migrations at start (migrations.job.enabled false)", () => {
  const objects = render({ migrations: { job: { enabled: false } } });

  it("renders no Job and no hook Secret, and the services migrate at start", () => {
    expect(objects.filter((o) => o.kind === "Job")).toEqual([]);
    expect(objects.filter((o) => hookOf(o)?.includes("pre-install"))).toEqual([]);
    for (const service of SERVICES) expect(envOf(containerOf(deploymentOf(objects, service))).get("MIGRATIONS")?.value).toBe("run");
  });
});

describe("probes", () => {
  const objects = render();

  it.each(SERVICES)("asks %s's readiness of its dependencies (health status `readiness`), its liveness of the process", (service) => {
    const container = containerOf(deploymentOf(objects, service));
    expect(container.readinessProbe.grpc).toEqual({ port: 8081, service: "readiness" });
    expect(container.livenessProbe.grpc).toEqual({ port: 8081 });
  });
});

describe("metrics", () => {
  const objects = render();

  it.each(WITH_WEB)("serve %s's metrics on METRICS_PORT, through a metrics Service of its own only", (component) => {
    const container = containerOf(deploymentOf(objects, component));
    expect(envOf(container).get("METRICS_PORT")?.value).toBe("9464");
    expect(container.ports).toContainEqual({ name: "metrics", containerPort: 9464, protocol: "TCP" });
    const service = named(objects, "Service", `auth-auth-platform-${component}-metrics`);
    expect(service.spec.clusterIP).toBe("None");
    expect(service.spec.ports).toEqual([{ name: "metrics", port: 9464, targetPort: "metrics", protocol: "TCP" }]);
    expect(service.spec.selector).toEqual(deploymentOf(objects, component).spec.selector.matchLabels);
    // The component's own Service (the gateway's and the web app's public ones) never carries the metrics port.
    const own = named(objects, "Service", `auth-auth-platform-${component}`);
    expect(own.spec.ports.map((p: { name: string }) => p.name)).not.toContain("metrics");
  });

  it("render no ServiceMonitor by default (its CRD may be missing)", () => {
    expect(objects.filter((o) => o.kind === "ServiceMonitor")).toEqual([]);
  });

  it("render nothing of metrics when turned off", () => {
    const off = render({ metrics: { enabled: false } });
    expect(off.filter((o) => o.metadata.labels?.["auth-platform/metrics"])).toEqual([]);
    for (const component of WITH_WEB) {
      const container = containerOf(deploymentOf(off, component));
      expect(envOf(container).has("METRICS_PORT")).toBe(false);
      expect(container.ports.map((p: { name: string }) => p.name)).not.toContain("metrics");
    }
  });
});

describe("with every option on (ServiceMonitor, restricted metrics peers, no autoscaling, own secret)", () => {
  const monitoring = { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "monitoring" } } };
  const objects = render({
    metrics: { port: 9100, from: [monitoring], serviceMonitor: { enabled: true, labels: { release: "kube-prometheus" }, interval: "15s", scrapeTimeout: "5s" } },
    networkPolicy: { egress: { allowAll: false }, healthProbeFrom: [{ ipBlock: { cidr: "10.0.0.0/16" } }] },
    tls: { internalClient: { enabled: true } },
    gateway: { autoscaling: { enabled: false }, pdb: { minAvailable: 1 } },
    topologySpreadConstraints: [{ maxSkew: 1, topologyKey: "topology.kubernetes.io/zone", whenUnsatisfiable: "ScheduleAnyway" }],
    secret: { existingSecret: "platform-secrets" },
  });

  it("renders objects, the ServiceMonitor included, that match their schemas", () => {
    expectSchemaValid(objects);
    expect(objects.some((o) => o.kind === "ServiceMonitor")).toBe(true);
  });

  it("scrapes every component's metrics Service through one ServiceMonitor", () => {
    const monitor = objects.find((o) => o.kind === "ServiceMonitor")!;
    expect(monitor.metadata.labels!.release).toBe("kube-prometheus");
    expect(monitor.spec.endpoints).toEqual([{ port: "metrics", path: "/metrics", interval: "15s", scrapeTimeout: "5s" }]);
    const selector = monitor.spec.selector.matchLabels as Record<string, string>;
    const selected = objects.filter((o) => o.kind === "Service" && Object.entries(selector).every(([k, v]) => o.metadata.labels?.[k] === v));
    expect(selected.map(componentOf).sort()).toEqual([...WITH_WEB].sort());
    for (const service of selected) expect(service.spec.ports).toEqual([{ name: "metrics", port: 9100, targetPort: "metrics", protocol: "TCP" }]);
  });

  it("admits scrapes of the metrics port from the configured peers only", () => {
    for (const component of WITH_WEB) {
      const policy = named(objects, "NetworkPolicy", `auth-auth-platform-${component}`);
      expect(policy.spec.ingress).toContainEqual({ ports: [{ port: "metrics", protocol: "TCP" }], from: [monitoring] });
    }
  });
});

describe("invalid operations values", () => {
  it.each([
    ["a metrics port equal to a service's port", { metrics: { port: 50051 } }, /metrics\.port \(50051\) must differ from identity\.port/],
    ["a metrics port equal to the health port", { metrics: { port: 8081 } }, /metrics\.port \(8081\) must differ/],
    ["a metrics port equal to the web app's port", { metrics: { port: 8080 } }, /metrics\.port \(8080\) must differ from web\.port/],
    ["a metrics port that is not a number", { metrics: { port: "metrics" } }, /metrics/],
    ["a scrape interval that is not a duration", { metrics: { serviceMonitor: { interval: "often" } } }, /interval/],
    ["an unknown migrations key", { migrations: { job: { enabled: true, image: "x" } } }, /image/],
  ])("refuses %s", (_, values, message) => {
    expect(() => renderValuesText(merge(REQUIRED, values))).toThrow(message);
  });
});

describe("NOTES.txt", () => {
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

  it("prints where the migrations ran and how to read their logs, where the metrics are, and how to turn traces on", () => {
    const notes = notesOf({});
    expect(notes).toMatch(/Database migrations ran in the pre-install\/pre-upgrade Jobs/);
    expect(notes).toMatch(/kubectl -n auth-system logs job\/auth-auth-platform-identity-migrate/);
    expect(notes).toMatch(/Prometheus metrics: port 9464 of every pod/);
    expect(notes).toMatch(/set metrics\.serviceMonitor\.enabled=true/);
    expect(notes).toMatch(/OTEL_EXPORTER_OTLP_ENDPOINT/);
    expect(notesOf({ metrics: { serviceMonitor: { enabled: true } } })).toMatch(/scraped through ServiceMonitor auth-auth-platform\./);
    expect(notesOf({ migrations: { job: { enabled: false } } })).toMatch(/run their database migrations when they start/);
  });
});

describe("topology spread", () => {
  it.each(COMPONENTS)("spreads %s's own pods over nodes and zones by default, as a preference", (component) => {
    const deployment = deploymentOf(render(), component);
    const constraints = deployment.spec.template.spec.topologySpreadConstraints as {
      topologyKey: string;
      whenUnsatisfiable: string;
      labelSelector: { matchLabels: Record<string, string> };
    }[];
    expect(constraints.map((c) => c.topologyKey)).toEqual(["kubernetes.io/hostname", "topology.kubernetes.io/zone"]);
    for (const c of constraints) {
      expect(c.whenUnsatisfiable).toBe("ScheduleAnyway");
      expect(c.labelSelector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    }
  });

  it("takes the operator's own constraints instead, or none when turned off", () => {
    const own = [{ maxSkew: 2, topologyKey: "topology.kubernetes.io/zone", whenUnsatisfiable: "DoNotSchedule", labelSelector: { matchLabels: { tier: "auth" } } }];
    expect(deploymentOf(render({ topologySpreadConstraints: own }), "session").spec.template.spec.topologySpreadConstraints).toEqual(own);
    expect(deploymentOf(render({ topologySpread: { enabled: false } }), "session").spec.template.spec.topologySpreadConstraints).toBeUndefined();
  });
});
