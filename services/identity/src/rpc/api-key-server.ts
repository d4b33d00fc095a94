/**
 * ApiKeyService over gRPC: decode, call one use case, encode. The management RPCs act for the caller the
 * gateway asserts; VerifyApiKey takes only the presented key and is open to internal-client too.
 */
import { type ApiKey, type ApiKeyActions, type ApiKeyServiceServer, ApiKeyServiceService } from "@auth-platform/proto/gen/auth/identity/v1/api_key";
import { AuthError } from "@auth-platform/proto/errors";
import type { RpcServer } from "@auth-platform/proto/rpc-server";
import { requireCaller } from "@auth-platform/runtime/caller";
import type { AccessTable } from "@auth-platform/runtime/grpc-access";
import type { ServiceBinding } from "@auth-platform/runtime/grpc-server";
import { createApiKey, deleteApiKey, deleteExpiredApiKeys, deleteOrganizationApiKeys, getApiKey, listApiKeys, updateApiKey, verifyApiKey } from "../domain/api-keys.js";
import type { Registry } from "../domain/ports.js";
import type { ApiKeyPermissions, ApiKeyRecord } from "../store/api-key-store.js";

const GATEWAY = ["gateway"] as const;

/**
 * Who may call what (docs/internal-api.md): management for the caller, the gateway alone; verification also
 * our users' own services; a deleted organization's keys, the organization service alone.
 */
export const API_KEY_ACCESS: AccessTable = {
  CreateApiKey: GATEWAY,
  GetApiKey: GATEWAY,
  ListApiKeys: GATEWAY,
  UpdateApiKey: GATEWAY,
  DeleteApiKey: GATEWAY,
  DeleteExpiredApiKeys: GATEWAY,
  VerifyApiKey: ["gateway", "internal-client"],
  DeleteOrganizationApiKeys: ["organization"],
};

const MAX_RESOURCES = 16;
const MAX_ACTIONS = 16;

function permissionsOf(map: Record<string, ApiKeyActions>): ApiKeyPermissions {
  const entries = Object.entries(map);
  if (entries.length > MAX_RESOURCES || entries.some(([, v]) => (v.actions?.length ?? 0) > MAX_ACTIONS)) throw new AuthError("VALIDATION_ERROR", "permissions is too long");
  return Object.fromEntries(entries.map(([resource, v]) => [resource, v.actions ?? []]));
}

function metadataOf(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  if (text.length > 8_192) throw new AuthError("VALIDATION_ERROR", "metadata is too large");
  try {
    return JSON.parse(text);
  } catch {
    throw new AuthError("INVALID_METADATA_TYPE");
  }
}

/** An int64 from the wire (a decimal string), or VALIDATION_ERROR naming the field. */
function int64(field: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new AuthError("VALIDATION_ERROR", `${field} must be an integer`);
  return n;
}

export const toApiKeyMessage = (key: ApiKeyRecord): ApiKey => ({
  id: key.id,
  name: key.name ?? undefined,
  start: key.start ?? undefined,
  prefix: key.prefix ?? undefined,
  userId: key.userId ?? undefined,
  organizationId: key.organizationId ?? undefined,
  permissions: Object.fromEntries(Object.entries(key.permissions ?? {}).map(([resource, actions]) => [resource, { actions }])),
  metadataJson: key.metadata === null ? undefined : JSON.stringify(key.metadata),
  enabled: key.enabled,
  expiresAt: key.expiresAt ?? undefined,
  rateLimitWindowMs: key.rateLimitWindowMs === null ? undefined : String(key.rateLimitWindowMs),
  rateLimitMax: key.rateLimitMax ?? undefined,
  lastUsedAt: key.lastUsedAt ?? undefined,
  createdAt: key.createdAt,
  updatedAt: key.updatedAt,
});

export function apiKeyService(registry: Registry, rpc: RpcServer): ServiceBinding {
  const implementation: ApiKeyServiceServer = {
    createApiKey: rpc.unary("CreateApiKey", async (req) => {
      const { key, record } = await createApiKey(registry, requireCaller(req.caller), {
        name: req.name,
        expiresInSeconds: int64("expiresIn", req.expiresInSeconds),
        prefix: req.prefix,
        permissions: permissionsOf(req.permissions),
        metadata: metadataOf(req.metadataJson),
        rateLimitWindowMs: int64("rateLimitTimeWindow", req.rateLimitWindowMs),
        rateLimitMax: req.rateLimitMax,
        organizationId: req.organizationId || undefined,
      });
      return { apiKey: toApiKeyMessage(record), key };
    }),
    getApiKey: rpc.unary("GetApiKey", async (req) => ({ apiKey: toApiKeyMessage(await getApiKey(registry, requireCaller(req.caller), req.id)) })),
    listApiKeys: rpc.unary("ListApiKeys", async (req) => ({
      apiKeys: (await listApiKeys(registry, requireCaller(req.caller), req.organizationId || undefined)).map(toApiKeyMessage),
    })),
    updateApiKey: rpc.unary("UpdateApiKey", async (req) => {
      const caller = requireCaller(req.caller);
      const windowMs = int64("rateLimitTimeWindow", req.rateLimitWindowMs);
      if ((windowMs === undefined) !== (req.rateLimitMax === undefined) && !req.clearRateLimit)
        throw new AuthError("VALIDATION_ERROR", "rateLimitTimeWindow and rateLimitMax go together");
      const updated = await updateApiKey(registry, caller, req.id, {
        name: req.name,
        enabled: req.enabled,
        expiresInSeconds: req.clearExpiry ? null : int64("expiresIn", req.expiresInSeconds),
        metadata: metadataOf(req.metadataJson),
        permissions: req.setPermissions ? permissionsOf(req.permissions) : undefined,
        rateLimit: req.clearRateLimit ? null : windowMs === undefined ? undefined : { windowMs, max: req.rateLimitMax! },
      });
      return { apiKey: toApiKeyMessage(updated) };
    }),
    deleteApiKey: rpc.unary("DeleteApiKey", async (req) => {
      await deleteApiKey(registry, requireCaller(req.caller), req.id);
      return {};
    }),
    deleteExpiredApiKeys: rpc.unary("DeleteExpiredApiKeys", async (req) => {
      return { deleted: await deleteExpiredApiKeys(registry, requireCaller(req.caller)) };
    }),
    verifyApiKey: rpc.unary("VerifyApiKey", async (req) => {
      const result = await verifyApiKey(registry, req.key, permissionsOf(req.permissions));
      if (result.valid) return { valid: true, errorCode: "", key: toApiKeyMessage(result.key), retryAfterMs: "0" };
      return { valid: false, errorCode: result.code, key: undefined, retryAfterMs: String(result.retryAfterMs ?? 0) };
    }),
    deleteOrganizationApiKeys: rpc.unary("DeleteOrganizationApiKeys", async (req) => ({ deleted: await deleteOrganizationApiKeys(registry, req.organizationId) })),
  };
  return {
    definition: ApiKeyServiceService,
    implementation: implementation as unknown as ServiceBinding["implementation"],
    name: "auth.identity.v1.ApiKeyService",
    access: API_KEY_ACCESS,
  };
}
