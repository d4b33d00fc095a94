/** Builds the sso service's dependencies once: config, store, the organization client, discovery, the secret box, clock. */
import { AccountServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/account";
import { OrganizationServiceClient } from "@auth-platform/proto/gen/auth/organization/v1/organization";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import type { Logger } from "@auth-platform/runtime/log";
import { call } from "@auth-platform/runtime/rpc";
import type { SsoConfig } from "./config.js";
import type { Registry } from "./domain/ports.js";
import { secretBox } from "./domain/secret-box.js";
import { httpDiscovery } from "./oidc/discovery.js";
import { checkOutboundUrl } from "./oidc/outbound.js";
import { metadataFetcher } from "./saml/metadata-fetch.js";
import { dnsTxtResolver } from "./domains/txt-resolver.js";
import { openSsoStore } from "./store/mikro-sso-store.js";

export async function buildRegistry(config: SsoConfig, log: Logger): Promise<Registry & { close(): Promise<void> }> {
  const store = await openSsoStore(config.databaseUrl);
  const accounts = createGrpcClient(AccountServiceClient, config.identityServiceUrl, { tls: config.grpc.tls, serverName: "identity" });
  const organization = createGrpcClient(OrganizationServiceClient, config.organizationServiceUrl, { tls: config.grpc.tls, serverName: "organization" });
  return {
    config,
    store,
    log,
    now: () => new Date(),
    secrets: secretBox(config.secret),
    samlMetadata: metadataFetcher((url) => checkOutboundUrl(url, config.allowPrivateAddresses), config.httpTimeoutMs),
    resolver: dnsTxtResolver(config.dns),
    discovery: httpDiscovery({ timeoutMs: config.httpTimeoutMs, allowPrivateAddresses: config.allowPrivateAddresses }),
    organizations: {
      async addMember(organizationId, userId, role) {
        await call(organization, organization.addMember, { organizationId, userId, role });
      },
      async membershipRole(userId, organizationId) {
        const { member } = await call(organization, organization.getMembership, { userId, organizationId });
        return member?.role ?? null;
      },
    },
    identity: {
      async signInWithProvider(profile, options) {
        const answer = await call(accounts, accounts.signInWithProvider, {
          profile: { ...profile, scopes: [] },
          trusted: false,
          disableImplicitLinking: false,
          sso: true,
          ...options,
        });
        return { ...answer, user: answer.user! };
      },
    },
    async close() {
      accounts.close();
      organization.close();
      await store.close();
    },
  };
}
