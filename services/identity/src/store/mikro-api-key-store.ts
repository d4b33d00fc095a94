/** The API key part of the identity store on MikroORM (SQLite or PostgreSQL). */
import { raw } from "@mikro-orm/core";
import type { Store } from "@auth-platform/runtime/store";
import type { ApiKeyPatch, ApiKeyRecord, ApiKeyStore } from "./api-key-store.js";
import { ApiKeyEntity, type ApiKeyRow } from "./entities.js";

export const API_KEY_ENTITIES = [ApiKeyEntity];

const json = <T>(text: string | null | undefined): T | null => (text ? (JSON.parse(text) as T) : null);
const text = (value: unknown) => (value === null ? null : JSON.stringify(value));

const toApiKey = (row: ApiKeyRow): ApiKeyRecord => ({
  id: row.id,
  name: row.name ?? null,
  start: row.start ?? null,
  prefix: row.prefix ?? null,
  keyHash: row.keyHash,
  userId: row.userId ?? null,
  organizationId: row.organizationId ?? null,
  permissions: json(row.permissions),
  metadata: json(row.metadata),
  enabled: Boolean(row.enabled),
  expiresAt: row.expiresAt ?? null,
  rateLimitWindowMs: row.rateLimitWindowMs == null ? null : Number(row.rateLimitWindowMs),
  rateLimitMax: row.rateLimitMax ?? null,
  lastUsedAt: row.lastUsedAt ?? null,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

function patchRow(patch: ApiKeyPatch): Partial<ApiKeyRow> {
  const row: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    row[field] = field === "permissions" || field === "metadata" ? text(value) : value;
  }
  return row as Partial<ApiKeyRow>;
}

export function mikroApiKeyStore(store: Store): ApiKeyStore {
  return {
    async createApiKey(record) {
      const { permissions, metadata, ...rest } = record;
      await store.em().insert(ApiKeyEntity, { ...rest, permissions: text(permissions), metadata: text(metadata), windowStart: null, requestCount: 0 });
    },
    async findApiKey(id) {
      const row = await store.em().findOne(ApiKeyEntity, { id });
      return row ? toApiKey(row) : null;
    },
    async findApiKeyByHash(keyHash) {
      const row = await store.em().findOne(ApiKeyEntity, { keyHash });
      return row ? toApiKey(row) : null;
    },
    async listApiKeys(owner) {
      const where = owner.userId !== undefined ? { userId: owner.userId } : { organizationId: owner.organizationId };
      return (await store.em().find(ApiKeyEntity, where, { orderBy: { createdAt: "asc", id: "asc" } })).map(toApiKey);
    },
    async updateApiKey(id, patch) {
      const em = store.em();
      if ((await em.nativeUpdate(ApiKeyEntity, { id }, patchRow(patch))) === 0) return null;
      const row = await em.findOne(ApiKeyEntity, { id }, { refresh: true });
      return row ? toApiKey(row) : null;
    },
    async deleteApiKey(id) {
      return (await store.em().nativeDelete(ApiKeyEntity, { id })) > 0;
    },
    async deleteExpiredApiKeys(userId, now) {
      return store.em().nativeDelete(ApiKeyEntity, { userId, expiresAt: { $lte: now } });
    },
    async deleteOrganizationApiKeys(organizationId) {
      return store.em().nativeDelete(ApiKeyEntity, { organizationId });
    },
    async hitApiKeyRateLimit(id, now, windowMs, max) {
      const em = store.em();
      const at = now.getTime();
      // A use counted in the running window, while it has room...
      if ((await em.nativeUpdate(ApiKeyEntity, { id, windowStart: { $gt: at - windowMs }, requestCount: { $lt: max } }, { requestCount: raw(`"request_count" + 1`) })) === 1) {
        const row = await em.findOne(ApiKeyEntity, { id }, { refresh: true, fields: ["windowStart"] });
        return { allowed: true, resetMs: Math.max(0, Number(row?.windowStart ?? at) + windowMs - at) };
      }
      // ...or the first of a new window, when none runs: of two racing here, one starts it, the other retries above.
      const fresh = { id, $or: [{ windowStart: null }, { windowStart: { $lte: at - windowMs } }] };
      if (max >= 1 && (await em.nativeUpdate(ApiKeyEntity, fresh, { windowStart: at, requestCount: 1 })) === 1) return { allowed: true, resetMs: windowMs };
      const row = await em.findOne(ApiKeyEntity, { id }, { refresh: true, fields: ["windowStart", "requestCount"] });
      if (row && row.windowStart != null && Number(row.windowStart) > at - windowMs && row.requestCount < max) return this.hitApiKeyRateLimit(id, now, windowMs, max);
      return { allowed: false, resetMs: Math.max(0, Number(row?.windowStart ?? at) + windowMs - at) };
    },
    async recordApiKeyUses(uses) {
      const em = store.em();
      for (const [id, at] of uses) await em.nativeUpdate(ApiKeyEntity, { id, $or: [{ lastUsedAt: null }, { lastUsedAt: { $lt: at } }] }, { lastUsedAt: at });
    },
  };
}
