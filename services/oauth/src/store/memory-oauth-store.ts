/** The oauth store in process memory: domain unit tests, and the contract's reference backend. */
import type { OAuthStore, SignInState } from "./oauth-store.js";

export function createMemoryOAuthStore(): OAuthStore {
  const states = new Map<string, SignInState>();
  const copy = (s: SignInState): SignInState => ({ ...s, link: s.link && { ...s.link } });
  return {
    async saveState(state) {
      if (states.has(state.state)) throw new Error("state already exists");
      states.set(state.state, copy(state));
    },
    async consumeState(state) {
      const found = states.get(state);
      if (!found) return null;
      states.delete(state);
      return copy(found);
    },
    async deleteExpired(now) {
      let deleted = 0;
      for (const [key, s] of states) if (s.expiresAt < now && states.delete(key)) deleted++;
      return deleted;
    },
    async close() {
      states.clear();
    },
  };
}
