// The chart with default values (and the required config.baseUrl): helm lint, the objects per component,
// the configuration every process accepts, the Secret and the helm test pod.
import { NODE_FLAGS, PROCESS_ENV } from "../../deploy/processes.js";
import { CLOSE_LIMIT_MS } from "../../services/runtime/src/main.js";
import { gatewayConfig } from "../../gateway/src/config.js";
import { identityConfig } from "../../services/identity/src/config.js";
import { notificationConfig } from "../../services/notification/src/config.js";
import { organizationConfig } from "../../services/organization/src/config.js";
import { sessionConfig } from "../../services/session/src/config.js";
import { ssoConfig } from "../../services/sso/src/config.js";
import { describe, expect, it } from "vitest";
import { CHART_DIR, RELEASE, helm } from "../render.js";
import {
  type Component,
  COMPONENTS,
  NAMES,
  WITH_WEB,
  GRPC,
  ISSUER,
  REQUIRED,
  HEALTH_PORT,
  TLS_DIR,
  METRICS_PORT,
  SECRET_KEYS,
  render,
  without,
  podEnv,
  envOf,
  componentEnv,
  decoded,
  documentedNames,
  ofKind,
  componentOf,
  one,
  single,
  selects,
  containerOf,
  expectSchemaValid,
} from "./helpers.js";

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

  it("gives AUTH_SECRET to gateway, identity, session, sso (which seals client secrets) and notification (webhook secrets), and to no other", () => {
    const holders = NAMES.filter((name) => envOf(containerOf(one(objects, "Deployment", name))).has("AUTH_SECRET"));
    expect(holders).toEqual(["gateway", "identity", "session", "notification", "sso"]);
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
    const identityWiring = [
      "baseUrl",
      "databaseUrl",
      "sessionServiceUrl",
      "notificationServiceUrl",
      "organizationServiceUrl",
      "ssoServiceUrl",
      "secret",
      "grpc",
      "twoFactor",
      "passkeys",
    ] as const;
    expect(without(identityConfig(environment), identityWiring)).toEqual(without(identityConfig({}), identityWiring));
    // The relying party follows the base URL unless set.
    expect(identityConfig(environment).passkeys).toEqual({ rpId: "auth.example.com", rpName: "Auth Platform", origins: ["https://auth.example.com"] });
    // The two-factor keys derive from the secret (wiring); the rest is the code's default.
    const { keys: _keys, ...twoFactor } = identityConfig(environment).twoFactor;
    const { keys: _defaultKeys, ...defaultTwoFactor } = identityConfig({}).twoFactor;
    expect(twoFactor).toEqual(defaultTwoFactor);
    const notificationWiring = ["databaseUrl", "footerUrl", "production", "grpc", "secret"] as const;
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
    expect(ssoConfig(of("sso"))).toMatchObject({
      databaseUrl: "postgres://auth@postgresql:5432/sso",
      secret: secretEnv.AUTH_SECRET,
      baseUrl: "https://auth.example.com/api/auth",
      organizationServiceUrl: env.ORGANIZATION_SERVICE_URL,
      managerRoles: ["owner", "admin"],
      trustedDomains: [],
      allowPrivateAddresses: false,
      dns: { servers: [], timeoutMs: 3000 },
      claimTtlMs: 168 * 3_600_000,
    });
  });

  it("passes the sso settings to the sso service", () => {
    const objects = render({
      config: {
        sso: { managerRoles: ["owner"], trustedDomains: ["example.com"], dnsServers: ["1.1.1.1", "[2606:4700:4700::1111]:53"], dnsTimeoutMs: 1500, domainClaimTtlHours: 24 },
      },
    });
    const config = ssoConfig(componentEnv(one(objects, "Deployment", "sso"), single(objects, "ConfigMap").data, secretEnv));
    expect(config).toMatchObject({
      managerRoles: ["owner"],
      trustedDomains: ["example.com"],
      dns: { servers: ["1.1.1.1", "[2606:4700:4700::1111]:53"], timeoutMs: 1500 },
      claimTtlMs: 24 * 3_600_000,
    });
  });

  it("uses only variable names from docs/configuration.md", () => {
    const documented = documentedNames();
    const containerNames = WITH_WEB.flatMap((name) => [...envOf(containerOf(one(objects, "Deployment", name))).keys()]);
    // Variables only set by non-default values: the client-IP settings and the mTLS opt-out.
    const optional = render({
      config: { trustedProxies: ["10.0.0.0/8"], clientIpHeaders: ["x-real-ip"], sso: { managerRoles: ["owner"], trustedDomains: ["*"], dnsServers: ["1.1.1.1"] } },
      tls: { enabled: false },
    });
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

describe("termination", () => {
  it("keeps each pod serving while it leaves its Service's endpoints, then leaves the close its whole limit", () => {
    const objects = render();
    for (const name of WITH_WEB) {
      const pod = one(objects, "Deployment", name).spec.template.spec;
      expect(containerOf(one(objects, "Deployment", name)).lifecycle, name).toEqual({ preStop: { exec: { command: ["sleep", "5"] } } });
      // The sleep counts within the grace period; the process's own close limit must fit in what is left.
      expect(pod.terminationGracePeriodSeconds - 5, name).toBeGreaterThanOrEqual(CLOSE_LIMIT_MS / 1000);
    }
    const none = render({ preStopSleepSeconds: 0 });
    for (const name of WITH_WEB) expect(containerOf(one(none, "Deployment", name)).lifecycle, name).toBeUndefined();
  });
});
