/**
 * /api-key/*: @better-auth/api-key 1.7's routes (docs/http-api/api-keys.md). Each checks the shape and makes
 * one call to identity's ApiKeyService, which owns every rule (owners, organization roles, hashing, limits:
 * docs/adr/0075-api-keys.md). /api-key/verify takes no session: a service presents the key it was given.
 */
import * as z from "zod";
import { AuthError, ERRORS } from "@auth-platform/proto/errors";
import type { ApiKey, ApiKeyActions } from "@auth-platform/proto/gen/auth/identity/v1/api_key";
import { call } from "@auth-platform/runtime/rpc";
import { callerOf } from "../http/caller.js";
import { defineRoute, type Route } from "../http/define-route.js";
import {
  apiKeyListSchema,
  apiKeySchema,
  createdApiKeySchema,
  deletedExpiredApiKeysSchema,
  type PublicApiKey,
  successSchema,
  verifiedApiKeySchema,
} from "../http/public-schemas.js";
import type { RouteDeps } from "./deps.js";

const id = z.string().min(1).max(64);
const permissions = z.record(z.string().max(64), z.array(z.string().max(64)).max(16));
/** Any JSON value: identity answers INVALID_METADATA_TYPE for one that is not an object. */
const metadata = z.unknown();
const seconds = z
  .number()
  .int()
  .min(1)
  .max(10 * 365 * 86_400);
const windowMs = z
  .number()
  .int()
  .min(0)
  .max(2 ** 31);
const max = z
  .number()
  .int()
  .min(0)
  .max(2 ** 31);

export const createApiKeyBody = z.object({
  name: z.string().max(256).optional(),
  expiresIn: seconds.nullish(),
  prefix: z.string().max(256).optional(),
  metadata: metadata.optional(),
  permissions: permissions.optional(),
  rateLimitEnabled: z.boolean().optional(),
  rateLimitTimeWindow: windowMs.optional(),
  rateLimitMax: max.optional(),
  organizationId: id.optional(),
  // better-auth's: a usage quota (none here), a config id (one configuration), a user id (server-only there):
  // accepted by shape; a quota or another user's id is refused below.
  remaining: z.number().nullish(),
  refillAmount: z.number().optional(),
  refillInterval: z.number().optional(),
  configId: z.string().max(64).optional(),
  userId: z.string().max(64).optional(),
});
export const apiKeyQuery = z.object({ id, configId: z.string().max(64).optional() });
export const listApiKeysQuery = z.object({
  organizationId: id.optional(),
  configId: z.string().max(64).optional(),
  limit: z.coerce.number().int().min(0).max(1000).optional(),
  offset: z.coerce.number().int().min(0).optional(),
  sortBy: z.enum(["createdAt", "updatedAt", "name", "expiresAt", "lastRequest"]).optional(),
  sortDirection: z.enum(["asc", "desc"]).optional(),
});
export const updateApiKeyBody = z.object({
  keyId: id,
  name: z.string().max(256).optional(),
  enabled: z.boolean().optional(),
  expiresIn: seconds.nullish(),
  metadata: metadata.optional(),
  permissions: permissions.nullish(),
  rateLimitEnabled: z.boolean().optional(),
  rateLimitTimeWindow: windowMs.optional(),
  rateLimitMax: max.optional(),
  configId: z.string().max(64).optional(),
  userId: z.string().max(64).optional(),
  remaining: z.number().optional(),
  refillAmount: z.number().optional(),
  refillInterval: z.number().optional(),
});
export const deleteApiKeyBody = z.object({ keyId: id, configId: z.string().max(64).optional() });
export const verifyApiKeyBody = z.object({ key: z.string().min(1).max(512), permissions: permissions.optional(), configId: z.string().max(64).optional() });

const toActions = (map: Record<string, string[]>): Record<string, ApiKeyActions> => Object.fromEntries(Object.entries(map).map(([resource, actions]) => [resource, { actions }]));

