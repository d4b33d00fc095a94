/** The development CA: certificates made once, reused, and reissued when missing, expiring or foreign. */
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensureDevCertificates, issueCertificateAuthority, issueWorkloadCertificate, writeTlsDir } from "./dev-certs.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "dev-certs-test-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const read = (name: string, file: string) => readFileSync(join(root, name, file), "utf8");

describe("ensureDevCertificates", () => {
  it("issues one certificate per workload with its identity, signed by one CA, the key readable by its owner only", async () => {
    const dirs = await ensureDevCertificates(root, ["session", "gateway"]);
    expect(dirs).toEqual({ session: join(root, "session"), gateway: join(root, "gateway") });
    const ca = new X509Certificate(read("session", "ca.crt"));
    const session = new X509Certificate(read("session", "tls.crt"));
    const gateway = new X509Certificate(read("gateway", "tls.crt"));
    expect(session.subjectAltName).toBe("DNS:session, URI:spiffe://auth-platform/session");
    expect(gateway.subjectAltName).toBe("URI:spiffe://auth-platform/gateway");
    expect(session.verify(ca.publicKey) && gateway.verify(ca.publicKey)).toBe(true);
    expect(ca.ca).toBe(true);
    expect(session.ca).toBe(false);
    expect(session.publicKey.asymmetricKeyDetails).toMatchObject({ namedCurve: "prime256v1" });
    expect(statSync(join(root, "session", "tls.key")).mode & 0o777).toBe(0o600);
    expect(statSync(join(root, "ca", "ca.key")).mode & 0o777).toBe(0o600);
  });

  it("reuses what is on disk, and reissues a missing or expiring certificate only", async () => {
    await ensureDevCertificates(root, ["session", "gateway"]);
    const before = { ca: read("session", "ca.crt"), session: read("session", "tls.crt"), gateway: read("gateway", "tls.crt") };
    await ensureDevCertificates(root, ["session", "gateway"]);
    expect(read("session", "tls.crt")).toBe(before.session);
    expect(read("gateway", "tls.crt")).toBe(before.gateway);

    unlinkSync(join(root, "session", "tls.crt"));
    const ca = { certPem: before.ca, keyPem: readFileSync(join(root, "ca", "ca.key"), "utf8") };
    writeTlsDir(join(root, "gateway"), ca, await issueWorkloadCertificate(ca, "gateway", { days: 0 }));
    await ensureDevCertificates(root, ["session", "gateway"]);
    expect(read("session", "tls.crt")).not.toBe(before.session);
    expect(read("session", "ca.crt")).toBe(before.ca);
    expect(Date.parse(new X509Certificate(read("gateway", "tls.crt")).validTo)).toBeGreaterThan(Date.now() + 300 * 86_400_000);
  });

  it("reissues a certificate from another CA, and everything when the CA is gone", async () => {
    await ensureDevCertificates(root, ["session"]);
    const firstCa = read("session", "ca.crt");
    const other = await issueCertificateAuthority({ name: "someone else" });
    writeTlsDir(join(root, "session"), other, await issueWorkloadCertificate(other, "session"));
    await ensureDevCertificates(root, ["session"]);
    expect(read("session", "ca.crt")).toBe(firstCa);
    expect(new X509Certificate(read("session", "tls.crt")).verify(new X509Certificate(firstCa).publicKey)).toBe(true);

    rmSync(join(root, "ca"), { recursive: true });
    await ensureDevCertificates(root, ["session"]);
    const secondCa = read("session", "ca.crt");
    expect(secondCa).not.toBe(firstCa);
    expect(new X509Certificate(read("session", "tls.crt")).verify(new X509Certificate(secondCa).publicKey)).toBe(true);
  });
});
