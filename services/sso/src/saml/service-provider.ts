/**
 * Our SAML 2.0 service provider for one identity provider (docs/adr/0069-saml-service-provider.md):
 * the SP metadata the customer pastes into their IdP, the AuthnRequest (HTTP-Redirect binding) and the
 * validation of the IdP's response (HTTP-POST binding). samlify does all XML signature work; this module
 * adds the checks samlify leaves to its caller: a signature on the assertion itself, exactly one
 * assertion, audience, recipient and destination, the validity window on the injected clock, InResponseTo
 * bound to the request we issued, IdP-initiated sign-in only when enabled, and each assertion once.
 */
import { X509Certificate } from "node:crypto";
import { AuthError } from "@auth-platform/proto/errors";
import type { SamlReplayStore } from "./replay.js";
import { loadSamlify, type Samlify } from "./samlify.js";

const POST = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST";
const REDIRECT = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect";
const BEARER = "urn:oasis:names:tc:SAML:2.0:cm:bearer";
const EMAIL_FORMAT = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";

/** Tolerated difference between the IdP's clock and ours, both ways. */
export const SAML_CLOCK_SKEW_MS = 2 * 60_000;
/** A larger POST is refused before samlify reads it (an IdP's response is a few kilobytes). */
export const MAX_SAML_RESPONSE_CHARS = 256 * 1024;

export interface SamlIdentityProviderSettings {
  entityId: string;
  /** Where the AuthnRequest is sent (HTTP-Redirect binding). */
  ssoUrl: string;
  /** Signing certificates (PEM or bare base64): one, or two while the IdP rotates its key. */
  certificates: string[];
}

export interface SamlProviderSettings {
  providerId: string;
  /** Our entity ID for this provider: also the audience the assertion must name. */
  spEntityId: string;
  /** Our ACS URL for this provider (`.../sso/saml2/sp/acs/:providerId`): the recipient and destination. */
  acsUrl: string;
  idp: SamlIdentityProviderSettings;
  /** Accept responses the IdP sends without our request (IdP-initiated sign-in). Off unless enabled. */
  allowIdpInitiated: boolean;
}

/** Why a response was refused: logged and shown to the admin testing the connection, never to the browser. */
export type SamlRefusalReason =
  | "malformed"
  | "status"
  | "signature"
  | "assertion_not_signed"
  | "assertion_count"
  | "wrapping"
  | "issuer"
  | "audience"
  | "recipient"
  | "destination"
  | "not_yet_valid"
  | "expired"
  | "subject_confirmation"
  | "in_response_to"
  | "idp_initiated"
  | "replay"
  | "name_id";

/** INVALID_SAML_RESPONSE, carrying the reason for the logs. */
export class SamlRefusal extends AuthError {
  readonly reason: SamlRefusalReason;
  constructor(reason: SamlRefusalReason, cause?: unknown) {
    super("INVALID_SAML_RESPONSE", undefined, { cause });
    this.reason = reason;
  }
}

export interface SamlAssertion {
  assertionId: string;
  issuer: string;
  nameId: string;
  nameIdFormat: string | null;
  attributes: Record<string, string | string[]>;
  sessionIndex: string | null;
  /** The end of the assertion's validity: the replay store keeps its claim until then. */
  notOnOrAfter: Date;
  /** Null for an IdP-initiated response. */
  inResponseTo: string | null;
}

/** Certificate body without armour or whitespace; refuses what does not parse as an X.509 certificate. */
export function normalizeCertificate(certificate: string): string {
  const body = certificate
    .replace(/-----(BEGIN|END) CERTIFICATE-----/g, "")
    .replace(/\s+/g, "")
    .trim();
  try {
    new X509Certificate(Buffer.from(body, "base64"));
  } catch (cause) {
    throw new AuthError("INVALID_SAML_METADATA", undefined, { cause });
  }
  return body;
}

function serviceProvider(samlify: Samlify, settings: SamlProviderSettings) {
  return samlify.ServiceProvider({
    entityID: settings.spEntityId,
    authnRequestsSigned: false,
    wantAssertionsSigned: true,
    nameIDFormat: [EMAIL_FORMAT],
    assertionConsumerService: [{ Binding: POST, Location: settings.acsUrl }],
    // samlify reads the wall clock; the window is checked below on the injected one (ADR 0069).
    clockDrifts: [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY],
  });
}

type SamlifyIdp = ReturnType<Samlify["IdentityProvider"]>;
/** Built once per (IdP, certificate): samlify warns on every construction of an IdP without a logout URL. */
const idpCache = new Map<string, SamlifyIdp>();
const IDP_CACHE_SIZE = 512;

