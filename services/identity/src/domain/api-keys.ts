/**
 * API keys (docs/adr/0075-api-keys.md): made for a user or an organization, shown once, stored as the
 * HMAC-SHA256 of the key under a key derived from AUTH_SECRET, verified by one indexed lookup of that hash.
 * A use is remembered in memory and written in batches (ApiKeyUsage); a key with a rate limit counts its
 * uses in its own row (store.hitApiKeyRateLimit), which every replica shares.
 */
import { createHmac, createSecretKey, hkdfSync, type KeyObject } from "node:crypto";
import { type Permissions, RESOURCES } from "@auth-platform/contract/permissions";
import { AuthError } from "@auth-platform/proto/errors";
import type { Caller } from "@auth-platform/runtime/caller";
import type { Logger } from "@auth-platform/runtime/log";
import { newId, randomString } from "@auth-platform/runtime/random";
import type { ApiKeyOwner, ApiKeyPatch, ApiKeyPermissions, ApiKeyRecord, ApiKeyStore } from "../store/api-key-store.js";
import { banHolds } from "./bans.js";
import type { Registry } from "./ports.js";

/** better-auth's api-key defaults: names and prefixes of 1 to 32 characters, expiry between 1 and 365 days. */
export const API_KEY_LIMITS = {
  nameLength: 32,
  prefixLength: 32,
  minExpiresInSeconds: 86_400,
  maxExpiresInSeconds: 365 * 86_400,
  /** Characters of the key kept to tell keys apart in a list. */
  startLength: 6,
  /** Random characters after the prefix (62^48: far beyond guessing). */
  keyLength: 48,
  maxMetadataChars: 4_096,
  maxRateLimitWindowMs: 86_400_000,
  maxRateLimitMax: 1_000_000,
} as const;

/** How often remembered uses are written (one batch per interval, whatever the traffic). */
export const API_KEY_USAGE_FLUSH_MS = 30_000;

export type ApiKeyAction = "create" | "read" | "update" | "delete";

/** The keyed hash a key is stored and looked up by. The HMAC key is derived once from AUTH_SECRET. */
export function apiKeyHasher(secret: string): (key: string) => string {
  const hmacKey: KeyObject = createSecretKey(Buffer.from(hkdfSync("sha256", secret, "auth-platform/api-key", "key-hash", 32)));
  return (key) => createHmac("sha256", hmacKey).update(key).digest("base64url");
}

/**
 * Last-used times kept in memory and written in batches: a verification never waits for a write. A flush
 * that fails puts its batch back (a newer use of the same key wins) for the next one.
 */
export class ApiKeyUsage {
  private pending = new Map<string, Date>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Pick<ApiKeyStore, "recordApiKeyUses">,
    private readonly log: Logger,
  ) {}

  record(id: string, at: Date): void {
    const known = this.pending.get(id);
    if (!known || known < at) this.pending.set(id, at);
  }

  /** Uses remembered and not yet written. */
  get size(): number {
    return this.pending.size;
  }

  async flush(): Promise<void> {
    if (!this.pending.size) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.store.recordApiKeyUses(batch);
    } catch (error) {
      for (const [id, at] of batch) this.record(id, at);
      this.log.warn("api key last-used flush failed; kept for the next one", { error: String(error) });
    }
  }

  start(intervalMs = API_KEY_USAGE_FLUSH_MS): void {
    this.timer ??= setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and writes what is left (the process is stopping). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}

export interface ApiKeyInput {
  name?: string | undefined;
  expiresInSeconds?: number | undefined;
  prefix?: string | undefined;
  permissions?: ApiKeyPermissions | undefined;
  metadata?: unknown;
  rateLimitWindowMs?: number | undefined;
  rateLimitMax?: number | undefined;
  organizationId?: string | undefined;
}

export interface ApiKeyUpdate {
  name?: string | undefined;
  enabled?: boolean | undefined;
  /** null: never expires. */
  expiresInSeconds?: number | null | undefined;
  metadata?: unknown;
  /** null: none. */
  permissions?: ApiKeyPermissions | null | undefined;
  /** null: no rate limit. */
  rateLimit?: { windowMs: number; max: number } | null | undefined;
}

function checkName(name: string): string {
  if (name.length < 1 || name.length > API_KEY_LIMITS.nameLength) throw new AuthError("INVALID_NAME_LENGTH");
  return name;
}

function checkExpiresIn(seconds: number, now: Date): Date {
  if (!Number.isFinite(seconds) || seconds < API_KEY_LIMITS.minExpiresInSeconds) throw new AuthError("EXPIRES_IN_IS_TOO_SMALL");
  if (seconds > API_KEY_LIMITS.maxExpiresInSeconds) throw new AuthError("EXPIRES_IN_IS_TOO_LARGE");
  return new Date(now.getTime() + Math.floor(seconds) * 1000);
}

