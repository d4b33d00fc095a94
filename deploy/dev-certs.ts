/**
 * The development CA: one certificate authority and one certificate per workload, laid out as
 * `<root>/<name>/{ca.crt,tls.crt,tls.key}` (the cert-manager Secret layout GRPC_TLS_DIR expects).
 * `make dev`, the benchmark and the test platform all get their certificates here.
 *
 * Certificates are ECDSA P-256, made with @peculiar/x509 over Node's WebCrypto, so no openssl binary is
 * needed. Each carries the URI SAN `spiffe://auth-platform/<name>` (the workload identity the services
 * authorize by); a service's also carries the DNS SAN `<name>`, which its clients verify.
 *
 * ensureDevCertificates reuses what is on disk while it is valid for another day and was issued by the CA
 * on disk; anything missing, expiring or from another CA is issued again (a new CA reissues everything).
 */
import { X509Certificate as NodeCertificate } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as x509 from "@peculiar/x509";
import { spiffeId } from "@auth-platform/runtime/grpc-access";

const webcrypto = globalThis.crypto;
x509.cryptoProvider.set(webcrypto);

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const DAY_MS = 86_400_000;
/** Reissue when less than this much validity is left, so a running dev stack never sees one expire. */
const RENEW_BEFORE_MS = DAY_MS;

export interface CertificateAuthority {
  certPem: string;
  keyPem: string;
}

export interface WorkloadCertificate {
  certPem: string;
  keyPem: string;
}

export interface IssueOptions {
  /** Validity in days (default: CA 3650, workloads 365). */
  days?: number;
  /** Serve as a gRPC server too (DNS SAN = name, serverAuth); clients (gateway, internal-client) do not. */
  server?: boolean;
  /** The URI SAN (default: the workload's SPIFFE ID). */
  uri?: string;
  /** Leave the SPIFFE ID out (tests: a certificate of our CA that names no workload). */
  noIdentity?: boolean;
}

/** The workloads that serve gRPC (the others only call). */
export const SERVICE_WORKLOADS = new Set(["identity", "session", "notification", "organization", "admin", "oauth", "sso"]);

function toPem(der: ArrayBuffer, label: string): string {
  return x509.PemConverter.encode(der, label);
}

async function newKeys(): Promise<CryptoKeyPair> {
  return webcrypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"]);
}

async function privatePem(key: CryptoKey): Promise<string> {
  return toPem(await webcrypto.subtle.exportKey("pkcs8", key), "PRIVATE KEY");
}

function validity(days: number): { notBefore: Date; notAfter: Date } {
  // A minute in the past, so a clock a little behind still accepts a certificate made just now.
  return { notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + days * DAY_MS) };
}

export async function issueCertificateAuthority(options: { days?: number; name?: string } = {}): Promise<CertificateAuthority> {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: `CN=${options.name ?? "auth-platform development CA"}`,
    keys,
    signingAlgorithm: ALGORITHM,
    ...validity(options.days ?? 3650),
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString("pem"), keyPem: await privatePem(keys.privateKey) };
}

export async function issueWorkloadCertificate(ca: CertificateAuthority, name: string, options: IssueOptions = {}): Promise<WorkloadCertificate> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await webcrypto.subtle.importKey("pkcs8", x509.PemConverter.decodeFirst(ca.keyPem), ALGORITHM, false, ["sign"]);
  const keys = await newKeys();
  const server = options.server ?? SERVICE_WORKLOADS.has(name);
  const names: x509.JsonGeneralNames = [];
  if (server) names.push({ type: "dns", value: name });
  if (!options.noIdentity) names.push({ type: "url", value: options.uri ?? spiffeId(name) });
  const cert = await x509.X509CertificateGenerator.create({
    subject: `CN=${name}`,
    issuer: caCert.subject,
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: ALGORITHM,
    ...validity(options.days ?? 365),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension(server ? [x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth] : [x509.ExtendedKeyUsage.clientAuth]),
      ...(names.length ? [new x509.SubjectAlternativeNameExtension(names, false)] : []),
      await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey),
    ],
  });
  return { certPem: cert.toString("pem"), keyPem: await privatePem(keys.privateKey) };
}

/** Writes `<dir>/{ca.crt,tls.crt,tls.key}`, each file replaced atomically (write, then rename), key 0600. */
export function writeTlsDir(dir: string, ca: CertificateAuthority, workload: WorkloadCertificate): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const put = (file: string, content: string, mode: number) => {
    const temporary = join(dir, `.${file}.tmp`);
    writeFileSync(temporary, content, { mode });
    chmodSync(temporary, mode);
    renameSync(temporary, join(dir, file));
  };
  put("ca.crt", ca.certPem, 0o644);
  put("tls.key", workload.keyPem, 0o600);
  put("tls.crt", workload.certPem, 0o644);
}

function usable(certFile: string, issuer?: NodeCertificate): NodeCertificate | undefined {
  if (!existsSync(certFile)) return undefined;
  try {
    const cert = new NodeCertificate(readFileSync(certFile));
    if (Date.parse(cert.validTo) - Date.now() < RENEW_BEFORE_MS) return undefined;
    if (issuer && !(cert.checkIssued(issuer) && cert.verify(issuer.publicKey))) return undefined;
    return cert;
  } catch {
    return undefined;
  }
}

/**
 * Makes sure `<root>/<name>/` holds a valid certificate for each workload, issued by the CA kept in
 * `<root>/ca/` (created on first use). Returns each workload's directory (its GRPC_TLS_DIR).
 */
export async function ensureDevCertificates(root: string, workloads: readonly string[]): Promise<Record<string, string>> {
  const caDir = join(root, "ca");
  let caCert = usable(join(caDir, "ca.crt"));
  let ca: CertificateAuthority;
  if (caCert && existsSync(join(caDir, "ca.key"))) {
    ca = { certPem: readFileSync(join(caDir, "ca.crt"), "utf8"), keyPem: readFileSync(join(caDir, "ca.key"), "utf8") };
  } else {
    ca = await issueCertificateAuthority();
    mkdirSync(caDir, { recursive: true, mode: 0o700 });
    writeFileSync(join(caDir, "ca.key"), ca.keyPem, { mode: 0o600 });
    writeFileSync(join(caDir, "ca.crt"), ca.certPem);
    caCert = new NodeCertificate(ca.certPem);
  }
  const dirs: Record<string, string> = {};
  for (const name of workloads) {
    const dir = join(root, name);
    dirs[name] = dir;
    const current = usable(join(dir, "tls.crt"), caCert);
    const caMatches = existsSync(join(dir, "ca.crt")) && readFileSync(join(dir, "ca.crt"), "utf8") === ca.certPem;
    if (current && caMatches && existsSync(join(dir, "tls.key"))) continue;
    writeTlsDir(dir, ca, await issueWorkloadCertificate(ca, name));
  }
  return dirs;
}
