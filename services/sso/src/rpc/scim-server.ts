/** ScimService over gRPC (proto/auth/sso/v1/scim.proto): the token RPCs for an owner, and HandleScim. */
import { AuthError } from "@auth-platform/proto/errors";
import { type ScimToken, type ScimServiceServer, ScimServiceService } from "@auth-platform/proto/gen/auth/sso/v1/scim";
import type { RpcServer } from "@auth-platform/proto/rpc-server";
import { requireCaller } from "@auth-platform/runtime/caller";
import type { AccessTable } from "@auth-platform/runtime/grpc-access";
import type { ServiceBinding } from "@auth-platform/runtime/grpc-server";
import { handleScim } from "../scim/handler.js";
import type { ScimDeps } from "../scim/ports.js";
import { generateToken, listTokens, requireOwner, revokeToken, type ScimTokenSummary } from "../scim/tokens.js";
import * as valid from "./validation.js";

const GATEWAY = ["gateway"] as const;

/** Who may call what (docs/internal-api.md): the gateway alone (an owner's token routes, and /scim/v2). */
export const SCIM_ACCESS: AccessTable = {
  GenerateScimToken: GATEWAY,
  ListScimTokens: GATEWAY,
  RevokeScimToken: GATEWAY,
  HandleScim: GATEWAY,
};

const MAX_TOKEN_NAME = 100;

function tokenName(value: string): string {
  const name = value.trim();
  if (!name || name.length > MAX_TOKEN_NAME) throw new AuthError("VALIDATION_ERROR", `name must be 1 to ${MAX_TOKEN_NAME} characters`);
  return name;
}

const toTokenMessage = (t: ScimTokenSummary): ScimToken => ({
  id: t.id,
  name: t.name,
  prefix: t.prefix,
  createdBy: t.createdBy,
  createdAt: t.createdAt,
  lastUsedAt: t.lastUsedAt,
});

export function scimService(deps: ScimDeps, rpc: RpcServer): ServiceBinding {
  const implementation: ScimServiceServer = {
    generateScimToken: rpc.unary("GenerateScimToken", async (req) => {
      const caller = requireCaller(req.caller);
      const organizationId = valid.id("organizationId", req.organizationId);
      const name = tokenName(req.name);
      await requireOwner(deps, organizationId, caller.userId);
      const { token, summary } = await generateToken(deps, { organizationId, name, createdBy: caller.userId });
      return { token, summary: toTokenMessage(summary) };
    }),
    listScimTokens: rpc.unary("ListScimTokens", async (req) => {
      const caller = requireCaller(req.caller);
      const organizationId = valid.id("organizationId", req.organizationId);
      await requireOwner(deps, organizationId, caller.userId);
      return { tokens: (await listTokens(deps, organizationId)).map(toTokenMessage) };
    }),
    revokeScimToken: rpc.unary("RevokeScimToken", async (req) => {
      const caller = requireCaller(req.caller);
      const organizationId = valid.id("organizationId", req.organizationId);
      await requireOwner(deps, organizationId, caller.userId);
      if (!req.tokenId || !(await revokeToken(deps, organizationId, req.tokenId))) throw new AuthError("SCIM_TOKEN_NOT_FOUND");
      return {};
    }),
    handleScim: rpc.unary("HandleScim", async (req) => {
      const answer = await handleScim(deps, {
        authorization: req.authorization,
        method: req.method,
        resource: req.resource,
        id: req.id,
        query: req.query,
        body: req.body,
        ifMatch: req.ifMatch,
        baseUrl: req.baseUrl,
      });
      return { status: answer.status, body: answer.body, etag: answer.etag };
    }),
  };
  return {
    definition: ScimServiceService,
    implementation: implementation as unknown as ServiceBinding["implementation"],
    name: "auth.sso.v1.ScimService",
    access: SCIM_ACCESS,
  };
}
