/**
 * A SAML 2.0 identity provider for the tests, built with samlify like our service provider: it reads the
 * AuthnRequest our SP redirects to it, and answers with a response whose assertion it signs with an RSA key
 * pair generated in the test. It can also produce every attack the SP must refuse: an unsigned or wrongly
 * signed assertion, signature wrapping, a wrong audience, recipient or destination, an expired assertion,
 * an InResponseTo of its choice, another issuer. `rotate()` gives it a new key while the old one stays
 * published (two certificates at once), `retire()` drops the old one.
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as x509 from "@peculiar/x509";
// samlify's schema validator is one per process: the IdP uses the service's, set where samlify is configured.
import { loadSamlify } from "../services/sso/src/saml/samlify.js";

x509.cryptoProvider.set(globalThis.crypto);

const POST = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST";
const REDIRECT = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect";
const EMAIL_FORMAT = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";
const RSA = { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" } as const;

export interface SamlKeyPair {
  certificatePem: string;
  privateKeyPem: string;
}

export async function samlKeyPair(name = "test-idp"): Promise<SamlKeyPair> {
  const keys = await globalThis.crypto.subtle.generateKey(RSA, true, ["sign", "verify"]);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    name: `CN=${name}`,
    keys,
    signingAlgorithm: RSA,
    notBefore: new Date(Date.now() - 86_400_000),
    notAfter: new Date(Date.now() + 3650 * 86_400_000),
  });
  const pkcs8 = await globalThis.crypto.subtle.exportKey("pkcs8", keys.privateKey);
  return { certificatePem: certificate.toString("pem"), privateKeyPem: x509.PemConverter.encode(pkcs8, "PRIVATE KEY") };
}

/** The service provider the IdP answers: our entity ID and ACS URL for one provider. */
export interface SamlServiceProviderRef {
  entityId: string;
  acsUrl: string;
}

export interface SamlUser {
  nameId: string;
  email?: string;
  name?: string;
  attributes?: Record<string, string>;
}

export interface SamlResponseOptions {
  sp: SamlServiceProviderRef;
  user: SamlUser;
  /** The AuthnRequest's ID; null (or left out) for an IdP-initiated response. */
  inResponseTo?: string | null;
  /** Where the signatures go: on the assertion (default, as the SP asks), the Response, both, or none. */
  sign?: "assertion" | "response" | "both" | "none";
  /** Sign with a key the IdP does not publish. */
  foreignKey?: boolean;
  audience?: string;
  recipient?: string;
  destination?: string;
  issuer?: string;
  /** The assertion's validity window, relative to the IdP's clock (default: from now to five minutes on). */
  notBefore?: Date;
  notOnOrAfter?: Date;
  assertionId?: string;
  status?: string;
  /**
   * Signature wrapping: a second, unsigned assertion for `user` is put beside the signed one made for
   * `victim` ("before" or "after" it), or the signed one is hidden inside the forged one ("nested").
   */
  wrap?: { placement: "before" | "after" | "nested"; victim: SamlUser };
}

export interface TestSamlIdp {
  entityId: string;
  /** The HTTP-Redirect SSO URL (on a loopback port once `listen()` ran). */
  ssoUrl: string;
  /** The certificates it publishes: the current one first. */
  certificates(): string[];
  metadataXml(): string;
  /** Reads the AuthnRequest our SP redirected to (the full URL): its ID, RelayState, issuer and ACS URL. */
  readAuthnRequest(redirectUrl: string): Promise<{ requestId: string; relayState: string | null; issuer: string; acsUrl: string | null }>;
  /** A base64 SAMLResponse (HTTP-POST binding). */
  response(options: SamlResponseOptions): Promise<string>;
  /** Signs from now on with a new key, still publishing the old certificate beside it. */
  rotate(): Promise<void>;
  /** Stops publishing every certificate but the current one. */
  retire(): void;
  /** Serves the SSO URL on a loopback port: a GET with an AuthnRequest answers with the auto-posting form. */
  listen(answer: (request: { requestId: string; relayState: string | null; acsUrl: string | null; issuer: string }) => SamlUser): Promise<void>;
  stop(): Promise<void>;
}