/** A key in better-auth's shape. */
export function publicApiKey(key: ApiKey): PublicApiKey {
  const permissionEntries = Object.entries(key.permissions);
  const windowMs = key.rateLimitWindowMs === undefined ? null : Number(key.rateLimitWindowMs);
  return {
    id: key.id,
    configId: "default",
    name: key.name ?? null,
    start: key.start ?? null,
    prefix: key.prefix ?? null,
    referenceId: key.organizationId ?? key.userId ?? "",
    userId: key.userId ?? null,
    organizationId: key.organizationId ?? null,
    refillInterval: null,
    refillAmount: null,
    lastRefillAt: null,
    enabled: key.enabled,
    rateLimitEnabled: key.rateLimitMax !== undefined,
    rateLimitTimeWindow: windowMs,
    rateLimitMax: key.rateLimitMax ?? null,
    requestCount: 0,
    remaining: null,
    lastRequest: key.lastUsedAt?.toISOString() ?? null,
    expiresAt: key.expiresAt?.toISOString() ?? null,
    createdAt: key.createdAt!.toISOString(),
    updatedAt: key.updatedAt!.toISOString(),
    metadata: key.metadataJson === undefined ? null : (JSON.parse(key.metadataJson) as Record<string, unknown>),
    permissions: permissionEntries.length ? Object.fromEntries(permissionEntries.map(([resource, { actions }]) => [resource, actions])) : null,
  };
}

/** better-auth's fields this platform has no use for: a quota, or a key for someone else. */
function refuseUnsupported(
  body: { remaining?: number | null | undefined; refillAmount?: number | undefined; refillInterval?: number | undefined; userId?: string | undefined },
  userId: string,
) {
  if ((body.remaining !== undefined && body.remaining !== null) || body.refillAmount !== undefined || body.refillInterval !== undefined)
    throw new AuthError("VALIDATION_ERROR", "remaining, refillAmount and refillInterval are not supported");
  if (body.userId !== undefined && body.userId !== userId) throw new AuthError("UNAUTHORIZED");
}

const SORTS = {
  createdAt: (k: PublicApiKey) => k.createdAt,
  updatedAt: (k: PublicApiKey) => k.updatedAt,
  name: (k: PublicApiKey) => k.name ?? "",
  expiresAt: (k: PublicApiKey) => k.expiresAt ?? "9999",
  lastRequest: (k: PublicApiKey) => k.lastRequest ?? "",
} as const;

