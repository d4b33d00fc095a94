/**
 * Builds the sso service's dependencies once: config, store, the organization and identity clients,
 * discovery, the secret box, clock, and SCIM's use-case dependencies with their delivery worker.
 */
import { AccountServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/account";
import { AdminUserServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/admin_user";
import { IdentityServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/identity";
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
import { startScimDeliveryWorker } from "./scim/delivery-worker.js";
import { grpcScimPeers } from "./scim/peers.js";
import type { ScimDeps } from "./scim/ports.js";
import { openSsoStore } from "./store/mikro-sso-store.js";

export async function buildRegistry(config: SsoConfig, log: Logger): Promise<Registry & { scim: ScimDeps; close(): Promise<void> }> {
  const store = await openSsoStore(config.databaseUrl);
  const tls = config.grpc.tls;
  const accounts = createGrpcClient(AccountServiceClient, config.identityServiceUrl, { tls, serverName: "identity" });
  const organization = createGrpcClient(OrganizationServiceClient, config.organizationServiceUrl, { tls, serverName: "organization" });
  const identity = createGrpcClient(IdentityServiceClient, config.identityServiceUrl, { tls, serverName: "identity" });
  const adminUsers = createGrpcClient(AdminUserServiceClient, config.identityServiceUrl, { tls, serverName: "identity" });
  const scim: ScimDeps = {
    store: store.scim,
    peers: grpcScimPeers({ identity, adminUsers, organization, domains: store }),
    now: () => new Date(),
  };
  const delivery = startScimDeliveryWorker(scim, log);
  scim.wakeDelivery = () => delivery.wake();
  return {
    scim,
    config,
    store,
    log,
    now: () => new Date(),
    secrets: secretBox(config.secret),
    samlMetadata: metadataFetcher((url) => checkOutboundUrl(url, config.allowPrivateAddresses), config.httpTimeoutMs),
    resolver: dnsTxtResolver(config.dns),
    discovery: httpDiscovery({ timeoutMs: config.httpTimeoutMs, allowPrivateAddresses: config.allowPrivateAddresses, now: () => new Date() }),
    organizations: {
      async addMember(organizationId, userId, role) {
        await call(organization, organization.addMember, { organizationId, userId, role });
      },
      async findOrganizationId(slug) {
        const { organizationId } = await call(organization, organization.findOrganizationId, { slug });
        return organizationId ?? null;
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
      await delivery.stop();
      accounts.close();
      organization.close();
      identity.close();
      adminUsers.close();
      await store.close();
    },
  };
}
