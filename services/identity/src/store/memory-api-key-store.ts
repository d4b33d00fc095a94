/** The API key part of the memory identity store. */
import { AuthError } from "@auth-platform/proto/errors";
import type { ApiKeyRecord, ApiKeyStore } from "./api-key-store.js";

const copy = (record: ApiKeyRecord): ApiKeyRecord => structuredClone(record);

export function memoryApiKeyStore(): ApiKeyStore & { clear(): void; deleteUserApiKeys(userId: string): void } {
  const keys = new Map<string, ApiKeyRecord>();
  const windows = new Map<string, { start: number; count: number }>();
  return {
    async createApiKey(record) {
      for (const key of keys.values()) if (key.keyHash === record.keyHash) throw new AuthError("INTERNAL_SERVER_ERROR", "duplicate key hash");
      keys.set(record.id, copy(record));
    },
    async findApiKey(id) {
      const found = keys.get(id);
      return found ? copy(found) : null;
    },
    async findApiKeyByHash(keyHash) {
      for (const key of keys.values()) if (key.keyHash === keyHash) return copy(key);
      return null;
    },
    async listApiKeys(owner) {
      return [...keys.values()]
        .filter((k) => (owner.userId !== undefined ? k.userId === owner.userId : k.organizationId === owner.organizationId))
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id))
        .map(copy);
    },
    async updateApiKey(id, patch) {
      const found = keys.get(id);
      if (!found) return null;
      for (const [field, value] of Object.entries(patch)) if (value !== undefined) (found as unknown as Record<string, unknown>)[field] = structuredClone(value);
      return copy(found);
    },
    async deleteApiKey(id) {
      windows.delete(id);
      return keys.delete(id);
    },
    async deleteExpiredApiKeys(userId, now) {
      let deleted = 0;
      for (const [id, key] of keys)
        if (key.userId === userId && key.expiresAt && key.expiresAt <= now) {
          keys.delete(id);
          windows.delete(id);
          deleted++;
        }
      return deleted;
    },
    async deleteOrganizationApiKeys(organizationId) {
      let deleted = 0;
      for (const [id, key] of keys)
        if (key.organizationId === organizationId) {
          keys.delete(id);
          windows.delete(id);
          deleted++;
        }
      return deleted;
    },
    async hitApiKeyRateLimit(id, now, windowMs, max) {
      const at = now.getTime();
      const window = windows.get(id);
      if (!window || window.start + windowMs <= at) {
        windows.set(id, { start: at, count: 1 });
        return { allowed: max >= 1, resetMs: windowMs };
      }
      const resetMs = window.start + windowMs - at;
      if (window.count >= max) return { allowed: false, resetMs };
      window.count++;
      return { allowed: true, resetMs };
    },
    async recordApiKeyUses(uses) {
      for (const [id, at] of uses) {
        const key = keys.get(id);
        if (key && (!key.lastUsedAt || key.lastUsedAt < at)) key.lastUsedAt = new Date(at);
      }
    },
    deleteUserApiKeys(userId) {
      for (const [id, key] of keys) if (key.userId === userId) keys.delete(id);
    },
    clear() {
      keys.clear();
      windows.clear();
    },
  };
}