function checkMetadata(metadata: unknown): Record<string, unknown> {
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) throw new AuthError("INVALID_METADATA_TYPE");
  if (JSON.stringify(metadata).length > API_KEY_LIMITS.maxMetadataChars) throw new AuthError("VALIDATION_ERROR", "metadata is too large");
  return metadata as Record<string, unknown>;
}

/** A key's permissions, each resource and action from the platform's one list (contract/src/permissions.ts). */
export function checkPermissions(permissions: ApiKeyPermissions): ApiKeyPermissions | null {
  const entries = Object.entries(permissions);
  for (const [resource, actions] of entries) {
    if (!Object.hasOwn(RESOURCES, resource)) throw new AuthError("INVALID_API_KEY_PERMISSIONS");
    const known: readonly string[] = RESOURCES[resource as keyof Permissions];
    if (!Array.isArray(actions) || actions.some((a) => !known.includes(a))) throw new AuthError("INVALID_API_KEY_PERMISSIONS");
  }
  return entries.length ? Object.fromEntries(entries.map(([r, a]) => [r, [...new Set(a)]])) : null;
}

function checkRateLimit(windowMs: number, max: number): { rateLimitWindowMs: number; rateLimitMax: number } {
  if (!Number.isInteger(windowMs) || windowMs < 1_000 || windowMs > API_KEY_LIMITS.maxRateLimitWindowMs)
    throw new AuthError("VALIDATION_ERROR", "rateLimitTimeWindow must be 1000 to 86400000 milliseconds");
  if (!Number.isInteger(max) || max < 1 || max > API_KEY_LIMITS.maxRateLimitMax) throw new AuthError("VALIDATION_ERROR", "rateLimitMax must be 1 to 1000000");
  return { rateLimitWindowMs: windowMs, rateLimitMax: max };
}

/** Refuses an organization the caller holds no `apiKey:<action>` in (better-auth's two refusals). */
async function requireOrganizationPermission(registry: Registry, caller: Caller, organizationId: string, action: ApiKeyAction): Promise<void> {
  const answer = await registry.organizations.apiKeyPermission(caller, organizationId, action);
  if (answer === "not-member") throw new AuthError("USER_NOT_MEMBER_OF_ORGANIZATION");
  if (answer === "denied") throw new AuthError("INSUFFICIENT_API_KEY_PERMISSIONS");
}

/** The key if the caller may act on it; another owner's key is not found, as an unknown one. */
async function keyFor(registry: Registry, caller: Caller, id: string, action: ApiKeyAction): Promise<ApiKeyRecord> {
  const key = id ? await registry.store.findApiKey(id) : null;
  if (!key) throw new AuthError("KEY_NOT_FOUND");
  if (key.userId !== null) {
    if (key.userId !== caller.userId) throw new AuthError("KEY_NOT_FOUND");
  } else if ((await registry.organizations.apiKeyPermission(caller, key.organizationId!, action)) !== "granted") throw new AuthError("KEY_NOT_FOUND");
  return key;
}

