/** The sso store in process memory: for unit tests of the domain, and the contract's reference backend. */
import { AuthError } from "@auth-platform/proto/errors";
import { memorySamlStateStore } from "../saml/saml-state-store.js";
import { memoryDomainStore } from "./memory-domain-store.js";
import type { OidcSignInState, ProviderRecord, SsoStore } from "./sso-store.js";

const copy = (p: ProviderRecord): ProviderRecord => structuredClone(p);

export function createMemorySsoStore(): SsoStore {
  const providers = new Map<string, ProviderRecord>();
  const states = new Map<string, OidcSignInState>();
  const domainTaken = (domain: string, except?: string) => [...providers.values()].some((p) => p.domain === domain && p.providerId !== except);
  return {
    ...memoryDomainStore(),
    saml: memorySamlStateStore(),
    async insertProvider(provider) {
      if (providers.has(provider.providerId)) throw new AuthError("SSO_PROVIDER_WITH_THIS_PROVIDERID_ALREADY_EXISTS");
      if (domainTaken(provider.domain)) throw new AuthError("THIS_DOMAIN_IS_ALREADY_USED_BY_ANOTHER_SSO_PROVIDER");
      providers.set(provider.providerId, copy(provider));
    },
    async getProvider(providerId) {
      const found = providers.get(providerId);
      return found ? copy(found) : null;
    },
    async findProviderByDomain(domain) {
      const found = [...providers.values()].find((p) => p.domain === domain);
      return found ? copy(found) : null;
    },
    async listProviders(organizationId) {
      return [...providers.values()]
        .filter((p) => p.organizationId === organizationId)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.providerId < b.providerId ? -1 : 1))
        .map(copy);
    },
    async updateProvider(providerId, patch) {
      const found = providers.get(providerId);
      if (!found) return null;
      if (patch.domain !== undefined && domainTaken(patch.domain, providerId)) throw new AuthError("THIS_DOMAIN_IS_ALREADY_USED_BY_ANOTHER_SSO_PROVIDER");
      const updated = { ...found, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) } as ProviderRecord;
      providers.set(providerId, copy(updated));
      return copy(updated);
    },
    async deleteProvider(providerId) {
      return providers.delete(providerId);
    },
    async saveSignInState(state, now) {
      for (const [key, held] of states) if (held.expiresAt <= now) states.delete(key);
      states.set(state.state, { ...state });
    },
    async takeSignInState(state) {
      const held = states.get(state);
      states.delete(state);
      return held ?? null;
    },
    async close() {
      providers.clear();
    },
  };
}
