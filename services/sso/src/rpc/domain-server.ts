/** DomainService over gRPC (proto/auth/sso/v1/domain.proto): decode, call one use case, encode. */
import { type Domain, type DomainServiceServer, DomainServiceService } from "@auth-platform/proto/gen/auth/sso/v1/domain";
import type { RpcServer } from "@auth-platform/proto/rpc-server";
import { requireCaller } from "@auth-platform/runtime/caller";
import type { AccessTable } from "@auth-platform/runtime/grpc-access";
import type { ServiceBinding } from "@auth-platform/runtime/grpc-server";
import { applyDomainAutoJoin } from "../domains/auto-join.js";
import type { DomainView } from "../domains/domain-claims.js";
import {
  claimOrganizationDomain,
  listOrganizationDomains,
  type ManageDeps,
  removeOrganizationDomain,
  requestProviderDomainVerification,
  setOrganizationDomainAutoJoin,
  verifyOrganizationDomain,
  verifyProviderDomain,
} from "../domains/manage.js";

const GATEWAY = ["gateway"] as const;

/**
 * Who may call what (docs/internal-api.md): the gateway alone, for an organization's manager; identity alone
 * applies auto-join, for a user whose address it verified (docs/adr/0074-user-event-outbox.md).
 */
export const DOMAIN_ACCESS: AccessTable = {
  ListDomains: GATEWAY,
  ClaimDomain: GATEWAY,
  VerifyDomain: GATEWAY,
  RemoveDomain: GATEWAY,
  SetDomainAutoJoin: GATEWAY,
  RequestProviderDomainVerification: GATEWAY,
  VerifyProviderDomain: GATEWAY,
  ApplyDomainAutoJoin: ["identity"],
};

export const toDomainMessage = (view: DomainView): Domain => ({
  id: view.id,
  organizationId: view.organizationId,
  domain: view.domain,
  status: view.status,
  recordName: view.record.name,
  recordValue: view.record.value,
  createdAt: view.createdAt,
  expiresAt: view.expiresAt,
  verifiedAt: view.verifiedAt ?? undefined,
  autoJoinRole: view.autoJoinRole ?? undefined,
});

export function domainService(deps: ManageDeps, rpc: RpcServer): ServiceBinding {
  const implementation: DomainServiceServer = {
    listDomains: rpc.unary("ListDomains", async (req) => ({
      domains: (await listOrganizationDomains(deps, requireCaller(req.caller), req.organizationId)).map(toDomainMessage),
    })),
    claimDomain: rpc.unary("ClaimDomain", async (req) => ({
      domain: toDomainMessage(await claimOrganizationDomain(deps, requireCaller(req.caller), req.organizationId, req.domain)),
    })),
    verifyDomain: rpc.unary("VerifyDomain", async (req) => ({
      domain: toDomainMessage(await verifyOrganizationDomain(deps, requireCaller(req.caller), req.organizationId, req.domainId)),
    })),
    removeDomain: rpc.unary("RemoveDomain", async (req) => {
      await removeOrganizationDomain(deps, requireCaller(req.caller), req.organizationId, req.domainId);
      return {};
    }),
    setDomainAutoJoin: rpc.unary("SetDomainAutoJoin", async (req) => ({
      domain: toDomainMessage(await setOrganizationDomainAutoJoin(deps, requireCaller(req.caller), req.organizationId, req.domainId, req.role ?? null)),
    })),
    requestProviderDomainVerification: rpc.unary("RequestProviderDomainVerification", async (req) => {
      const { token, domain } = await requestProviderDomainVerification(deps, requireCaller(req.caller), req.providerId);
      return { token, domain: toDomainMessage(domain) };
    }),
    verifyProviderDomain: rpc.unary("VerifyProviderDomain", async (req) => ({
      domain: toDomainMessage(await verifyProviderDomain(deps, requireCaller(req.caller), req.providerId)),
    })),
    applyDomainAutoJoin: rpc.unary("ApplyDomainAutoJoin", async (req) => {
      const joined = await applyDomainAutoJoin(deps, { userId: req.userId, email: req.email, verifiedAt: req.verifiedAt ?? new Date(0) });
      return joined ?? {};
    }),
  };
  return {
    definition: DomainServiceService,
    implementation: implementation as unknown as ServiceBinding["implementation"],
    name: "auth.sso.v1.DomainService",
    access: DOMAIN_ACCESS,
  };
}
