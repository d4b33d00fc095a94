/**
 * A SAML provider's settings: what the admin gives (the `samlConfig` of @better-auth/sso 1.7: IdP metadata
 * XML, or entry point, IdP entity ID and certificates, plus our metadata URL extension), what the store
 * keeps (the provider record's `saml` column), and the service provider settings derived per sign-in from
 * the platform's public address (docs/adr/0069-saml-service-provider.md).
 */
import { AuthError } from "@auth-platform/proto/errors";
import { z } from "zod";
import { identityProviderSettings, parseIdentityProviderMetadata } from "./idp-metadata.js";
import type { SamlProviderSettings } from "./service-provider.js";

/** Which assertion attributes give a user's fields (absent: the defaults below). */
export interface SamlAttributeMapping {
  email: string;
  emailVerified: string | null;
  name: string;
  firstName: string;
  lastName: string;
}

export const DEFAULT_SAML_MAPPING: SamlAttributeMapping = { email: "email", emailVerified: null, name: "name", firstName: "firstName", lastName: "lastName" };

const stored = z.object({
  idpEntityId: z.string().min(1),
  ssoUrl: z.string().min(1),
  certificates: z.array(z.string().min(1)).min(1).max(2),
  metadataUrl: z.string().nullable(),
  allowIdpInitiated: z.boolean(),
  mapping: z.object({ email: z.string(), emailVerified: z.string().nullable(), name: z.string(), firstName: z.string(), lastName: z.string() }),
});

/** The provider record's `saml` column. */
export type StoredSamlSettings = z.infer<typeof stored>;

/** The record's column, checked: a column another version wrote wrong is a 500, not a silent sign-in. */
export function readSamlSettings(value: unknown): StoredSamlSettings {
  return stored.parse(value);
}

/** The admin's input, in the shape of @better-auth/sso's `samlConfig` (fields we do not use are ignored). */
export interface SamlConfigInput {
  entryPoint?: string;
  cert?: string | string[];
  idpMetadata?: { metadata?: string; entityID?: string; cert?: string | string[] };
  /** Ours: where to fetch the IdP's metadata XML instead of pasting it. */
  metadataUrl?: string;
  /** Ours: accept IdP-initiated responses (off unless set). */
  allowIdpInitiated?: boolean;
  mapping?: { email?: string; emailVerified?: string; name?: string; firstName?: string; lastName?: string };
}

/** Reads the IdP metadata at a URL the admin typed (checked against SSRF by the caller's fetcher). */
export type MetadataFetcher = (url: string) => Promise<string>;

function list(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * Builds the stored settings from the admin's input. `previous` (on update) keeps what the input leaves
 * out; `issuer` is the provider's issuer, the IdP entity ID when neither metadata nor `idpMetadata.entityID`
 * names one.
 */
export async function samlSettingsFromInput(
  input: SamlConfigInput,
  context: { issuer: string; previous: StoredSamlSettings | null; fetchMetadata: MetadataFetcher },
): Promise<StoredSamlSettings> {
  const { previous } = context;
  let metadataXml = input.idpMetadata?.metadata;
  const metadataUrl = input.metadataUrl ?? (metadataXml === undefined ? (previous?.metadataUrl ?? null) : null);
  if (metadataXml === undefined && input.metadataUrl !== undefined) metadataXml = await context.fetchMetadata(input.metadataUrl);

  const certificates = [...list(input.idpMetadata?.cert), ...list(input.cert)];
  let idp: { entityId: string; ssoUrl: string; certificates: string[] };
  if (metadataXml !== undefined) {
    idp = await parseIdentityProviderMetadata(metadataXml);
  } else if (input.entryPoint !== undefined || certificates.length > 0 || input.idpMetadata?.entityID !== undefined) {
    const ssoUrl = input.entryPoint ?? previous?.ssoUrl;
    const entityId = input.idpMetadata?.entityID ?? previous?.idpEntityId ?? context.issuer;
    if (!ssoUrl) throw new AuthError("INVALID_SAML_METADATA", "the IdP's entry point (SSO URL) is missing");
    idp = identityProviderSettings({ entityId, ssoUrl, certificates: certificates.length > 0 ? certificates : (previous?.certificates ?? []) });
  } else if (previous) {
    idp = { entityId: previous.idpEntityId, ssoUrl: previous.ssoUrl, certificates: previous.certificates };
  } else {
    throw new AuthError("INVALID_SAML_METADATA", "give the IdP's metadata, or its entry point and signing certificate");
  }

  const mapping = { ...(previous?.mapping ?? DEFAULT_SAML_MAPPING) };
  for (const key of ["email", "emailVerified", "name", "firstName", "lastName"] as const) {
    const value = input.mapping?.[key];
    if (value !== undefined) mapping[key] = value;
  }
  return {
    idpEntityId: idp.entityId,
    ssoUrl: idp.ssoUrl,
    certificates: idp.certificates,
    metadataUrl,
    allowIdpInitiated: input.allowIdpInitiated ?? previous?.allowIdpInitiated ?? false,
    mapping,
  };
}

/** Our entity ID, ACS URL and metadata URL for a provider; `authBaseUrl` is the public `.../api/auth`. */
export function serviceProviderUrls(authBaseUrl: string, providerId: string): { entityId: string; acsUrl: string; metadataUrl: string } {
  const base = authBaseUrl.replace(/\/+$/, "");
  const id = encodeURIComponent(providerId);
  const metadataUrl = `${base}/sso/saml2/sp/metadata?providerId=${id}`;
  return { entityId: metadataUrl, metadataUrl, acsUrl: `${base}/sso/saml2/sp/acs/${id}` };
}

export function providerSettings(authBaseUrl: string, providerId: string, settings: StoredSamlSettings): SamlProviderSettings {
  const urls = serviceProviderUrls(authBaseUrl, providerId);
  return {
    providerId,
    spEntityId: urls.entityId,
    acsUrl: urls.acsUrl,
    idp: { entityId: settings.idpEntityId, ssoUrl: settings.ssoUrl, certificates: settings.certificates },
    allowIdpInitiated: settings.allowIdpInitiated,
  };
}
