/** Reads an OpenID provider's discovery document (OpenID Connect Discovery 1.0), each address checked first (outbound.ts). */
import { AuthError } from "@auth-platform/proto/errors";
import type { DiscoveredIssuer, DiscoveryPort } from "../domain/ports.js";
import { checkOutboundUrl } from "./outbound.js";

const str = (value: unknown) => (typeof value === "string" && value ? value : null);

/**
 * How long a sign-in reuses a document read before: a sign-in reads it twice (start and callback), each a
 * round trip to the provider otherwise. Registering and testing a provider always read it afresh.
 */
export const DISCOVERY_CACHE_MS = 5 * 60_000;
/** Documents kept at most (oldest read dropped first): one per provider's discovery address. */
const DISCOVERY_CACHE_SIZE = 1_000;

export function httpDiscovery(options: { timeoutMs: number; allowPrivateAddresses: boolean; now: () => Date }): DiscoveryPort {
  const kept = new Map<string, { issuer: DiscoveredIssuer; until: number }>();
  return {
    async checkEndpoint(url) {
      await checkOutboundUrl(url, options.allowPrivateAddresses);
    },
    async discover(discoveryEndpoint, { reuse = false } = {}) {
      const now = options.now().getTime();
      const hit = kept.get(discoveryEndpoint);
      if (reuse && hit && hit.until > now) return hit.issuer;
      const issuer = await read(discoveryEndpoint);
      kept.delete(discoveryEndpoint);
      if (kept.size >= DISCOVERY_CACHE_SIZE) kept.delete(kept.keys().next().value!);
      kept.set(discoveryEndpoint, { issuer, until: now + DISCOVERY_CACHE_MS });
      return issuer;
    },
  };

  async function read(discoveryEndpoint: string): Promise<DiscoveredIssuer> {
    const url = await checkOutboundUrl(discoveryEndpoint, options.allowPrivateAddresses);
    let document: Record<string, unknown>;
    try {
      const res = await fetch(url, { redirect: "error", headers: { accept: "application/json" }, signal: AbortSignal.timeout(options.timeoutMs) });
      if (!res.ok) throw new Error(`answered ${res.status}`);
      document = (await res.json()) as Record<string, unknown>;
    } catch {
      throw new AuthError("INVALID_OIDC_CONFIGURATION", "the discovery document could not be read");
    }
    const issuer = str(document?.issuer);
    const authorizationEndpoint = str(document?.authorization_endpoint);
    const tokenEndpoint = str(document?.token_endpoint);
    const jwksEndpoint = str(document?.jwks_uri);
    if (!issuer || !authorizationEndpoint || !tokenEndpoint || !jwksEndpoint) {
      throw new AuthError("INVALID_OIDC_CONFIGURATION", "the discovery document names no issuer, authorization, token or jwks endpoint");
    }
    const userInfoEndpoint = str(document.userinfo_endpoint);
    for (const endpoint of [authorizationEndpoint, tokenEndpoint, jwksEndpoint, userInfoEndpoint]) {
      if (endpoint) await checkOutboundUrl(endpoint, options.allowPrivateAddresses);
    }
    return { issuer, authorizationEndpoint, tokenEndpoint, jwksEndpoint, userInfoEndpoint };
  }
}
