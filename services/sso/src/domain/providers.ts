/**
 * Registering and managing an organization's identity providers. Who may: a member holding one of
 * SSO_MANAGER_ROLES (owner and admin by default) in the provider's organization, asked of the organization
 * service (docs/adr/0067-the-sso-service.md). A provider of an organization the caller may not manage is
 * answered as not found, so provider ids are not probed.
 */
import { AuthError } from "@auth-platform/proto/errors";
import { normaliseDomain } from "../domains/domain-name.js";
import { readSamlSettings, type SamlConfigInput, samlSettingsFromInput } from "../saml/settings.js";
import type { ClaimMapping, OidcSettings, ProviderPatch, ProviderRecord } from "../store/sso-store.js";
import type { Caller, Registry } from "./ports.js";

export const DEFAULT_MAPPING: ClaimMapping = { id: "sub", email: "email", emailVerified: "email_verified", name: "name", image: "picture" };
const DEFAULT_SCOPES = ["openid", "email", "profile"];

export interface OidcInput {
  clientId?: string;
  clientSecret?: string;
  discoveryEndpoint?: string;
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
  userInfoEndpoint?: string;
  jwksEndpoint?: string;
  /** Absent: kept (registration: openid, email, profile). */
  scopes?: string[];
  pkce?: boolean;
  tokenEndpointAuthentication?: "client_secret_post" | "client_secret_basic";
  mapping?: Partial<ClaimMapping>;
}

export interface RegisterInput {
  providerId: string;
  issuer: string;
  domain: string;
  organizationId?: string;
  /** Exactly one of oidc and saml: the provider's type. */
  oidc?: OidcInput;
  saml?: SamlConfigInput;
  defaultRole?: string;
  enabled?: boolean;
}

export interface UpdateInput {
  providerId: string;
  issuer?: string;
  domain?: string;
  oidc?: OidcInput;
  saml?: SamlConfigInput;
  defaultRole?: string;
  enabled?: boolean;
}

const rolesOf = (role: string) =>
  role
    .split(",")
    .map((r) => r.trim())
    .filter(Boolean);

/** The caller's role in the organization when it is a manager's, else null. */
async function managerRole(registry: Registry, caller: Caller, organizationId: string): Promise<string | null> {
  const role = await registry.organizations.membershipRole(caller.userId, organizationId);
  if (role === null) return null;
  return rolesOf(role).some((r) => registry.config.managerRoles.includes(r)) ? role : null;
}

/** The provider, when the caller may manage it; PROVIDER_NOT_FOUND otherwise. */
export async function managedProvider(registry: Registry, caller: Caller, providerId: string): Promise<{ provider: ProviderRecord; role: string }> {
  const provider = await registry.store.getProvider(providerId);
  const role = provider && (await managerRole(registry, caller, provider.organizationId));
  if (!provider || !role) throw new AuthError("PROVIDER_NOT_FOUND");
  return { provider, role };
}

/**
 * A provider hands its default role to everyone it signs in: a manager gives only roles they hold, so an
 * admin cannot make a provider that signs them in as owner.
 */
function checkDefaultRole(callerRole: string, defaultRole: string): void {
  const held = rolesOf(callerRole);
  if (defaultRole !== "member" && !rolesOf(defaultRole).every((r) => held.includes(r))) {
    throw new AuthError("VALIDATION_ERROR", "defaultRole must be member or a role you hold");
  }
}

/** Whether a domain routes sign-in before a verified-domain record exists (docs/adr/0068-a-domain-routes-sign-in-once-verified.md). */
export function domainTrusted(registry: Registry, domain: string): boolean {
  return registry.config.trustedDomains.includes("*") || registry.config.trustedDomains.includes(domain);
}

/** Whether the domain routes sign-in to a provider of the organization: trusted, or verified by it (ADR 0071). */
async function domainVerifiedFor(registry: Registry, organizationId: string, domain: string): Promise<boolean> {
  if (domainTrusted(registry, domain)) return true;
  return (await registry.store.findVerifiedDomain(domain))?.organizationId === organizationId;
}

/**
 * A provider's domain another organization has verified is refused: its provider would hold the domain (one
 * provider per domain) and keep the verifying organization from registering its own. Compared in the
 * canonical form verified domains are stored in, so `ACME.example.` squats no better than `acme.example`.
 */
