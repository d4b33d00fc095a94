/**
 * The API key part of the identity store port (docs/adr/0075-api-keys.md). A key is stored as its keyed
 * hash only, unique and indexed: verification is one lookup by that hash. The owner is a user or an
 * organization, never both.
 */

/** resource -> actions (contract/src/permissions.ts). */
export type ApiKeyPermissions = Record<string, string[]>;

export type ApiKeyOwner = { userId: string; organizationId?: undefined } | { organizationId: string; userId?: undefined };

export interface ApiKeyRecord {
  id: string;
  name: string | null;
  /** The key's first characters, shown in lists. */
  start: string | null;
  prefix: string | null;
  /** HMAC-SHA256 of the key under the service's key (domain/api-keys.ts). */
  keyHash: string;
  userId: string | null;
  organizationId: string | null;
  permissions: ApiKeyPermissions | null;
  metadata: Record<string, unknown> | null;
  enabled: boolean;
  expiresAt: Date | null;
  rateLimitWindowMs: number | null;
  rateLimitMax: number | null;
  lastUsedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What an update may change (undefined: unchanged; null: cleared). */
export type ApiKeyPatch = Partial<Pick<ApiKeyRecord, "name" | "enabled" | "expiresAt" | "metadata" | "permissions" | "rateLimitWindowMs" | "rateLimitMax">> & { updatedAt: Date };

export interface ApiKeyStore {
  createApiKey(record: ApiKeyRecord): Promise<void>;
  findApiKey(id: string): Promise<ApiKeyRecord | null>;
  findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  /** The owner's keys, oldest first. */
  listApiKeys(owner: ApiKeyOwner): Promise<ApiKeyRecord[]>;
  /** The updated key, null when there is none with this id. */
  updateApiKey(id: string, patch: ApiKeyPatch): Promise<ApiKeyRecord | null>;
  /** Whether a key was deleted. */
  deleteApiKey(id: string): Promise<boolean>;
  /** Deletes the user's own keys expired at `now`; answers how many. */
  deleteExpiredApiKeys(userId: string, now: Date): Promise<number>;
  /** Deletes every key the organization owns (it was deleted); answers how many. */
  deleteOrganizationApiKeys(organizationId: string): Promise<number>;
  /**
   * Counts one use in the key's fixed window of `windowMs` (the first use starts it), in conditional UPDATEs
   * only: two replicas counting together never pass `max` between them. `allowed` false past `max`.
   */
  hitApiKeyRateLimit(id: string, now: Date, windowMs: number, max: number): Promise<{ allowed: boolean; resetMs: number }>;
  /** Records when keys were last used, a batch at once; a time older than the stored one changes nothing. */
  recordApiKeyUses(uses: ReadonlyMap<string, Date>): Promise<void>;
}
