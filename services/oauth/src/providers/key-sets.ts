/**
 * Id-token verification against a provider's key set, through jose: one remote key set per URL, fetched
 * with a 5 s timeout, refetched at most every 30 s when an unknown key id shows up, cached 10 minutes
 * (docs/adr/0042-social-sign-in-service-and-linking.md).
 */
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from "jose";

export const KEY_SET_TIMEOUT_MS = 5_000;
export const KEY_SET_COOLDOWN_MS = 30_000;
export const KEY_SET_CACHE_MS = 10 * 60_000;

export interface IdTokenCheck {
  jwksUrl: string;
  audience: string;
  /** Expected issuer(s); omitted for multi-tenant issuers (Microsoft's common endpoint). */
  issuer?: string | string[];
  /** The nonce the token must carry, when one was sent. */
  nonce?: string;
  /** Refuses tokens issued longer ago than this (Apple: under 1 h). */
  maxAgeSeconds?: number;
  now?: Date;
}

export interface KeySets {
  verify(token: string, check: IdTokenCheck): Promise<JWTPayload>;
}

export function keySets(): KeySets {
  const sets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
  const setFor = (url: string) => {
    let set = sets.get(url);
    if (!set) {
      set = createRemoteJWKSet(new URL(url), { timeoutDuration: KEY_SET_TIMEOUT_MS, cooldownDuration: KEY_SET_COOLDOWN_MS, cacheMaxAge: KEY_SET_CACHE_MS });
      sets.set(url, set);
    }
    return set;
  };
  return {
    async verify(token, check) {
      const { payload } = await jwtVerify(token, setFor(check.jwksUrl), {
        audience: check.audience,
        issuer: check.issuer,
        maxTokenAge: check.maxAgeSeconds,
        currentDate: check.now,
        algorithms: ["RS256", "ES256", "PS256", "EdDSA", "RS384", "RS512", "ES384"],
      });
      if (check.nonce !== undefined && payload.nonce !== check.nonce) throw new Error("id token nonce does not match");
      return payload;
    },
  };
}