async function refuseDomainOfAnother(registry: Registry, organizationId: string, domain: string): Promise<void> {
  const canonical = normaliseDomain(domain);
  if (!canonical.ok) return; // not a domain anyone can verify
  const verified = await registry.store.findVerifiedDomain(canonical.domain);
  if (verified && verified.organizationId !== organizationId) throw new AuthError("DOMAIN_IS_VERIFIED_BY_ANOTHER_ORGANIZATION");
}

/** Discovers the issuer and merges the given endpoints over the discovered ones; every address checked. */
async function oidcSettings(registry: Registry, providerId: string, issuer: string, input: OidcInput, previous: Partial<OidcSettings> | null): Promise<OidcSettings> {
  const clientId = input.clientId ?? previous?.clientId;
  if (!clientId) throw new AuthError("VALIDATION_ERROR", "oidcConfig.clientId is required");
  const sealedClientSecret = input.clientSecret !== undefined ? registry.secrets.seal(input.clientSecret, providerId) : previous?.sealedClientSecret;
  if (!sealedClientSecret) throw new AuthError("VALIDATION_ERROR", "oidcConfig.clientSecret is required");
  const discoveryEndpoint = input.discoveryEndpoint ?? previous?.discoveryEndpoint ?? `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
  const found = await registry.discovery.discover(discoveryEndpoint);
  for (const endpoint of [input.authorizationEndpoint, input.tokenEndpoint, input.userInfoEndpoint, input.jwksEndpoint]) {
    if (endpoint) await registry.discovery.checkEndpoint(endpoint);
  }
  // OpenID Connect Discovery 1.0, 4.3: the document's issuer is the one asked for, exactly.
  if (found.issuer !== issuer) throw new AuthError("INVALID_OIDC_CONFIGURATION", "the discovery document names another issuer");
  const pick = (given: string | undefined, kept: string | null | undefined, discovered: string | null) => given ?? kept ?? discovered;
  const settings: OidcSettings = {
    clientId,
    sealedClientSecret,
    discoveryEndpoint,
    authorizationEndpoint: pick(input.authorizationEndpoint, previous?.authorizationEndpoint, found.authorizationEndpoint),
    tokenEndpoint: pick(input.tokenEndpoint, previous?.tokenEndpoint, found.tokenEndpoint),
    userInfoEndpoint: pick(input.userInfoEndpoint, previous?.userInfoEndpoint, found.userInfoEndpoint),
    jwksEndpoint: pick(input.jwksEndpoint, previous?.jwksEndpoint, found.jwksEndpoint),
    scopes: input.scopes ? [...new Set(["openid", ...input.scopes])] : (previous?.scopes ?? DEFAULT_SCOPES),
    pkce: input.pkce ?? previous?.pkce ?? true,
    tokenEndpointAuthentication: input.tokenEndpointAuthentication ?? previous?.tokenEndpointAuthentication ?? "client_secret_post",
    mapping: { ...DEFAULT_MAPPING, ...previous?.mapping, ...input.mapping },
  };
  return settings;
}

export async function registerProvider(registry: Registry, caller: Caller, input: RegisterInput): Promise<ProviderRecord> {
  const organizationId = input.organizationId ?? caller.activeOrganizationId;
  if (!organizationId) throw new AuthError("ORGANIZATION_NOT_FOUND");
  const role = await managerRole(registry, caller, organizationId);
  if (!role) throw new AuthError("YOU_MUST_BE_AN_ORGANIZATION_OWNER_OR_ADMIN_TO_REGISTER_SSO_PROVIDERS");
  const defaultRole = input.defaultRole ?? "member";
  checkDefaultRole(role, defaultRole);
  if (await registry.store.getProvider(input.providerId)) throw new AuthError("SSO_PROVIDER_WITH_THIS_PROVIDERID_ALREADY_EXISTS");
  await refuseDomainOfAnother(registry, organizationId, input.domain);
  if ((input.oidc === undefined) === (input.saml === undefined)) throw new AuthError("VALIDATION_ERROR", "give either oidcConfig or samlConfig");
  const oidc = input.oidc ? await oidcSettings(registry, input.providerId, input.issuer, input.oidc, null) : null;
  const saml = input.saml ? await samlSettingsFromInput(input.saml, { issuer: input.issuer, previous: null, fetchMetadata: registry.samlMetadata }) : null;
  const now = registry.now();
  const provider: ProviderRecord = {
    providerId: input.providerId,
    organizationId,
    type: saml ? "saml" : "oidc",
    issuer: input.issuer,
    domain: input.domain,
    domainVerified: await domainVerifiedFor(registry, organizationId, input.domain),
    enabled: input.enabled ?? true,
    defaultRole,
    userId: caller.userId,
    oidc,
    saml,
    createdAt: now,
    updatedAt: now,
  };
  await registry.store.insertProvider(provider);
  registry.log.info("sso provider registered", { providerId: provider.providerId, organizationId, type: provider.type });
  return provider;
}

/** The providers of one organization (default the caller's active one) the caller may manage; none without one. */
export async function listProviders(registry: Registry, caller: Caller, organizationId?: string): Promise<ProviderRecord[]> {
  const id = organizationId ?? caller.activeOrganizationId;
  if (!id || !(await managerRole(registry, caller, id))) return [];
  return registry.store.listProviders(id);
}

export async function getProvider(registry: Registry, caller: Caller, providerId: string): Promise<ProviderRecord> {
  return (await managedProvider(registry, caller, providerId)).provider;
}

export async function updateProvider(registry: Registry, caller: Caller, input: UpdateInput): Promise<ProviderRecord> {
  const { providerId, ...fields } = input;
  if (Object.values(fields).every((v) => v === undefined)) throw new AuthError("NO_FIELDS_PROVIDED_FOR_UPDATE");
  const { provider, role } = await managedProvider(registry, caller, providerId);
  if (input.defaultRole !== undefined) checkDefaultRole(role, input.defaultRole);
  const issuer = input.issuer ?? provider.issuer;
  const patch: ProviderPatch = { updatedAt: registry.now(), enabled: input.enabled, defaultRole: input.defaultRole };
  if (input.issuer !== undefined) patch.issuer = input.issuer;
  if (input.domain !== undefined && input.domain !== provider.domain) {
    await refuseDomainOfAnother(registry, provider.organizationId, input.domain);
    patch.domain = input.domain;
    patch.domainVerified = await domainVerifiedFor(registry, provider.organizationId, input.domain);
  }
  // A new issuer or new OpenID settings are discovered and checked again.
  if (provider.type === "oidc" && (input.oidc || input.issuer !== undefined)) {
    const kept: Partial<OidcSettings> | null =
      input.issuer !== undefined && input.issuer !== provider.issuer && provider.oidc
        ? // Another issuer: its endpoints are discovered afresh; the client and its choices are kept.
          (({ clientId, sealedClientSecret, scopes, pkce, tokenEndpointAuthentication, mapping }) => ({
            clientId,
            sealedClientSecret,
            scopes,
            pkce,
            tokenEndpointAuthentication,
            mapping,
          }))(provider.oidc)
        : provider.oidc;
    patch.oidc = await oidcSettings(registry, providerId, issuer, input.oidc ?? {}, kept);
  }
  if (input.saml !== undefined && provider.type !== "saml") throw new AuthError("VALIDATION_ERROR", "samlConfig is for a SAML provider");
  if (input.oidc !== undefined && provider.type !== "oidc") throw new AuthError("VALIDATION_ERROR", "oidcConfig is for an OpenID Connect provider");
  if (provider.type === "saml" && input.saml) {
    const previous = provider.saml ? readSamlSettings(provider.saml) : null;
    patch.saml = await samlSettingsFromInput(input.saml, { issuer, previous, fetchMetadata: registry.samlMetadata });
  }
  const updated = await registry.store.updateProvider(providerId, patch);
  if (!updated) throw new AuthError("PROVIDER_NOT_FOUND");
  return updated;
}

export async function deleteProvider(registry: Registry, caller: Caller, providerId: string): Promise<void> {
  await managedProvider(registry, caller, providerId);
  if (!(await registry.store.deleteProvider(providerId))) throw new AuthError("PROVIDER_NOT_FOUND");
  registry.log.info("sso provider deleted", { providerId });
}
