// The NetworkPolicies: who may reach each component, and whom it may reach (the call graph).
import { describe, expect, it } from "vitest";
import {
  type Component,
  COMPONENTS,
  NAMES,
  WITH_WEB,
  GRPC,
  HEALTH_PORT,
  METRICS_RULE,
  CALLERS,
  render,
  ofKind,
  componentOf,
  one,
  single,
  selects,
  expectSchemaValid,
  podLabels,
  peerOf,
  containerPortOf,
  policyOf,
} from "./helpers.js";

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
    gateway: ["identity", "session", "notification", "oauth", "organization", "admin", "sso"],
    identity: ["session", "notification", "organization", "sso"],
    session: ["notification"],
    notification: [],
    organization: ["identity", "session", "notification"],
    admin: ["identity", "session", "notification"],
    oauth: ["identity"],
    sso: ["identity", "organization"],
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
    expect(ports("gateway")).toEqual([53, 53, 50051, 50052, 50053, 50054, 50055, 50057]);
    expect(ports("identity")).toEqual([53, 53, 50052, 50054, 50057]);
  });

  it("drops the admin service, and the bootstrap Job, from the policies when it is disabled", () => {
    const withoutAdmin = render({ admin: { enabled: false }, adminBootstrap: { enabled: true, email: "ops@example.com" }, networkPolicy: { egress: { allowAll: false } } });
    const present = NAMES.filter((name) => name !== "admin");
    expect(ofKind(withoutAdmin, "NetworkPolicy").map(componentOf).sort()).toEqual([...present, "web"].sort());
    expect(withoutAdmin.filter((o) => o.kind === "Job" && componentOf(o) === "admin-bootstrap")).toEqual([]);
    expect(policyOf(withoutAdmin, "identity", present).spec.ingress[0].from).toEqual(
      ["gateway", "organization", "oauth", "sso"].map((caller) => peerOf(withoutAdmin, caller as Component)),
    );
  });

  it("renders no NetworkPolicy when turned off", () => {
    expect(ofKind(render({ networkPolicy: { enabled: false } }), "NetworkPolicy")).toEqual([]);
  });
});
