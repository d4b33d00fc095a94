/** SAML provider settings to and from their proto messages (auth/sso/v1/saml.proto). */
import { AuthError } from "@auth-platform/proto/errors";
import type { SamlConfig, SamlInput } from "@auth-platform/proto/gen/auth/sso/v1/saml";
import { MAX_SAML_METADATA_CHARS } from "./idp-metadata.js";
import { type SamlConfigInput, type StoredSamlSettings, serviceProviderUrls } from "./settings.js";

function bounded(name: string, value: string | undefined, max: number): void {
  if (value !== undefined && (value.trim() === "" || value.length > max)) throw new AuthError("VALIDATION_ERROR", `samlConfig.${name} must be 1 to ${max} characters`);
}

/** The input message, its sizes checked (VALIDATION_ERROR); what it says is checked by samlSettingsFromInput. */
export function samlInputFromMessage(message: SamlInput): SamlConfigInput {
  bounded("idpMetadata.metadata", message.idpMetadataXml, MAX_SAML_METADATA_CHARS);
  bounded("metadataUrl", message.metadataUrl, 2048);
  bounded("entryPoint", message.entryPoint, 2048);
  bounded("idpMetadata.entityID", message.idpEntityId, 1024);
  if (message.certificates.length > 2) throw new AuthError("VALIDATION_ERROR", "samlConfig.cert takes one or two certificates");
  for (const certificate of message.certificates) bounded("cert", certificate, 16 * 1024);
  for (const [key, value] of Object.entries(message.mapping ?? {})) bounded(`mapping.${key}`, value as string | undefined, 255);
  const input: SamlConfigInput = {};
  if (message.idpMetadataXml !== undefined || message.idpEntityId !== undefined) {
    input.idpMetadata = {};
    if (message.idpMetadataXml !== undefined) input.idpMetadata.metadata = message.idpMetadataXml;
    if (message.idpEntityId !== undefined) input.idpMetadata.entityID = message.idpEntityId;
  }
  if (message.metadataUrl !== undefined) input.metadataUrl = message.metadataUrl;
  if (message.entryPoint !== undefined) input.entryPoint = message.entryPoint;
  if (message.certificates.length > 0) input.cert = message.certificates;
  if (message.allowIdpInitiated !== undefined) input.allowIdpInitiated = message.allowIdpInitiated;
  if (message.mapping) {
    const { email, emailVerified, name, firstName, lastName } = message.mapping;
    input.mapping = Object.fromEntries(Object.entries({ email, emailVerified, name, firstName, lastName }).filter(([, value]) => value !== undefined));
  }
  return input;
}

export function samlConfigMessage(authBaseUrl: string, providerId: string, settings: StoredSamlSettings): SamlConfig {
  const urls = serviceProviderUrls(authBaseUrl, providerId);
  const { email, emailVerified, name, firstName, lastName } = settings.mapping;
  return {
    idpEntityId: settings.idpEntityId,
    ssoUrl: settings.ssoUrl,
    certificates: settings.certificates,
    metadataUrl: settings.metadataUrl ?? undefined,
    allowIdpInitiated: settings.allowIdpInitiated,
    mapping: { email, emailVerified: emailVerified ?? undefined, name, firstName, lastName },
    spEntityId: urls.entityId,
    acsUrl: urls.acsUrl,
    spMetadataUrl: urls.metadataUrl,
  };
}
