/** The sso store port: the identity providers organizations registered, and their verified domains. */
import type { DomainStore } from "../domains/domain-claims.js";
import type { SamlStateStore } from "../saml/saml-state-store.js";

/** Which claims give a user's fields (a dotted path reads a nested object). */
export interface ClaimMapping {
  id: string;
  email: string;
  emailVerified: string;
  name: string;
  image: string;
}

/** An OpenID Connect provider's settings, as stored: the client secret sealed (secret-box.ts). */
export interface OidcSettings {
  clientId: string;
  /** `keyId.iv.ciphertext.tag`, bound to the provider id; never answered. */
  sealedClientSecret: string;
  discoveryEndpoint: string;
  authorizationEndpoint: string | null;
  tokenEndpoint: string | null;
  userInfoEndpoint: string | null;
  jwksEndpoint: string | null;
  scopes: string[];
  pkce: boolean;
  tokenEndpointAuthentication: "client_secret_post" | "client_secret_basic";
  mapping: ClaimMapping;
}

export type ProviderType = "oidc" | "saml";

export interface ProviderRecord {
  /** Chosen at registration, unique; names the provider in routes. */
  providerId: string;
  organizationId: string;
  type: ProviderType;
  issuer: string;
  /** Lower-cased; unique across providers (one domain routes to one provider). */
  domain: string;
  /** Whether the domain routes sign-in (docs/adr/0068-a-domain-routes-sign-in-once-verified.md). */
  domainVerified: boolean;
  enabled: boolean;
  defaultRole: string;
  /** The user who registered it. */
  userId: string;
  oidc: OidcSettings | null;
  /** A SAML provider's settings, as the SAML part of the service writes them. */
  saml: Record<string, unknown> | null;
  createdAt: Date;
  updatedAt: Date;
}

export type ProviderPatch = Partial<Pick<ProviderRecord, "issuer" | "domain" | "domainVerified" | "enabled" | "defaultRole" | "oidc" | "saml" | "updatedAt">>;

/** An OpenID Connect sign-in between the redirect to the provider and its callback. */
export interface OidcSignInState {
  state: string;
  providerId: string;
  codeVerifier: string;
  nonce: string;
  callbackUrl: string;
  errorUrl: string | null;
  newUserUrl: string | null;
  expiresAt: Date;
}

export interface SsoStore extends DomainStore {
  /** Stores a new sign-in state, sweeping the expired ones. */
  saveSignInState(state: OidcSignInState, now: Date): Promise<void>;
  /** Removes and answers the state (once: a second take answers null), expired or not. */
  takeSignInState(state: string): Promise<OidcSignInState | null>;
  /** SSO_PROVIDER_WITH_THIS_PROVIDERID_ALREADY_EXISTS, THIS_DOMAIN_IS_ALREADY_USED_BY_ANOTHER_SSO_PROVIDER. */
  insertProvider(provider: ProviderRecord): Promise<void>;
  getProvider(providerId: string): Promise<ProviderRecord | null>;
  /** The provider whose domain is this one (lower-cased), if any. */
  findProviderByDomain(domain: string): Promise<ProviderRecord | null>;
  /** An organization's providers, oldest first. */
  listProviders(organizationId: string): Promise<ProviderRecord[]>;
  /** The provider as changed; null when it is gone. THIS_DOMAIN_IS_ALREADY_USED_BY_ANOTHER_SSO_PROVIDER. */
  updateProvider(providerId: string, patch: ProviderPatch): Promise<ProviderRecord | null>;
  /** Whether it was there. */
  deleteProvider(providerId: string): Promise<boolean>;
  /** SAML sign-in's pending requests, accepted assertions and handoffs (saml/saml-state-store.ts). */
  saml: SamlStateStore;
  close(): Promise<void>;
}
