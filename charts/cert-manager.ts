// Offline validation of the cert-manager objects the chart renders (cert-manager.io/v1 Certificate and
// Issuer). kubernetes-models carries no cert-manager schemas, so this checks the fields the chart uses
// against cert-manager's v1 API reference: known fields only (the CRDs prune or reject the others),
// their types, and the enums and formats cert-manager's webhook enforces.

type Obj = { [key: string]: unknown };
const isObj = (value: unknown): value is Obj => typeof value === "object" && value !== null && !Array.isArray(value);

/** Key usages cert-manager accepts (KeyUsage in cert-manager.io/v1). */
const KEY_USAGES = new Set([
  "signing",
  "digital signature",
  "content commitment",
  "key encipherment",
  "key agreement",
  "data encipherment",
  "cert sign",
  "crl sign",
  "encipher only",
  "decipher only",
  "any",
  "server auth",
  "client auth",
  "code signing",
  "email protection",
  "s/mime",
  "ipsec end system",
  "ipsec tunnel",
  "ipsec user",
  "timestamping",
  "ocsp signing",
  "microsoft sgc",
  "netscape sgc",
]);
const CERTIFICATE_FIELDS = new Set([
  "secretName",
  "secretTemplate",
  "commonName",
  "dnsNames",
  "uris",
  "ipAddresses",
  "emailAddresses",
  "otherNames",
  "subject",
  "literalSubject",
  "duration",
  "renewBefore",
  "renewBeforePercentage",
  "usages",
  "privateKey",
  "issuerRef",
  "isCA",
  "keystores",
  "encodeUsagesInRequest",
  "revisionHistoryLimit",
  "additionalOutputFormats",
  "nameConstraints",
]);
const PRIVATE_KEY_FIELDS = new Set(["algorithm", "size", "encoding", "rotationPolicy"]);
const ISSUER_TYPES = new Set(["selfSigned", "ca", "acme", "vault", "venafi"]);
const DNS_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const GO_DURATION = /^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/;

function strings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function certificateProblems(spec: Obj): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(spec)) if (!CERTIFICATE_FIELDS.has(key)) problems.push(`unknown field spec.${key}`);
  if (typeof spec.secretName !== "string" || !DNS_NAME.test(spec.secretName)) problems.push("spec.secretName must be a Secret name");
  for (const key of ["dnsNames", "uris", "ipAddresses", "emailAddresses", "usages"]) {
    if (key in spec && !strings(spec[key])) problems.push(`spec.${key} must be a list of strings`);
  }
  if (![spec.commonName, spec.dnsNames, spec.uris, spec.ipAddresses, spec.emailAddresses].some((v) => (Array.isArray(v) ? v.length > 0 : Boolean(v)))) {
    problems.push("spec needs at least one of commonName, dnsNames, uris, ipAddresses, emailAddresses");
  }
  if (strings(spec.uris)) for (const uri of spec.uris) if (!URL.canParse(uri)) problems.push(`spec.uris: ${uri} is not a URI`);
  if (strings(spec.usages)) for (const usage of spec.usages) if (!KEY_USAGES.has(usage)) problems.push(`spec.usages: unknown usage ${usage}`);
  for (const key of ["duration", "renewBefore"]) {
    if (key in spec && (typeof spec[key] !== "string" || !GO_DURATION.test(spec[key] as string))) problems.push(`spec.${key} must be a Go duration`);
  }
  if ("isCA" in spec && typeof spec.isCA !== "boolean") problems.push("spec.isCA must be a boolean");
  if ("secretTemplate" in spec) {
    const template = spec.secretTemplate;
    if (!isObj(template) || Object.keys(template).some((k) => k !== "labels" && k !== "annotations")) problems.push("spec.secretTemplate takes labels and annotations");
  }
  if ("privateKey" in spec) {
    const key = spec.privateKey;
    if (!isObj(key)) problems.push("spec.privateKey must be an object");
    else {
      for (const field of Object.keys(key)) if (!PRIVATE_KEY_FIELDS.has(field)) problems.push(`unknown field spec.privateKey.${field}`);
      if ("algorithm" in key && !["RSA", "ECDSA", "Ed25519"].includes(key.algorithm as string)) problems.push("spec.privateKey.algorithm: RSA, ECDSA or Ed25519");
      if ("encoding" in key && !["PKCS1", "PKCS8"].includes(key.encoding as string)) problems.push("spec.privateKey.encoding: PKCS1 or PKCS8");
      if ("rotationPolicy" in key && !["Never", "Always"].includes(key.rotationPolicy as string)) problems.push("spec.privateKey.rotationPolicy: Never or Always");
      if ("size" in key && !Number.isInteger(key.size)) problems.push("spec.privateKey.size must be an integer");
      if (key.algorithm === "ECDSA" && "size" in key && ![256, 384, 521].includes(key.size as number)) problems.push("spec.privateKey.size: ECDSA takes 256, 384 or 521");
    }
  }
  const ref = spec.issuerRef;
  if (!isObj(ref) || typeof ref.name !== "string" || ref.name === "") problems.push("spec.issuerRef.name is required");
  else {
    for (const field of Object.keys(ref)) if (!["name", "kind", "group"].includes(field)) problems.push(`unknown field spec.issuerRef.${field}`);
    if ("kind" in ref && typeof ref.kind !== "string") problems.push("spec.issuerRef.kind must be a string");
  }
  return problems;
}

function issuerProblems(spec: Obj): string[] {
  const types = Object.keys(spec).filter((key) => ISSUER_TYPES.has(key));
  const problems = Object.keys(spec)
    .filter((key) => !ISSUER_TYPES.has(key))
    .map((key) => `unknown field spec.${key}`);
  if (types.length !== 1) problems.push(`spec needs exactly one issuer type (${[...ISSUER_TYPES].join(", ")})`);
  if ("ca" in spec && (!isObj(spec.ca) || typeof spec.ca.secretName !== "string")) problems.push("spec.ca.secretName is required");
  if ("selfSigned" in spec && !isObj(spec.selfSigned)) problems.push("spec.selfSigned must be an object");
  return problems;
}

/** Problems of a cert-manager.io/v1 object (empty when valid), or undefined for any other kind. */
export function certManagerProblems(obj: { kind: string; metadata?: { name?: string }; spec?: unknown }): string[] | undefined {
  if (obj.kind !== "Certificate" && obj.kind !== "Issuer" && obj.kind !== "ClusterIssuer") return undefined;
  const problems: string[] = [];
  if (typeof obj.metadata?.name !== "string" || !DNS_NAME.test(obj.metadata.name)) problems.push("metadata.name must be a DNS subdomain");
  if (!isObj(obj.spec)) return [...problems, "spec is required"];
  return [...problems, ...(obj.kind === "Certificate" ? certificateProblems(obj.spec) : issuerProblems(obj.spec))];
}
