// The Secret: AUTH_SECRET kept across upgrades, and the Redis credentials and CA over TLS.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gatewayConfig } from "../../gateway/src/config.js";
import { sessionConfig } from "../../services/session/src/config.js";
import { describe, expect, it } from "vitest";
import { CHART_DIR, chartWith, parseObjects, renderText as renderValuesText } from "../render.js";
import { type Component, NAMES, REQUIRED, type Values, merge, render, renderText, envOf, componentEnv, decoded, one, single, containerOf, expectSchemaValid } from "./helpers.js";

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

describe("Redis Cluster and Sentinel (docs/adr/0080-redis-cluster-and-sentinel.md)", () => {
  const only = (name: Component) => name === "gateway" || name === "session";

  it("gives a cluster's nodes to the gateway and the session service only, which both read a cluster from them", () => {
    const values = { redis: { url: "", clusterNodes: "redis-0.redis:6379,redis-1.redis:6379", password: "cluster-acl-password", tls: { enabled: true } } };
    const objects = render(values);
    expectSchemaValid(objects);
    const env = single(objects, "ConfigMap").data as Record<string, string>;
    const secretEnv = decoded(single(objects, "Secret"));
    expect(secretEnv.REDIS_URL).toBeUndefined();
    for (const name of NAMES) {
      const container = envOf(containerOf(one(objects, "Deployment", name)));
      expect(container.get("REDIS_CLUSTER_NODES")?.value, name).toBe(only(name) ? values.redis.clusterNodes : undefined);
      expect(container.get("REDIS_TLS")?.value, name).toBe(only(name) ? "true" : undefined);
    }
    const expected = {
      cluster: [
        { host: "redis-0.redis", port: 6379 },
        { host: "redis-1.redis", port: 6379 },
      ],
      tls: true,
      password: values.redis.password,
    };
    expect(gatewayConfig(componentEnv(one(objects, "Deployment", "gateway"), env, secretEnv)).redis).toEqual(expected);
    expect(sessionConfig(componentEnv(one(objects, "Deployment", "session"), env, secretEnv)).redis).toEqual(expected);
  });

  it("gives the sentinels and the primary's name to the gateway and the session service, which both read Sentinel from them", () => {
    const values = { redis: { url: "", sentinels: "sentinel-0:26379, sentinel-1:26379", sentinelName: "auth" } };
    const objects = render(values);
    expectSchemaValid(objects);
    const env = single(objects, "ConfigMap").data as Record<string, string>;
    const secretEnv = decoded(single(objects, "Secret"));
    for (const name of NAMES) {
      const container = envOf(containerOf(one(objects, "Deployment", name)));
      expect(container.get("REDIS_SENTINELS")?.value, name).toBe(only(name) ? values.redis.sentinels : undefined);
      expect(container.get("REDIS_SENTINEL_NAME")?.value, name).toBe(only(name) ? "auth" : undefined);
    }
    const expected = {
      sentinel: {
        nodes: [
          { host: "sentinel-0", port: 26379 },
          { host: "sentinel-1", port: 26379 },
        ],
        name: "auth",
      },
    };
    expect(gatewayConfig(componentEnv(one(objects, "Deployment", "gateway"), env, secretEnv)).redis).toEqual(expected);
    expect(sessionConfig(componentEnv(one(objects, "Deployment", "session"), env, secretEnv)).redis).toEqual(expected);
  });

  it("lets a cluster stand for redis.url where several session replicas need a shared cache", () => {
    expect(() => renderText({ redis: { url: "", clusterNodes: "redis-0:6379" }, session: { replicaCount: 3 } })).not.toThrow();
    expect(() => renderText({ redis: { url: "" }, session: { replicaCount: 3 } })).toThrow(/redis\.url is required/);
  });

  it.each([
    ["a URL and a cluster", { redis: { clusterNodes: "redis-0:6379" } }, /redis\.url, redis\.clusterNodes: set one of them/],
    [
      "a cluster and Sentinel",
      { redis: { url: "", clusterNodes: "redis-0:6379", sentinels: "s-0:26379", sentinelName: "auth" } },
      /redis\.clusterNodes, redis\.sentinels: set one/,
    ],
    ["sentinels without the primary's name", { redis: { url: "", sentinels: "s-0:26379" } }, /redis\.sentinelName is required/],
    ["redis.tls.enabled beside a URL", { redis: { tls: { enabled: true } } }, /with redis\.url, TLS is said by rediss:\/\//],
    ["a CA for a plaintext cluster", { redis: { url: "", clusterNodes: "redis-0:6379", tls: { caSecret: "redis-ca" } } }, /redis\.tls\.caSecret needs redis\.tls\.enabled/],
    ["a node that is no host:port", { redis: { url: "", clusterNodes: "redis-0" } }, /clusterNodes/],
  ])("refuses %s", (_, override, message) => {
    expect(() => renderText(override)).toThrow(message);
  });
});