/** One samlify IdP per certificate: samlify trusts only the first certificate when a signature names none. */
function identityProviders(samlify: Samlify, settings: SamlProviderSettings): SamlifyIdp[] {
  return settings.idp.certificates.map((certificate) => {
    const key = JSON.stringify([settings.idp.entityId, settings.idp.ssoUrl, certificate]);
    let idp = idpCache.get(key);
    if (!idp) {
      idp = samlify.IdentityProvider({
        entityID: settings.idp.entityId,
        signingCert: certificate,
        wantAuthnRequestsSigned: false,
        singleSignOnService: [{ Binding: REDIRECT, Location: settings.idp.ssoUrl }],
      });
      if (idpCache.size >= IDP_CACHE_SIZE) idpCache.delete(idpCache.keys().next().value as string);
      idpCache.set(key, idp);
    }
    return idp;
  });
}

/** The SP metadata XML the customer's admin gives their IdP. */
export async function serviceProviderMetadata(settings: SamlProviderSettings): Promise<string> {
  return serviceProvider(await loadSamlify(), settings).getMetadata();
}

/** The AuthnRequest as a redirect to the IdP, and its ID (the response's InResponseTo must name it). */
export async function authnRequest(settings: SamlProviderSettings, relayState: string): Promise<{ requestId: string; redirectUrl: string }> {
  const samlify = await loadSamlify();
  const [idp] = identityProviders(samlify, settings);
  if (!idp) throw new AuthError("INVALID_SAML_METADATA");
  const { id, context } = serviceProvider(samlify, settings).createLoginRequest(idp, "redirect", { relayState });
  return { requestId: id, redirectUrl: context };
}

export interface SamlResponseInput {
  /** The base64 SAMLResponse form field. */
  samlResponse: string;
  /** The ID of the AuthnRequest this browser's sign-in sent, or null when it sent none (IdP-initiated). */
  expectedRequestId: string | null;
  now: Date;
}

const SIGNATURE_ERRORS = ["FAILED_TO_VERIFY_SIGNATURE", "ERROR_UNMATCH_CERTIFICATE_DECLARATION_IN_METADATA", "NO_SELECTED_CERTIFICATE"];

function reasonOf(error: unknown): SamlRefusalReason {
  const message = error instanceof Error ? error.message : String(error);
  if (SIGNATURE_ERRORS.some((code) => message.includes(code))) return "signature";
  if (message.includes("WRAPPING")) return "wrapping";
  if (message.includes("ERR_FAILED_STATUS") || message.includes("ERR_UNDEFINED_STATUS")) return "status";
  if (message.includes("ERR_UNMATCH_ISSUER")) return "issuer";
  return "malformed";
}

type Extracted = Record<string, unknown>;

function one(value: unknown): string | null {
  if (typeof value === "string") return value;
  return null;
}

/**
 * Verifies a response with samlify, then applies our rules to the assertion samlify verified. Throws
 * SamlRefusal; does not record the assertion (acceptSamlResponse does).
 */
export async function validateSamlResponse(settings: SamlProviderSettings, input: SamlResponseInput): Promise<SamlAssertion> {
  if (input.samlResponse.length === 0 || input.samlResponse.length > MAX_SAML_RESPONSE_CHARS || !/^[A-Za-z0-9+/=\s]+$/.test(input.samlResponse)) {
    throw new SamlRefusal("malformed");
  }
  const samlify = await loadSamlify();
  const sp = serviceProvider(samlify, settings);
  let verified: { samlContent: string; assertion: string } | null = null;
  let lastError: unknown = null;
  for (const idp of identityProviders(samlify, settings)) {
    try {
      const result = await sp.parseLoginResponse(idp, "post", { body: { SAMLResponse: input.samlResponse } });
      // The same verification samlify's flow just made, for the assertion node it authenticated.
      const [valid, assertion] = samlify.SamlLib.verifySignature(result.samlContent, {
        metadata: idp.entityMeta,
        signatureAlgorithm: idp.entitySetting.requestSignatureAlgorithm,
      });
      if (!valid || typeof assertion !== "string") throw new SamlRefusal("signature");
      verified = { samlContent: result.samlContent, assertion };
      break;
    } catch (error) {
      if (error instanceof SamlRefusal) throw error;
      lastError = error;
      if (reasonOf(error) !== "signature") break;
    }
  }
  if (!verified) throw new SamlRefusal(reasonOf(lastError), lastError);
  return checkAssertion(samlify, settings, input, verified);
}