function escapeXml(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function attributeStatement(user: SamlUser): string {
  const values: Record<string, string> = { ...(user.email ? { email: user.email } : {}), ...(user.name ? { name: user.name } : {}), ...user.attributes };
  const entries = Object.entries(values);
  if (entries.length === 0) return "";
  const body = entries
    .map(
      ([name, value]) =>
        `<saml:Attribute Name="${escapeXml(name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic"><saml:AttributeValue xsi:type="xs:string">${escapeXml(value)}</saml:AttributeValue></saml:Attribute>`,
    )
    .join("");
  return `<saml:AttributeStatement>${body}</saml:AttributeStatement>`;
}

interface AssertionValues {
  id: string;
  issuer: string;
  issueInstant: string;
  nameId: string;
  recipient: string;
  inResponseTo: string | null;
  notBefore: string;
  notOnOrAfter: string;
  audience: string;
  user: SamlUser;
}

function assertionXml(values: AssertionValues, inner = ""): string {
  const inResponseTo = values.inResponseTo ? ` InResponseTo="${escapeXml(values.inResponseTo)}"` : "";
  return (
    `<saml:Assertion xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${values.id}" Version="2.0" IssueInstant="${values.issueInstant}">` +
    `<saml:Issuer>${escapeXml(values.issuer)}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="${EMAIL_FORMAT}">${escapeXml(values.nameId)}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${values.notOnOrAfter}" Recipient="${escapeXml(values.recipient)}"${inResponseTo}>${inner}</saml:SubjectConfirmationData></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${values.notBefore}" NotOnOrAfter="${values.notOnOrAfter}"><saml:AudienceRestriction><saml:Audience>${escapeXml(values.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${values.issueInstant}" SessionIndex="_session-${values.id}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    `${attributeStatement(values.user)}</saml:Assertion>`
  );
}

function responseXml(values: { id: string; issuer: string; issueInstant: string; destination: string; inResponseTo: string | null; status: string }, assertion: string): string {
  const inResponseTo = values.inResponseTo ? ` InResponseTo="${escapeXml(values.inResponseTo)}"` : "";
  return (
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${values.id}" Version="2.0" IssueInstant="${values.issueInstant}" Destination="${escapeXml(values.destination)}"${inResponseTo}>` +
    `<saml:Issuer>${escapeXml(values.issuer)}</saml:Issuer><samlp:Status><samlp:StatusCode Value="${values.status}"/></samlp:Status>${assertion}</samlp:Response>`
  );
}

function newId(): string {
  return `_${randomUUID()}`;
}

export async function createSamlIdp(options: { entityId?: string; now?: () => Date } = {}): Promise<TestSamlIdp> {
  const entityId = options.entityId ?? `https://idp.example.test/${randomUUID()}`;
  const now = options.now ?? (() => new Date());
  const samlify = await loadSamlify();
  let ssoUrl = "https://idp.example.test/sso";
  let keys = [await samlKeyPair()];
  const foreign = await samlKeyPair("attacker");
  let server: Server | null = null;

  const idpEntity = (pair: SamlKeyPair, certificates: string[]) =>
    samlify.IdentityProvider({
      entityID: entityId,
      privateKey: pair.privateKeyPem,
      signingCert: certificates,
      nameIDFormat: [EMAIL_FORMAT],
      wantAuthnRequestsSigned: false,
      singleSignOnService: [{ Binding: REDIRECT, Location: ssoUrl }],
    });

  const spEntity = (sp: SamlServiceProviderRef, sign: "assertion" | "response" | "both") =>
    samlify.ServiceProvider({
      entityID: sp.entityId,
      authnRequestsSigned: false,
      wantAssertionsSigned: sign !== "response",
      wantMessageSigned: sign !== "assertion",
      assertionConsumerService: [{ Binding: POST, Location: sp.acsUrl }],
    });

  /** samlify signs the XML we give it through its template hook, as a real IdP built on it would. */
  async function signed(xml: string, sp: SamlServiceProviderRef, sign: "assertion" | "response" | "both", foreignKey: boolean): Promise<string> {
    const pair = foreignKey ? foreign : (keys[0] as SamlKeyPair);
    const entity = idpEntity(pair, [pair.certificatePem]);
    const result = await entity.createLoginResponse(spEntity(sp, sign), { extract: {} }, "post", {}, { customTagReplacement: () => ({ id: "", context: xml }) });
    return Buffer.from(result.context, "base64").toString("utf8");
  }

  const idp: TestSamlIdp = {
    entityId,
    get ssoUrl() {
      return ssoUrl;
    },
    certificates: () => keys.map((pair) => pair.certificatePem),
    metadataXml: () => idpEntity(keys[0] as SamlKeyPair, idp.certificates()).getMetadata(),

    async readAuthnRequest(redirectUrl) {
      const url = new URL(redirectUrl);
      const query = Object.fromEntries(url.searchParams);
      const octetString = url.search.slice(1);
      const sp = samlify.ServiceProvider({ entityID: "unknown", authnRequestsSigned: false });
      const parsed = await idpEntity(keys[0] as SamlKeyPair, idp.certificates()).parseLoginRequest(sp, "redirect", { query, octetString });
      const request = parsed.extract.request as Record<string, string>;
      return {
        requestId: request.id as string,
        relayState: url.searchParams.get("RelayState"),
        issuer: String(parsed.extract.issuer),
        acsUrl: request.assertionConsumerServiceUrl ?? null,
      };
    },

    async response(o) {
      const issuedAt = now();
      const notBefore = o.notBefore ?? issuedAt;
      const notOnOrAfter = o.notOnOrAfter ?? new Date(issuedAt.getTime() + 5 * 60_000);
      const base = {
        issuer: o.issuer ?? entityId,
        issueInstant: issuedAt.toISOString(),
        recipient: o.recipient ?? o.sp.acsUrl,
        inResponseTo: o.inResponseTo ?? null,
        notBefore: notBefore.toISOString(),
        notOnOrAfter: notOnOrAfter.toISOString(),
        audience: o.audience ?? o.sp.entityId,
      };
      const responseValues = {
        id: newId(),
        issuer: base.issuer,
        issueInstant: base.issueInstant,
        destination: o.destination ?? o.sp.acsUrl,
        inResponseTo: base.inResponseTo,
        status: o.status ?? "urn:oasis:names:tc:SAML:2.0:status:Success",
      };
      const sign = o.sign ?? "assertion";
      if (o.wrap) {
        // The victim's assertion as the IdP really signed it, then an unsigned forgery put beside it.
        const genuine = await signed(
          responseXml(responseValues, assertionXml({ ...base, id: o.assertionId ?? newId(), nameId: o.wrap.victim.nameId, user: o.wrap.victim })),
          o.sp,
          "assertion",
          false,
        );
        const signedAssertion = genuine.slice(genuine.indexOf("<saml:Assertion"), genuine.indexOf("</saml:Assertion>") + "</saml:Assertion>".length);
        const forgedValues = { ...base, id: newId(), nameId: o.user.nameId, user: o.user };
        const forged = o.wrap.placement === "nested" ? assertionXml(forgedValues, signedAssertion) : assertionXml(forgedValues);
        const assertions = o.wrap.placement === "before" ? forged + signedAssertion : o.wrap.placement === "after" ? signedAssertion + forged : forged;
        return Buffer.from(responseXml(responseValues, assertions)).toString("base64");
      }
      const xml = responseXml(responseValues, assertionXml({ ...base, id: o.assertionId ?? newId(), nameId: o.user.nameId, user: o.user }));
      if (sign === "none") return Buffer.from(xml).toString("base64");
      return Buffer.from(await signed(xml, o.sp, sign, o.foreignKey ?? false)).toString("base64");
    },

    async rotate() {
      keys = [await samlKeyPair(), ...keys];
    },
    retire() {
      keys = keys.slice(0, 1);
    },

    async listen(answer) {
      server = createServer((req, res) => {
        void (async () => {
          try {
            const url = new URL(req.url ?? "/", ssoUrl);
            const request = await idp.readAuthnRequest(url.toString());
            const user = answer(request);
            const acsUrl = request.acsUrl ?? "";
            const samlResponse = await idp.response({ sp: { entityId: request.issuer, acsUrl }, user, inResponseTo: request.requestId });
            const relay = request.relayState === null ? "" : `<input type="hidden" name="RelayState" value="${escapeXml(request.relayState)}">`;
            res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
            res.end(
              `<!doctype html><html lang="en"><head><title>Test IdP</title></head><body><form method="post" action="${escapeXml(acsUrl)}"><input type="hidden" name="SAMLResponse" value="${samlResponse}">${relay}<button type="submit">Continue</button></form><script>document.forms[0].submit()</script></body></html>`,
            );
          } catch (error) {
            res.writeHead(400, { "content-type": "text/plain" });
            res.end(String(error));
          }
        })();
      });
      await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
      ssoUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sso`;
    },

    async stop() {
      const running = server;
      server = null;
      if (running) await new Promise<void>((resolve) => running.close(() => resolve()));
    },
  };
  return idp;
}
