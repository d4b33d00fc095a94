/**
 * The oauth domain's dependencies for unit tests: the memory store, a clock the test moves, a provider
 * whose answer the test sets, and a fake identity that applies the same outcome rules as identity's
 * (a user per email; errors the test asks for).
 */
import type { User } from "@auth-platform/proto/gen/auth/common/v1/user";
import { AuthError, type ErrorCode } from "@auth-platform/proto/errors";
import type { Logger } from "@auth-platform/runtime/log";
import { newId, randomString } from "@auth-platform/runtime/random";
import { oauthConfig } from "../src/config.js";
import { CodeExchangeError, ProfileError } from "../src/providers/provider.js";
import type { Provider, SignInResult } from "../src/providers/types.js";
import { createMemoryOAuthStore } from "../src/store/memory-oauth-store.js";
import type { Registry, VerifiedProfile } from "../src/domain/ports.js";

export const T0 = Date.UTC(2031, 0, 1);

export interface FakeProvider extends Provider {
  /** What complete() answers next: a result, "refuse" for a provider answer the flow refuses, "refuse-code" for a code the token endpoint refuses. */
  answer: SignInResult | "refuse" | "refuse-code";
  completed: Array<Parameters<Provider["complete"]>[0]>;
}

export function fakeProvider(id = "github"): FakeProvider {
  const provider: FakeProvider = {
    id,
    callbackPath: `/callback/${id}`,
    answer: {
      profile: { accountId: "42", email: "Ada@Example.com", emailVerified: true, name: "Ada", image: null },
      tokens: { accessToken: "at", scopes: ["read:user"] },
      raw: {},
    },
    completed: [],
    async authorizationUrl(input) {
      return `https://provider.example/authorize?state=${input.state}&redirect_uri=${encodeURIComponent(input.redirectUri)}`;
    },
    async complete(input) {
      provider.completed.push(input);
      if (provider.answer === "refuse-code") throw new CodeExchangeError("invalid_grant");
      if (provider.answer === "refuse") throw new ProfileError("refused");
      return provider.answer;
    },
    async refresh() {
      throw new ProfileError("the fake provider grants no refresh");
    },
    async accountInfo() {
      if (typeof provider.answer === "string") throw new ProfileError("refused");
      return provider.answer;
    },
  };
  return provider;
}

export interface TestRegistry extends Registry {
  advance(ms: number): void;
  provider: FakeProvider;
  signedIn: VerifiedProfile[];
  linked: Array<{ userId: string; profile: VerifiedProfile }>;
  /** Makes identity answer this catalogue error next. */
  identityFails?: ErrorCode;
  /** Emails identity already knows (sign-ins of them are not registrations). */
  knownEmails: Set<string>;
}

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent } as unknown as Logger;

export function testRegistry(env: Record<string, string> = {}): TestRegistry {
  let clock = T0;
  const provider = fakeProvider();
  const registry: TestRegistry = {
    config: oauthConfig({ AUTH_BASE_URL: "https://auth.example.com/api/auth", ...env }),
    store: createMemoryOAuthStore(),
    providers: new Map([[provider.id, provider]]),
    now: () => new Date(clock),
    log: silent,
    advance: (ms) => {
      clock += ms;
    },
    provider,
    signedIn: [],
    linked: [],
    knownEmails: new Set(),
    identity: {
      async signInWithProvider(profile) {
        if (registry.identityFails) throw new AuthError(registry.identityFails);
        registry.signedIn.push(profile);
        const isNewUser = !registry.knownEmails.has(profile.email);
        registry.knownEmails.add(profile.email);
        const user = { id: newId(), email: profile.email, name: profile.name } as User;
        return { user, session: { id: newId(), token: randomString(32), userId: user.id }, isNewUser };
      },
      async linkProviderAccount(userId, profile) {
        if (registry.identityFails) throw new AuthError(registry.identityFails);
        registry.linked.push({ userId, profile });
      },
      async checkProviderLink(userId, providerId) {
        if (registry.linked.some((link) => link.userId === userId && link.profile.providerId === providerId)) throw new AuthError("SOCIAL_ACCOUNT_ALREADY_LINKED");
      },
      async providerTokens() {
        throw new AuthError("ACCOUNT_NOT_FOUND");
      },
      async storeProviderTokens() {
        throw new AuthError("ACCOUNT_NOT_FOUND");
      },
    },
  };
  return registry;
}
