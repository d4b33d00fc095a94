/** What the sso domain needs from outside itself. */
import type { User } from "@auth-platform/proto/gen/auth/common/v1/user";
import type { SignInWithProviderResponse } from "@auth-platform/proto/gen/auth/identity/v1/account";
import type { Caller } from "@auth-platform/runtime/caller";
import type { Logger } from "@auth-platform/runtime/log";
import type { SsoConfig } from "../config.js";
import type { MetadataFetcher } from "../saml/settings.js";
import type { TxtResolver } from "../domains/txt-resolver.js";
import type { SsoStore } from "../store/sso-store.js";
import type { SecretBox } from "./secret-box.js";

export type { Caller };

export interface OrganizationPort {
  /** The user's role in the organization (comma-separated roles), or null when they are not a member. */
  membershipRole(userId: string, organizationId: string): Promise<string | null>;
  /** Makes the user a member with the role (idempotent: an existing member keeps their role). */
  addMember(organizationId: string, userId: string, role: string): Promise<void>;
  /** The id of the organization with this slug, or null. */
  findOrganizationId(slug: string): Promise<string | null>;
}

/** What a provider said of the user, as identity's ProviderProfile. */
export interface SsoProfile {
  providerId: string;
  accountId: string;
  email: string;
  emailVerified: boolean;
  name: string;
  image?: string;
  idToken?: string;
  accessToken?: string;
  refreshToken?: string;
}

/** identity's answer to a provider sign-in, passed on to the gateway as it is. */
export type SignInOutcome = Omit<SignInWithProviderResponse, "user"> & { user: User };

/** identity's AccountService, the one RPC sso calls. */
export interface IdentityPort {
  /** Signs the user in (or up); `joinOrganization` is made before any session opens, or the sign-in fails. */
  signInWithProvider(
    profile: SsoProfile,
    options: { client: { ipAddress?: string; userAgent?: string }; trustedDevice?: string; joinOrganization: { organizationId: string; role: string } },
  ): Promise<SignInOutcome>;
}

/** An OpenID provider's discovery document, the fields we use. */
export interface DiscoveredIssuer {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  userInfoEndpoint: string | null;
  jwksEndpoint: string;
}

export interface DiscoveryPort {
  /**
   * Reads and checks the discovery document; INVALID_OIDC_CONFIGURATION when it cannot. `reuse`: a
   * document read in the last few minutes will do (sign-in); otherwise it is read afresh.
   */
  discover(discoveryEndpoint: string, options?: { reuse?: boolean }): Promise<DiscoveredIssuer>;
  /** Refuses (INVALID_OIDC_CONFIGURATION) an endpoint the service may not call: an admin's override of a discovered one. */
  checkEndpoint(url: string): Promise<void>;
}

export interface Registry {
  config: SsoConfig;
  store: SsoStore;
  organizations: OrganizationPort;
  identity: IdentityPort;
  discovery: DiscoveryPort;
  secrets: SecretBox;
  /** Reads a SAML IdP's metadata from the URL its admin typed (saml/metadata-fetch.ts). */
  samlMetadata: MetadataFetcher;
  /** Looks up the TXT records of domain claims (docs/adr/0071-verified-domains.md). */
  resolver: TxtResolver;
  log: Logger;
  now: () => Date;
}
