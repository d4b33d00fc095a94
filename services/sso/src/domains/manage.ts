/**
 * The verified-domain use cases as the gateway calls them, for a caller who manages the organization (an
 * owner or admin: the sso service's manager roles). Another organization's claim is DOMAIN_NOT_FOUND and
 * an organization the caller may not manage is refused the same way whether it exists or not.
 */
import { AuthError } from "@auth-platform/proto/errors";
import type { Caller } from "@auth-platform/runtime/caller";
import { newId } from "@auth-platform/runtime/random";
import { claimDomain, type DomainDeps, type DomainRecord, type DomainView, domainView, ownClaim, setAutoJoin, verifyDomainClaim } from "./domain-claims.js";
import type { AutoJoinDeps } from "./auto-join.js";
import type { TxtResolver } from "./txt-resolver.js";
import type { SsoStore } from "../store/sso-store.js";

/** An identity provider as domains need it: its organization and domain (services/sso/src/store). */
export interface ProviderOfDomain {
  organizationId: string;
  domain: string;
}

export interface ManageDeps extends DomainDeps, AutoJoinDeps {
  /** Whether the caller holds a manager role in the organization. */
  mayManage(caller: Caller, organizationId: string): Promise<boolean>;
  /** The provider, or null. */
  findProvider(providerId: string): Promise<ProviderOfDomain | null>;
  /** Told when a domain becomes verified, or a verified one is removed: providers route by it (ADR 0068). */
  domainVerifiedChanged(organizationId: string, domain: string, verified: boolean): Promise<void>;
}

async function requireManager(deps: ManageDeps, caller: Caller, organizationId: string): Promise<void> {
  if (!organizationId || !(await deps.mayManage(caller, organizationId))) throw new AuthError("YOU_ARE_NOT_ALLOWED_TO_MANAGE_THIS_ORGANIZATIONS_DOMAINS");
}

async function managedClaim(deps: ManageDeps, caller: Caller, organizationId: string, id: string): Promise<DomainRecord> {
  await requireManager(deps, caller, organizationId);
  return ownClaim(deps, organizationId, id);
}

export async function listOrganizationDomains(deps: ManageDeps, caller: Caller, organizationId: string): Promise<DomainView[]> {
  await requireManager(deps, caller, organizationId);
  const now = deps.now();
  return (await deps.domains.listDomains(organizationId)).map((record) => domainView(record, now));
}

export async function claimOrganizationDomain(deps: ManageDeps, caller: Caller, organizationId: string, domain: string): Promise<DomainView> {
  await requireManager(deps, caller, organizationId);
  return claimDomain(deps, organizationId, domain);
}

export async function verifyOrganizationDomain(deps: ManageDeps, caller: Caller, organizationId: string, id: string): Promise<DomainView> {
  const verified = await verifyDomainClaim(deps, await managedClaim(deps, caller, organizationId, id));
  await deps.domainVerifiedChanged(organizationId, verified.domain, true);
  return verified;
}

export async function removeOrganizationDomain(deps: ManageDeps, caller: Caller, organizationId: string, id: string): Promise<void> {
  const record = await managedClaim(deps, caller, organizationId, id);
  await deps.domains.deleteDomain(record.id);
  if (record.verifiedAt) await deps.domainVerifiedChanged(organizationId, record.domain, false);
}

export async function setOrganizationDomainAutoJoin(deps: ManageDeps, caller: Caller, organizationId: string, id: string, role: string | null): Promise<DomainView> {
  return setAutoJoin(deps, await managedClaim(deps, caller, organizationId, id), role);
}

/** The provider, when the caller may manage its organization; PROVIDER_NOT_FOUND otherwise (no probing). */
async function managedProvider(deps: ManageDeps, caller: Caller, providerId: string): Promise<ProviderOfDomain> {
  const provider = await deps.findProvider(providerId);
  if (!provider || !(await deps.mayManage(caller, provider.organizationId))) throw new AuthError("PROVIDER_NOT_FOUND");
  return provider;
}

/** better-auth's /sso/request-domain-verification: the provider's domain claimed for its organization. */
export async function requestProviderDomainVerification(deps: ManageDeps, caller: Caller, providerId: string): Promise<{ token: string; domain: DomainView }> {
  const provider = await managedProvider(deps, caller, providerId);
  const domain = await claimDomain(deps, provider.organizationId, provider.domain);
  const record = await ownClaim(deps, provider.organizationId, domain.id);
  return { token: record.token, domain };
}

/** better-auth's /sso/verify-domain: the claim of the provider's domain verified, or NO_PENDING_VERIFICATION. */
export async function verifyProviderDomain(deps: ManageDeps, caller: Caller, providerId: string): Promise<DomainView> {
  const provider = await managedProvider(deps, caller, providerId);
  const verified = await deps.domains.findVerifiedDomain(provider.domain);
  if (verified) throw new AuthError(verified.organizationId === provider.organizationId ? "DOMAIN_VERIFIED" : "DOMAIN_IS_VERIFIED_BY_ANOTHER_ORGANIZATION");
  const claim = await deps.domains.findDomainClaim(provider.organizationId, provider.domain);
  if (!claim) throw new AuthError("NO_PENDING_VERIFICATION");
  const view = await verifyDomainClaim(deps, claim);
  await deps.domainVerifiedChanged(provider.organizationId, view.domain, true);
  return view;
}

/** What the domain use cases need, from the sso service's registry. */
export function manageDeps(registry: {
  store: SsoStore;
  resolver: TxtResolver;
  now: () => Date;
  config: { claimTtlMs: number; managerRoles: string[] };
  organizations: {
    membershipRole(userId: string, organizationId: string): Promise<string | null>;
    addMember(organizationId: string, userId: string, role: string): Promise<void>;
  };
}): ManageDeps {
  const { store } = registry;
  return {
    domains: store,
    resolver: registry.resolver,
    now: registry.now,
    newId,
    claimTtlMs: registry.config.claimTtlMs,
    async mayManage(caller, organizationId) {
      const role = await registry.organizations.membershipRole(caller.userId, organizationId);
      return (role ?? "").split(",").some((r) => registry.config.managerRoles.includes(r.trim()));
    },
    findProvider: (providerId) => store.getProvider(providerId),
    addMember: (organizationId, userId, role) => registry.organizations.addMember(organizationId, userId, role),
    async domainVerifiedChanged(organizationId, domain, verified) {
      for (const provider of await store.listProviders(organizationId)) {
        if (provider.domain === domain && provider.domainVerified !== verified) await store.updateProvider(provider.providerId, { domainVerified: verified });
      }
    },
  };
}
