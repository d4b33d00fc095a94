/**
 * The API key rules on the memory store and the test clock: the key shown once and stored as its keyed
 * hash, expiry, the rate-limit window, last-used times written in batches (never one write per use),
 * owners kept apart, organization keys by role, and bad input refused with the catalogue's codes.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Caller } from "@auth-platform/runtime/caller";
import { newId } from "@auth-platform/runtime/random";
import { type TestRegistry, testRegistry } from "../../test/test-registry.js";
import { API_KEY_USAGE_FLUSH_MS, createApiKey, deleteApiKey, deleteExpiredApiKeys, getApiKey, listApiKeys, updateApiKey, verifyApiKey } from "./api-keys.js";

const DAY = 86_400;

function aCaller(deps: TestRegistry, userId = newId()): Caller {
  return { sessionId: newId(), userId, email: `${userId}@example.com`, emailVerified: true, sessionCreatedAt: deps.now() } as Caller;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("API keys", () => {
  it("answers the key once, stores only its keyed hash, and verifies it with its owner and permissions", async () => {
    const deps = testRegistry();
    const caller = aCaller(deps);
    const { key, record } = await createApiKey(deps, caller, { name: "ci", prefix: "ak_", permissions: { organization: ["update"] }, metadata: { env: "prod" } });
    expect(key.startsWith("ak_")).toBe(true);
    expect(record).toMatchObject({ userId: caller.userId, organizationId: null, start: key.slice(0, 6), prefix: "ak_", enabled: true });
    const stored = await deps.store.findApiKey(record.id);
    expect(stored?.keyHash).not.toContain(key.slice(3));
    expect(JSON.stringify(stored)).not.toContain(key);
    const verified = await verifyApiKey(deps, key, { organization: ["update"] });
    expect(verified).toMatchObject({ valid: true, key: { id: record.id, userId: caller.userId, permissions: { organization: ["update"] }, metadata: { env: "prod" } } });
    expect(await verifyApiKey(deps, key, { organization: ["delete"] })).toEqual({ valid: false, code: "KEY_NOT_FOUND" });
  });

  it("answers the same INVALID_API_KEY for an unknown, a disabled and an expired key", async () => {
    const deps = testRegistry();
    const caller = aCaller(deps);
    const disabled = await createApiKey(deps, caller, {});
    await updateApiKey(deps, caller, disabled.record.id, { enabled: false });
    const expiring = await createApiKey(deps, caller, { expiresInSeconds: DAY });
    expect((await verifyApiKey(deps, expiring.key)).valid).toBe(true);
    deps.advance(DAY * 1000);
    const answers = [await verifyApiKey(deps, "ak_unknown"), await verifyApiKey(deps, disabled.key), await verifyApiKey(deps, expiring.key), await verifyApiKey(deps, "")];
    expect(answers).toEqual(Array(4).fill({ valid: false, code: "INVALID_API_KEY" }));
    expect(await deleteExpiredApiKeys(deps)).toBe(1);
    expect(await deps.store.findApiKey(expiring.record.id)).toBeNull();
  });

  it("counts uses in the key's window: past its max RATE_LIMIT_EXCEEDED until the window ends", async () => {
    const deps = testRegistry();
    const { key } = await createApiKey(deps, aCaller(deps), { rateLimitWindowMs: 60_000, rateLimitMax: 2 });
    expect((await verifyApiKey(deps, key)).valid).toBe(true);
    deps.advance(10_000);
    expect((await verifyApiKey(deps, key)).valid).toBe(true);
    expect(await verifyApiKey(deps, key)).toEqual({ valid: false, code: "RATE_LIMIT_EXCEEDED", retryAfterMs: 50_000 });
    deps.advance(50_000);
    expect((await verifyApiKey(deps, key)).valid).toBe(true);
  });

  it("remembers last use in memory and writes it in one batch per interval, not per use", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const deps = testRegistry();
    const writes = vi.spyOn(deps.store, "recordApiKeyUses");
    const { key, record } = await createApiKey(deps, aCaller(deps), {});
    deps.apiKeys.usage.start();
    for (let i = 0; i < 5; i++) {
      deps.advance(1_000);
      expect((await verifyApiKey(deps, key)).valid).toBe(true);
    }
    expect(writes).not.toHaveBeenCalled();
    expect((await deps.store.findApiKey(record.id))?.lastUsedAt).toBeNull();
    await vi.advanceTimersByTimeAsync(API_KEY_USAGE_FLUSH_MS);
    expect(writes).toHaveBeenCalledTimes(1);
    expect((await deps.store.findApiKey(record.id))?.lastUsedAt).toEqual(deps.now());
    deps.advance(1_000);
    await verifyApiKey(deps, key);
    await deps.apiKeys.usage.stop();
    expect(writes).toHaveBeenCalledTimes(2);
    expect((await deps.store.findApiKey(record.id))?.lastUsedAt).toEqual(deps.now());
  });

  it("keeps a failed batch for the next flush", async () => {
    const deps = testRegistry();
    const { key, record } = await createApiKey(deps, aCaller(deps), {});
    await verifyApiKey(deps, key);
    vi.spyOn(deps.store, "recordApiKeyUses").mockRejectedValueOnce(new Error("database away"));
    await deps.apiKeys.usage.flush();
    expect(deps.apiKeys.usage.size).toBe(1);
    await deps.apiKeys.usage.flush();
    expect((await deps.store.findApiKey(record.id))?.lastUsedAt).toEqual(deps.now());
  });

  it("another user's key is not found, to read, update or delete", async () => {
    const deps = testRegistry();
    const owner = aCaller(deps);
    const other = aCaller(deps);
    const { record } = await createApiKey(deps, owner, { name: "mine" });
    await expect(getApiKey(deps, other, record.id)).rejects.toMatchObject({ code: "KEY_NOT_FOUND" });
    await expect(updateApiKey(deps, other, record.id, { name: "theirs" })).rejects.toMatchObject({ code: "KEY_NOT_FOUND" });
    await expect(deleteApiKey(deps, other, record.id)).rejects.toMatchObject({ code: "KEY_NOT_FOUND" });
    expect(await listApiKeys(deps, other)).toEqual([]);
    expect((await listApiKeys(deps, owner)).map((k) => k.name)).toEqual(["mine"]);
  });

  it("organization keys: made, listed and deleted by a role granting apiKey actions; others refused or not found", async () => {
    const deps = testRegistry();
    const org = newId();
    const admin = aCaller(deps);
    const member = aCaller(deps);
    const outsider = aCaller(deps);
    deps.organizations.members.set(`${org}/${admin.userId}`, "admin");
    deps.organizations.members.set(`${org}/${member.userId}`, "member");
    const { key, record } = await createApiKey(deps, admin, { organizationId: org, name: "deploy" });
    expect(record).toMatchObject({ organizationId: org, userId: null });
    expect(await verifyApiKey(deps, key)).toMatchObject({ valid: true, key: { organizationId: org } });
    await expect(createApiKey(deps, member, { organizationId: org })).rejects.toMatchObject({ code: "INSUFFICIENT_API_KEY_PERMISSIONS", http: 403 });
    await expect(listApiKeys(deps, outsider, org)).rejects.toMatchObject({ code: "USER_NOT_MEMBER_OF_ORGANIZATION", http: 403 });
    await expect(getApiKey(deps, member, record.id)).rejects.toMatchObject({ code: "KEY_NOT_FOUND" });
    expect((await listApiKeys(deps, admin, org)).map((k) => k.id)).toEqual([record.id]);
    expect(await listApiKeys(deps, admin)).toEqual([]);
    await deleteApiKey(deps, admin, record.id);
    expect((await verifyApiKey(deps, key)).valid).toBe(false);
  });

  it("bad input answers the catalogue's codes", async () => {
    const deps = testRegistry();
    const caller = aCaller(deps);
    const refusals: Array<[Parameters<typeof createApiKey>[2], string]> = [
      [{ name: "" }, "INVALID_NAME_LENGTH"],
      [{ name: "x".repeat(33) }, "INVALID_NAME_LENGTH"],
      [{ prefix: "bad prefix" }, "INVALID_PREFIX_LENGTH"],
      [{ expiresInSeconds: 60 }, "EXPIRES_IN_IS_TOO_SMALL"],
      [{ expiresInSeconds: 400 * DAY }, "EXPIRES_IN_IS_TOO_LARGE"],
      [{ metadata: [1, 2] }, "INVALID_METADATA_TYPE"],
      [{ metadata: "text" }, "INVALID_METADATA_TYPE"],
      [{ permissions: { nuclear: ["launch"] } }, "INVALID_API_KEY_PERMISSIONS"],
      [{ permissions: { organization: ["launch"] } }, "INVALID_API_KEY_PERMISSIONS"],
      [{ rateLimitWindowMs: 10, rateLimitMax: 1 }, "VALIDATION_ERROR"],
      [{ rateLimitWindowMs: 60_000 }, "VALIDATION_ERROR"],
    ];
    for (const [input, code] of refusals) await expect(createApiKey(deps, caller, input), code).rejects.toMatchObject({ code, http: 400 });
    const { record } = await createApiKey(deps, caller, {});
    await expect(updateApiKey(deps, caller, record.id, {})).rejects.toMatchObject({ code: "NO_VALUES_TO_UPDATE", http: 400 });
    expect(await listApiKeys(deps, caller)).toHaveLength(1);
  });
});
