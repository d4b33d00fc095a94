/**
 * Each assertion is accepted once: the ACS claims `(provider, assertion ID)` until the assertion expires; a
 * second claim of the same pair is a replay. The service's store implements the port for production (it
 * must hold across replicas); the memory one serves the domain tests.
 */
export interface SamlReplayStore {
  /** True when this is the first claim of `assertionId` for `providerId`; false when it was claimed before. */
  claim(providerId: string, assertionId: string, until: Date, now: Date): Promise<boolean>;
}

export function memoryReplayStore(): SamlReplayStore {
  const claimed = new Map<string, number>();
  return {
    async claim(providerId, assertionId, until, now) {
      for (const [key, expires] of claimed) if (expires <= now.getTime()) claimed.delete(key);
      const key = JSON.stringify([providerId, assertionId]);
      if (claimed.has(key)) return false;
      claimed.set(key, until.getTime());
      return true;
    },
  };
}
