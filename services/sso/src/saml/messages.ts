/** SAML provider settings to and from their proto messages (auth/sso/v1/saml.proto). */
import type { SamlConfig, SamlInput } from "@auth-platform/proto/gen/auth/sso/v1/saml";
import { type SamlConfigInput, type StoredSamlSettings, serviceProviderUrls } from "./settings.js";

export function samlInputFromMessage(message: SamlInput): SamlConfigInput {
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