export async function createApiKey(registry: Registry, caller: Caller, input: ApiKeyInput): Promise<{ key: string; record: ApiKeyRecord }> {
  const now = registry.now();
  if (input.prefix !== undefined && (input.prefix.length < 1 || input.prefix.length > API_KEY_LIMITS.prefixLength || !/^[A-Za-z0-9_-]+$/.test(input.prefix)))
    throw new AuthError("INVALID_PREFIX_LENGTH");
  const name = input.name === undefined ? null : checkName(input.name);
  const expiresAt = input.expiresInSeconds === undefined ? null : checkExpiresIn(input.expiresInSeconds, now);
  const metadata = input.metadata === undefined || input.metadata === null ? null : checkMetadata(input.metadata);
  const permissions = input.permissions ? checkPermissions(input.permissions) : null;
  if ((input.rateLimitWindowMs === undefined) !== (input.rateLimitMax === undefined)) throw new AuthError("VALIDATION_ERROR", "rateLimitTimeWindow and rateLimitMax go together");
  const limit = input.rateLimitWindowMs === undefined ? { rateLimitWindowMs: null, rateLimitMax: null } : checkRateLimit(input.rateLimitWindowMs, input.rateLimitMax!);
  let owner: ApiKeyOwner = { userId: caller.userId };
  if (input.organizationId !== undefined) {
    await requireOrganizationPermission(registry, caller, input.organizationId, "create");
    owner = { organizationId: input.organizationId };
  }
  const key = `${input.prefix ?? ""}${randomString(API_KEY_LIMITS.keyLength)}`;
  const record: ApiKeyRecord = {
    id: newId(),
    name,
    start: key.slice(0, API_KEY_LIMITS.startLength),
    prefix: input.prefix ?? null,
    keyHash: registry.apiKeys.hash(key),
    userId: owner.userId ?? null,
    organizationId: owner.organizationId ?? null,
    permissions,
    metadata,
    enabled: true,
    expiresAt,
    ...limit,
    lastUsedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await registry.store.createApiKey(record);
  return { key, record };
}

export async function getApiKey(registry: Registry, caller: Caller, id: string): Promise<ApiKeyRecord> {
  return keyFor(registry, caller, id, "read");
}

export async function listApiKeys(registry: Registry, caller: Caller, organizationId?: string): Promise<ApiKeyRecord[]> {
  if (organizationId === undefined) return registry.store.listApiKeys({ userId: caller.userId });
  await requireOrganizationPermission(registry, caller, organizationId, "read");
  return registry.store.listApiKeys({ organizationId });
}

export async function updateApiKey(registry: Registry, caller: Caller, id: string, update: ApiKeyUpdate): Promise<ApiKeyRecord> {
  const now = registry.now();
  const patch: ApiKeyPatch = { updatedAt: now };
  if (update.name !== undefined) patch.name = checkName(update.name);
  if (update.enabled !== undefined) patch.enabled = update.enabled;
  if (update.expiresInSeconds !== undefined) patch.expiresAt = update.expiresInSeconds === null ? null : checkExpiresIn(update.expiresInSeconds, now);
  if (update.metadata !== undefined) patch.metadata = update.metadata === null ? null : checkMetadata(update.metadata);
  if (update.permissions !== undefined) patch.permissions = update.permissions === null ? null : checkPermissions(update.permissions);
  if (update.rateLimit !== undefined)
    Object.assign(patch, update.rateLimit === null ? { rateLimitWindowMs: null, rateLimitMax: null } : checkRateLimit(update.rateLimit.windowMs, update.rateLimit.max));
  if (Object.keys(patch).length === 1) throw new AuthError("NO_VALUES_TO_UPDATE");
  await keyFor(registry, caller, id, "update");
  const updated = await registry.store.updateApiKey(id, patch);
  if (!updated) throw new AuthError("KEY_NOT_FOUND");
  return updated;
}

export async function deleteApiKey(registry: Registry, caller: Caller, id: string): Promise<void> {
  await keyFor(registry, caller, id, "delete");
  if (!(await registry.store.deleteApiKey(id))) throw new AuthError("KEY_NOT_FOUND");
}

/** The caller's own expired keys: housekeeping touches no other owner's keys, whose last use they may still want to see. */
export async function deleteExpiredApiKeys(registry: Registry, caller: Caller): Promise<number> {
  return registry.store.deleteExpiredApiKeys(caller.userId, registry.now());
}

/**
 * A deleted organization's keys, deleted: the organization service calls this from its event outbox, so it
 * comes after every deletion, retried until it lands; a repeat deletes nothing.
 */
export async function deleteOrganizationApiKeys(registry: Registry, organizationId: string): Promise<number> {
  if (!organizationId) throw new AuthError("VALIDATION_ERROR", "organizationId is required");
  const deleted = await registry.store.deleteOrganizationApiKeys(organizationId);
  if (deleted) registry.log.info("deleted organization's api keys", { organizationId, deleted });
  return deleted;
}

export type VerifyApiKeyResult = { valid: true; key: ApiKeyRecord } | { valid: false; code: "INVALID_API_KEY" | "KEY_NOT_FOUND" | "RATE_LIMIT_EXCEEDED"; retryAfterMs?: number };

/** Whether the key grants every asked action. */
function grantsAll(granted: ApiKeyPermissions | null, asked: ApiKeyPermissions): boolean {
  return Object.entries(asked).every(([resource, actions]) => {
    const held = granted && Object.hasOwn(granted, resource) ? granted[resource]! : [];
    return actions.every((action) => held.includes(action));
  });
}

/**
 * Checks a presented key. Unknown, disabled and expired keys, and those of a banned user, answer the same
 * INVALID_API_KEY, so an answer tells nothing about which keys exist.
 */
export async function verifyApiKey(registry: Registry, key: string, required: ApiKeyPermissions = {}): Promise<VerifyApiKeyResult> {
  const now = registry.now();
  const found = key && key.length <= 256 ? await registry.store.findApiKeyByHash(registry.apiKeys.hash(key)) : null;
  if (!found?.enabled || (found.expiresAt !== null && found.expiresAt <= now)) return { valid: false, code: "INVALID_API_KEY" };
  // A user's key acts as the user: it stops with the user's ban (a second lookup, by primary key, for user keys only).
  if (found.userId !== null) {
    const owner = await registry.store.findUserById(found.userId);
    if (!owner || banHolds(owner, now)) return { valid: false, code: "INVALID_API_KEY" };
  }
  if (!grantsAll(found.permissions, required)) return { valid: false, code: "KEY_NOT_FOUND" };
  if (found.rateLimitWindowMs !== null && found.rateLimitMax !== null) {
    const hit = await registry.store.hitApiKeyRateLimit(found.id, now, found.rateLimitWindowMs, found.rateLimitMax);
    if (!hit.allowed) return { valid: false, code: "RATE_LIMIT_EXCEEDED", retryAfterMs: hit.resetMs };
  }
  registry.apiKeys.usage.record(found.id, now);
  return { valid: true, key: found };
}
