/** Builds the oauth service's dependencies once: config, store, providers, identity client, clock. */
import { AccountServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/account";
import { call } from "@auth-platform/runtime/rpc";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import type { Logger } from "@auth-platform/runtime/log";
import type { OAuthConfig } from "./config.js";
import type { Registry } from "./domain/ports.js";
import { configuredProviders } from "./providers/registry.js";
import { toProfileMessage, toTokensMessage } from "./rpc/mappers.js";
import { openOAuthStore } from "./store/mikro-oauth-store.js";

export async function buildRegistry(config: OAuthConfig, log: Logger): Promise<Registry & { close(): Promise<void> }> {
  const store = await openOAuthStore(config.databaseUrl);
  // identity's AccountService: provider sign-in, linking and the tokens of the user oauth names.
  const accounts = createGrpcClient(AccountServiceClient, config.identityServiceUrl, { tls: config.grpc.tls, serverName: "identity" });
  const now = () => new Date();
  const providers = configuredProviders(config, now);
  if (providers.size === 0) log.warn("no identity provider is configured (<PROVIDER>_CLIENT_ID and _CLIENT_SECRET): social sign-in answers 'Provider not found'");
  else log.info("identity providers configured", { providers: [...providers.keys()] });
  return {
    config,
    store,
    providers,
    now,
    log,
    identity: {
      async signInWithProvider(profile, options) {
        const answer = await call(accounts, accounts.signInWithProvider, { profile: toProfileMessage(profile), sso: false, ...options });
        return { user: answer.user!, session: answer.session, twoFactor: answer.twoFactor, trustedDevice: answer.trustedDevice, isNewUser: answer.isNewUser };
      },
      async linkProviderAccount(userId, profile) {
        await call(accounts, accounts.linkProviderAccount, { userId, profile: toProfileMessage(profile) });
      },
      async checkProviderLink(userId, providerId) {
        await call(accounts, accounts.checkProviderLink, { userId, providerId });
      },
      async providerTokens(selection) {
        const answer = await call(accounts, accounts.loadProviderTokens, selection);
        return { ...answer, account: answer.account! };
      },
      async storeProviderTokens(userId, accountId, tokens) {
        await call(accounts, accounts.storeProviderTokens, { userId, accountId, tokens: { ...toTokensMessage(tokens) } });
      },
    },
    async close() {
      accounts.close();
      await store.close();
    },
  };
}
