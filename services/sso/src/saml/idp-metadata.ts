/**
 * Reads an identity provider's metadata XML (what Okta, Entra ID and Google Workspace offer to download)
 * into the settings the service provider needs: entity ID, the HTTP-Redirect SSO URL and the signing
 * certificates. samlify reads the XML; what it cannot find is INVALID_SAML_METADATA.
 */
import { AuthError } from "@auth-platform/proto/errors";
import { normalizeCertificate, type SamlIdentityProviderSettings } from "./service-provider.js";
import { loadSamlify } from "./samlify.js";

/** Metadata larger than this is refused before it is parsed (a real IdP's is under 20 KB). */
export const MAX_SAML_METADATA_CHARS = 100 * 1024;

function httpsOrLoopback(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "https:" || (url.protocol === "http:" && ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname));
  } catch {
    return false;
  }
}

/** Checks settings entered by hand (entry point and certificate) as strictly as those read from metadata. */
export function identityProviderSettings(input: { entityId: string; ssoUrl: string; certificates: string[] }): SamlIdentityProviderSettings {
  const entityId = input.entityId.trim();
  if (!entityId || entityId.length > 1024) throw new AuthError("INVALID_SAML_METADATA");
  if (!httpsOrLoopback(input.ssoUrl)) throw new AuthError("INVALID_SAML_METADATA");
  const certificates = [...new Set(input.certificates.map(normalizeCertificate))];
  // One, or two while the IdP rotates its signing key (docs/adr/0069-saml-service-provider.md).
  if (certificates.length < 1 || certificates.length > 2) throw new AuthError("INVALID_SAML_METADATA");
  return { entityId, ssoUrl: input.ssoUrl, certificates };
}

export async function parseIdentityProviderMetadata(xml: string): Promise<SamlIdentityProviderSettings> {
  if (xml.length === 0 || xml.length > MAX_SAML_METADATA_CHARS) throw new AuthError("INVALID_SAML_METADATA");
  const samlify = await loadSamlify();
  let entityId: unknown;
  let ssoUrl: unknown;
  let certificates: unknown;
  try {
    const meta = samlify.IdentityProvider({ metadata: xml }).entityMeta;
    entityId = meta.getEntityID();
    ssoUrl = meta.getSingleSignOnService("redirect");
    certificates = meta.getX509Certificate("signing");
  } catch (cause) {
    throw new AuthError("INVALID_SAML_METADATA", undefined, { cause });
  }
  if (typeof entityId !== "string" || typeof ssoUrl !== "string") throw new AuthError("INVALID_SAML_METADATA");
  const list = ([] as unknown[]).concat(certificates ?? []).flat();
  if (!list.every((certificate) => typeof certificate === "string")) throw new AuthError("INVALID_SAML_METADATA");
  return identityProviderSettings({ entityId, ssoUrl, certificates: list as string[] });
}
