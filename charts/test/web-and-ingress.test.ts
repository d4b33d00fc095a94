// The web app's Deployment and the Ingress.
import { runtimeConfigFromEnv } from "../../web/server/runtime-config.js";
import { describe, expect, it } from "vitest";
import { RELEASE } from "../render.js";
import { METRICS_RULE, render, envOf, componentEnv, ofKind, componentOf, one, single, containerOf, expectSchemaValid, peerOf } from "./helpers.js";

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
