/**
 * The API key part of the IdentityStore contract, run on memory, SQLite and PostgreSQL: every field kept,
 * lookup by hash, owners' lists apart, partial updates, expired keys swept, the rate-limit window counted
 * exactly under concurrency, last-used times only moving forward, and a deleted user's keys gone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@auth-platform/runtime/random";
import type { ApiKeyRecord } from "./api-key-store.js";
import type { IdentityStore } from "./identity-store.js";
import { aUser, anAccount } from "./identity-store.contract.js";

const AT = new Date(Date.UTC(2031, 0, 1, 12, 0, 0, 123));
const later = (ms: number) => new Date(AT.getTime() + ms);

const aKey = (overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  id: newId(),
  name: "ci",
  start: "ak_abcd",
  prefix: "ak_",
  keyHash: newId(),
  userId: newId(),
  organizationId: null,
  permissions: { organization: ["update"] },
  metadata: { team: "platform", n: 3 },
  enabled: true,
  expiresAt: later(86_400_000),
  rateLimitWindowMs: 60_000,
  rateLimitMax: 10,
  lastUsedAt: null,
  createdAt: AT,
  updatedAt: AT,
  ...overrides,
});

export function apiKeyStoreContract(backend: string, open: () => Promise<IdentityStore>): void {
  describe(`IdentityStore API key contract (${backend})`, () => {
    let store: IdentityStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    it("stores every field, finds a key by id and by hash, lists each owner's keys oldest first", async () => {
      const userId = newId();
      const organizationId = newId();
      const first = aKey({ userId, rateLimitWindowMs: 4_000_000_000_000 });
      const second = aKey({
        userId,
        createdAt: later(1),
        name: null,
        start: null,
        prefix: null,
        permissions: null,
        metadata: null,
        expiresAt: null,
        rateLimitWindowMs: null,
        rateLimitMax: null,
      });
      const orgKey = aKey({ userId: null, organizationId });
      for (const key of [second, orgKey, first]) await store.createApiKey(key);
      expect(await store.findApiKey(first.id)).toEqual(first);
      expect(await store.findApiKeyByHash(second.keyHash)).toEqual(second);
      expect(await store.findApiKeyByHash("unknown")).toBeNull();
      expect(await store.listApiKeys({ userId })).toEqual([first, second]);
      expect(await store.listApiKeys({ organizationId })).toEqual([orgKey]);
      expect(await store.listApiKeys({ userId: organizationId })).toEqual([]);
    });

    it("refuses a second key with the same hash", async () => {
      const key = aKey();
      await store.createApiKey(key);
      await expect(store.createApiKey(aKey({ keyHash: key.keyHash }))).rejects.toThrow();
    });

    it("updates only the fields given, clears with null, answers null for an unknown key", async () => {
      const key = aKey();
      await store.createApiKey(key);
      const updated = await store.updateApiKey(key.id, { name: "renamed", enabled: false, expiresAt: null, permissions: { apiKey: ["read"] }, updatedAt: later(5) });
      expect(updated).toEqual({ ...key, name: "renamed", enabled: false, expiresAt: null, permissions: { apiKey: ["read"] }, updatedAt: later(5) });
      expect(await store.findApiKey(key.id)).toEqual(updated);
      expect(await store.updateApiKey(newId(), { name: "x", updatedAt: AT })).toBeNull();
    });

    it("deletes one key, and a user's own keys expired at a time", async () => {
      const userId = newId();
      const key = aKey({ userId });
      const expired = aKey({ userId, expiresAt: later(-1) });
      const endsNow = aKey({ userId, expiresAt: later(1_000) });
      const never = aKey({ userId, expiresAt: null });
      const othersExpired = aKey({ userId: newId(), expiresAt: later(-1) });
      for (const k of [key, expired, endsNow, never, othersExpired]) await store.createApiKey(k);
      expect(await store.deleteApiKey(key.id)).toBe(true);
      expect(await store.deleteApiKey(key.id)).toBe(false);
      expect(await store.deleteExpiredApiKeys(userId, later(1_000))).toBe(2);
      expect(await store.findApiKey(expired.id)).toBeNull();
      expect(await store.findApiKey(endsNow.id)).toBeNull();
      expect(await store.findApiKey(never.id)).not.toBeNull();
      expect(await store.findApiKey(othersExpired.id)).not.toBeNull();
    });

    it("deletes an organization's keys only, and deletes nothing on a repeat", async () => {
      const organizationId = newId();
      const first = aKey({ userId: null, organizationId });
      const second = aKey({ userId: null, organizationId });
      const otherOrganization = aKey({ userId: null, organizationId: newId() });
      const user = aKey({ userId: newId() });
      for (const k of [first, second, otherOrganization, user]) await store.createApiKey(k);
      expect(await store.deleteOrganizationApiKeys(organizationId)).toBe(2);
      expect(await store.findApiKey(first.id)).toBeNull();
      expect(await store.findApiKey(second.id)).toBeNull();
      expect(await store.findApiKey(otherOrganization.id)).not.toBeNull();
      expect(await store.findApiKey(user.id)).not.toBeNull();
      expect(await store.deleteOrganizationApiKeys(organizationId)).toBe(0);
    });

    it("counts uses in a fixed window, exactly under concurrent hits, and starts a new window when it ends", async () => {
      const key = aKey();
      await store.createApiKey(key);
      const hits = await Promise.all(Array.from({ length: 8 }, () => store.hitApiKeyRateLimit(key.id, AT, 60_000, 5)));
      expect(hits.filter((h) => h.allowed)).toHaveLength(5);
      const refused = await store.hitApiKeyRateLimit(key.id, later(59_000), 60_000, 5);
      expect(refused).toEqual({ allowed: false, resetMs: 1_000 });
      expect(await store.hitApiKeyRateLimit(key.id, later(60_000), 60_000, 5)).toEqual({ allowed: true, resetMs: 60_000 });
      expect((await store.hitApiKeyRateLimit(key.id, later(61_000), 60_000, 5)).allowed).toBe(true);
    });

    it("records last-used times in a batch, never moving one back", async () => {
      const a = aKey();
      const b = aKey();
      await store.createApiKey(a);
      await store.createApiKey(b);
      await store.recordApiKeyUses(
        new Map([
          [a.id, later(10)],
          [b.id, later(20)],
          [newId(), later(30)],
        ]),
      );
      await store.recordApiKeyUses(new Map([[a.id, later(5)]]));
      expect((await store.findApiKey(a.id))?.lastUsedAt).toEqual(later(10));
      expect((await store.findApiKey(b.id))?.lastUsedAt).toEqual(later(20));
    });

    it("deleting a user deletes the user's keys", async () => {
      const user = aUser();
      await store.createUserWithAccount(user, anAccount(user));
      const key = aKey({ userId: user.id });
      await store.createApiKey(key);
      await store.deleteUserAndAccounts(user.id);
      expect(await store.findApiKey(key.id)).toBeNull();
    });
  });
}
