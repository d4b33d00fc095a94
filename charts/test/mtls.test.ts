// The mTLS certificates: cert-manager Certificates, the self-signed CA bootstrap, Secrets of your own,
// and mTLS turned off.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CHART_DIR, type K8sObject, RELEASE, chartWith, parseObjects, renderText as renderValuesText } from "../render.js";
import { NAMES, GRPC, ISSUER, REQUIRED, TLS_DIR, type Values, merge, render, envOf, ofKind, componentOf, one, containerOf, expectSchemaValid } from "./helpers.js";

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
  const secrets = { gateway: "gw-tls", identity: "id-tls", session: "se-tls", notification: "no-tls", oauth: "oa-tls", organization: "or-tls", admin: "ad-tls", sso: "ss-tls" };
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