export function apiKeyRoutes({ clients }: RouteDeps): Route[] {
  const apiKeys = clients.apiKeys;
  return [
    defineRoute(
      {
        method: "post",
        path: "/api-key/create",
        tag: "API keys",
        summary: "Create an API key for the caller or an organization (the key is answered once)",
        session: "required",
        body: createApiKeyBody,
        response: createdApiKeySchema,
        errors: [
          "INVALID_NAME_LENGTH",
          "INVALID_PREFIX_LENGTH",
          "INVALID_METADATA_TYPE",
          "EXPIRES_IN_IS_TOO_SMALL",
          "EXPIRES_IN_IS_TOO_LARGE",
          "INVALID_API_KEY_PERMISSIONS",
          "USER_NOT_MEMBER_OF_ORGANIZATION",
          "INSUFFICIENT_API_KEY_PERMISSIONS",
        ],
      },
      async ({ req, body, session, json }) => {
        refuseUnsupported(body, session.user.id);
        const limited = body.rateLimitEnabled !== false && (body.rateLimitTimeWindow !== undefined || body.rateLimitMax !== undefined);
        const { apiKey, key } = await call(apiKeys, apiKeys.createApiKey, {
          caller: callerOf(req, session),
          name: body.name,
          expiresInSeconds: body.expiresIn == null ? undefined : String(body.expiresIn),
          prefix: body.prefix,
          permissions: toActions(body.permissions ?? {}),
          metadataJson: body.metadata === undefined || body.metadata === null ? undefined : JSON.stringify(body.metadata),
          rateLimitWindowMs: limited && body.rateLimitTimeWindow !== undefined ? String(body.rateLimitTimeWindow) : undefined,
          rateLimitMax: limited ? body.rateLimitMax : undefined,
          organizationId: body.organizationId,
        });
        json({ ...publicApiKey(apiKey!), key });
      },
    ),
    defineRoute(
      {
        method: "get",
        path: "/api-key/get",
        tag: "API keys",
        summary: "One of the caller's keys, or of an organization's the caller may read",
        session: "required",
        query: apiKeyQuery,
        response: apiKeySchema,
        errors: ["KEY_NOT_FOUND"],
      },
      async ({ req, query, session, json }) => {
        const { apiKey } = await call(apiKeys, apiKeys.getApiKey, { caller: callerOf(req, session), id: query.id });
        json(publicApiKey(apiKey!));
      },
    ),
    defineRoute(
      {
        method: "get",
        path: "/api-key/list",
        tag: "API keys",
        summary: "The caller's keys, or an organization's",
        session: "required",
        query: listApiKeysQuery,
        response: apiKeyListSchema,
        errors: ["USER_NOT_MEMBER_OF_ORGANIZATION", "INSUFFICIENT_API_KEY_PERMISSIONS"],
      },
      async ({ req, query, session, json }) => {
        const { apiKeys: keys } = await call(apiKeys, apiKeys.listApiKeys, { caller: callerOf(req, session), organizationId: query.organizationId });
        let listed = keys.map(publicApiKey);
        if (query.sortBy) {
          const of = SORTS[query.sortBy];
          const sign = query.sortDirection === "desc" ? -1 : 1;
          listed = listed.sort((a, b) => sign * of(a).localeCompare(of(b)));
        }
        const from = query.offset ?? 0;
        const page = listed.slice(from, query.limit === undefined ? undefined : from + query.limit);
        json({ apiKeys: page, total: listed.length, limit: query.limit, offset: query.offset });
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/api-key/update",
        tag: "API keys",
        summary: "Change a key's name, state, expiry, metadata, permissions or rate limit",
        session: "required",
        body: updateApiKeyBody,
        response: apiKeySchema,
        errors: [
          "KEY_NOT_FOUND",
          "NO_VALUES_TO_UPDATE",
          "INVALID_NAME_LENGTH",
          "INVALID_METADATA_TYPE",
          "EXPIRES_IN_IS_TOO_SMALL",
          "EXPIRES_IN_IS_TOO_LARGE",
          "INVALID_API_KEY_PERMISSIONS",
        ],
      },
      async ({ req, body, session, json }) => {
        refuseUnsupported(body, session.user.id);
        const clearRateLimit = body.rateLimitEnabled === false;
        const { apiKey } = await call(apiKeys, apiKeys.updateApiKey, {
          caller: callerOf(req, session),
          id: body.keyId,
          name: body.name,
          enabled: body.enabled,
          expiresInSeconds: body.expiresIn == null ? undefined : String(body.expiresIn),
          clearExpiry: body.expiresIn === null,
          metadataJson: body.metadata === undefined ? undefined : JSON.stringify(body.metadata),
          permissions: toActions(body.permissions ?? {}),
          setPermissions: body.permissions !== undefined,
          rateLimitWindowMs: clearRateLimit || body.rateLimitTimeWindow === undefined ? undefined : String(body.rateLimitTimeWindow),
          rateLimitMax: clearRateLimit ? undefined : body.rateLimitMax,
          clearRateLimit,
        });
        json(publicApiKey(apiKey!));
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/api-key/delete",
        tag: "API keys",
        summary: "Delete one of the caller's keys, or of an organization's the caller may delete",
        session: "required",
        body: deleteApiKeyBody,
        response: successSchema,
        errors: ["KEY_NOT_FOUND"],
      },
      async ({ req, body, session, json }) => {
        await call(apiKeys, apiKeys.deleteApiKey, { caller: callerOf(req, session), id: body.keyId });
        json({ success: true });
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/api-key/delete-all-expired-api-keys",
        tag: "API keys",
        summary: "Delete every expired key (housekeeping: an expired key verifies as invalid anyway)",
        session: "required",
        response: deletedExpiredApiKeysSchema,
      },
      async ({ req, session, json }) => {
        await call(apiKeys, apiKeys.deleteExpiredApiKeys, { caller: callerOf(req, session) });
        json({ success: true, error: null });
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/api-key/verify",
        tag: "API keys",
        summary: "Verify a presented key (for services): its owner and permissions, or why not",
        body: verifyApiKeyBody,
        response: verifiedApiKeySchema,
      },
      async ({ body, json }) => {
        const answer = await call(apiKeys, apiKeys.verifyApiKey, { key: body.key, permissions: toActions(body.permissions ?? {}) });
        if (answer.valid && answer.key) return json({ valid: true, error: null, key: publicApiKey(answer.key) });
        const code = (answer.errorCode in ERRORS ? answer.errorCode : "INVALID_API_KEY") as keyof typeof ERRORS;
        json({ valid: false, error: { code, message: ERRORS[code].message }, key: null });
      },
    ),
  ];
}