function checkAssertion(samlify: Samlify, settings: SamlProviderSettings, input: SamlResponseInput, verified: { samlContent: string; assertion: string }): SamlAssertion {
  const { extract } = samlify.Extractor;
  const whole = extract(verified.samlContent, [
    { key: "assertions", localPath: ["Response", "Assertion"], attributes: [], context: true },
    { key: "encrypted", localPath: ["Response", "EncryptedAssertion"], attributes: [], context: true },
    { key: "assertionSignature", localPath: ["Response", "Assertion", "Signature"], attributes: [], context: true },
    { key: "response", localPath: ["Response"], attributes: ["Destination"] },
  ]) as Extracted;
  // A second assertion beside the signed one is a wrapping attempt, whichever one samlify verified.
  if (typeof whole.assertions !== "string" || whole.encrypted) throw new SamlRefusal("assertion_count");
  // samlify accepts a signature over the whole Response too; we require the IdP to sign the assertion
  // (the verified content no longer holds its enveloped signature, so it is looked for in the document).
  if (typeof whole.assertionSignature !== "string") throw new SamlRefusal("assertion_not_signed");
  const destination = one(whole.response);
  if (destination !== null && destination !== settings.acsUrl) throw new SamlRefusal("destination");

  const shortcut = verified.assertion;
  const fields = extract(shortcut, [
    { key: "id", localPath: ["Assertion"], attributes: ["ID"], shortcut },
    { key: "issuer", localPath: ["Assertion", "Issuer"], attributes: [], shortcut },
    { key: "nameId", localPath: ["Assertion", "Subject", "NameID"], attributes: [], shortcut },
    { key: "nameIdFormat", localPath: ["Assertion", "Subject", "NameID"], attributes: ["Format"], shortcut },
    { key: "method", localPath: ["Assertion", "Subject", "SubjectConfirmation"], attributes: ["Method"], shortcut },
    {
      key: "confirmation",
      localPath: ["Assertion", "Subject", "SubjectConfirmation", "SubjectConfirmationData"],
      attributes: ["Recipient", "InResponseTo", "NotOnOrAfter", "NotBefore"],
      shortcut,
    },
    { key: "conditions", localPath: ["Assertion", "Conditions"], attributes: ["NotBefore", "NotOnOrAfter"], shortcut },
    { key: "audience", localPath: ["Assertion", "Conditions", "AudienceRestriction", "Audience"], attributes: [], shortcut },
    { key: "session", localPath: ["Assertion", "AuthnStatement"], attributes: ["SessionIndex"], shortcut },
    {
      key: "attributes",
      localPath: ["Assertion", "AttributeStatement", "Attribute"],
      index: ["Name"],
      attributePath: ["AttributeValue"],
      attributes: [],
      shortcut,
    },
  ]) as Extracted;

  const assertionId = one(fields.id);
  if (!assertionId) throw new SamlRefusal("malformed");
  if (one(fields.issuer) !== settings.idp.entityId) throw new SamlRefusal("issuer");

  const audiences = ([] as unknown[]).concat(fields.audience ?? []);
  if (!audiences.includes(settings.spEntityId)) throw new SamlRefusal("audience");

  // Web SSO profile: one bearer confirmation naming our ACS and an expiry.
  if (one(fields.method) !== BEARER) throw new SamlRefusal("subject_confirmation");
  const confirmation = (fields.confirmation ?? {}) as Extracted;
  if (one(confirmation.recipient) !== settings.acsUrl) throw new SamlRefusal("recipient");
  const confirmationEnd = one(confirmation.notOnOrAfter);
  if (!confirmationEnd) throw new SamlRefusal("subject_confirmation");

  const conditions = (fields.conditions ?? {}) as Extracted;
  const now = input.now.getTime();
  const starts = [one(conditions.notBefore), one(confirmation.notBefore)].filter((value): value is string => value !== null).map(Date.parse);
  const ends = [one(conditions.notOnOrAfter), confirmationEnd].filter((value): value is string => value !== null).map(Date.parse);
  if (starts.some(Number.isNaN) || ends.some(Number.isNaN)) throw new SamlRefusal("malformed");
  if (starts.some((start) => now + SAML_CLOCK_SKEW_MS < start)) throw new SamlRefusal("not_yet_valid");
  const end = Math.min(...ends);
  if (now - SAML_CLOCK_SKEW_MS >= end) throw new SamlRefusal("expired");

  const inResponseTo = one(confirmation.inResponseTo) || null;
  if (input.expectedRequestId === null) {
    // A response naming a request this browser did not send is someone else's, not IdP-initiated.
    if (inResponseTo !== null) throw new SamlRefusal("in_response_to");
    if (!settings.allowIdpInitiated) throw new SamlRefusal("idp_initiated");
  } else if (inResponseTo !== input.expectedRequestId) {
    throw new SamlRefusal("in_response_to");
  }

  const nameId = one(fields.nameId)?.trim();
  if (!nameId) throw new SamlRefusal("name_id");
  return {
    assertionId,
    issuer: settings.idp.entityId,
    nameId,
    nameIdFormat: one(fields.nameIdFormat),
    attributes: (fields.attributes ?? {}) as Record<string, string | string[]>,
    sessionIndex: one(fields.session),
    notOnOrAfter: new Date(end + SAML_CLOCK_SKEW_MS),
    inResponseTo,
  };
}

/** Validates the response and claims its assertion: the second presentation of an assertion is refused. */
export async function acceptSamlResponse(settings: SamlProviderSettings, input: SamlResponseInput, replays: SamlReplayStore): Promise<SamlAssertion> {
  const assertion = await validateSamlResponse(settings, input);
  if (!(await replays.claim(settings.providerId, assertion.assertionId, assertion.notOnOrAfter, input.now))) throw new SamlRefusal("replay");
  return assertion;
}
