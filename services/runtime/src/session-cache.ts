/**
 * The session cache layout, shared by its one writer and owner (the session service) and the gateway, which
 * reads it directly on the warm path of get-session when Redis is configured and builds the HTTP JSON from it. Keys carry the token's keyed hash
 * (session-token.ts), never the token, and entries hold the session without its token, so a dump of Redis
 * holds no credential.
 *
 *   session:{lookup} -> JSON CachedSession (a versioned record) minus the token, TTL at most an hour (never
 *                       past the session's expiry); a record of another version reads as a miss
 *   revoked:{lookup} -> "1", TTL until the session would have expired, and at least an hour and a minute
 *   cache-lease      -> its deadline (epoch ms), PX a few seconds, refreshed by the session service while no
 *                       revocation or forget waits to be written to Redis
 *                       (docs/adr/0003-cache-lease-through-redis-outages.md)
 *   generation:{lookup} -> a random value, changed by every forget, TTL an hour and a minute
 *   cache-stale-stop -> "1", TTL the configured stale-serving time: set when a change of a user's sessions
 *                       could not reach the session store; no replica serves entries past the lease while it
 *                       is there (readHeldSession)
 *
 * A revoke writes the tombstone before it deletes anything, and every read asks for entry, tombstone and
 * lease in one round trip, so a cache entry written late by a concurrent reader can never bring a revoked
 * session back, and an entry is trusted only while the lease says no revocation is missing from Redis.
 * A forget (the user or the session changed) changes the generation before it drops the entry, and a fill
 * writes only while the generation is still the one read before the data it writes, so a fill that read
 * the session or the user before the change cannot put the old copy back after the forget.
 */
import type { KeyValue } from "./key-value.js";
import { newId } from "./random.js";

/**
 * The record's version. Change it with any change of its shape: a reader of one version treats an entry of
 * any other as a miss (during a rolling deploy the old and new writers then only cost each other misses).
 */
export const CACHE_RECORD_VERSION = 2;

/** A session as cached: dates as ISO strings, absent values as null. */
export interface CachedSessionFields {
  id: string;
  token: string;
  userId: string;
  expiresAt: string;
  ipAddress: string | null;
  userAgent: string | null;
  createdAt: string;
  updatedAt: string;
  impersonatedBy: string | null;
  activeOrganizationId: string | null;
}

/** The session's user as cached (the fields of auth.session.v1.SessionUser). */
export interface CachedUser {
  id: string;
  name: string;
  email: string;
  emailVerified: boolean;
  image: string | null;
  createdAt: string;
  updatedAt: string;
  username: string | null;
  displayUsername: string | null;
  /** The configured extra user fields, by name. */
  extraFields: Record<string, unknown>;
  /** Since v2. */
  twoFactorEnabled: boolean;
  /** Admin fields (version 2). */
  role: string | null;
  banned: boolean;
  banReason: string | null;
  banExpires: string | null;
}

export interface CachedSession {
  v: typeof CACHE_RECORD_VERSION;
  session: CachedSessionFields;
  user: CachedUser;
  /** Epoch ms after which a read should extend the session (past expiresAt: never). */
  refreshAt: number;
}

/** The token a request carries and its keyed hash (the only form the cache knows). */
export interface SessionKey {
  token: string;
  lookup: string;
}

const MAX_ENTRY_TTL_MS = 3_600_000;
/** How long a tombstone lives at least: longer than any entry a concurrent reader can still write. */
export const MIN_TOMBSTONE_TTL_MS = MAX_ENTRY_TTL_MS + 60_000;
export const CACHE_LEASE_KEY = "cache-lease";
export const STALE_STOP_KEY = "cache-stale-stop";
/**
 * How long a generation lives: longer than any fill can take between its read and its write (calls end at
 * their deadline, seconds), with the margin the tombstones have.
 */
const GENERATION_TTL_MS = MIN_TOMBSTONE_TTL_MS;
const entryKey = (lookup: string) => `session:${lookup}`;
const revokedKey = (lookup: string) => `revoked:${lookup}`;
const generationKey = (lookup: string) => `generation:${lookup}`;

/** What a read finds, and the generation a fill of that session must present (null: none yet). */
export interface CacheRead {
  cached: CachedSession | "revoked" | null;
  generation: string | null;
}

/**
 * The live cached session, "revoked", or null on a miss. Expired entries, and every entry while the cache
 * lease is absent, read as a miss (the caller asks the store). A tombstone counts with or without a lease.
 */
export async function readCachedSession(kv: KeyValue, key: SessionKey, now = Date.now()): Promise<CachedSession | "revoked" | null> {
  const [entry, revoked, lease] = await kv.getMany([entryKey(key.lookup), revokedKey(key.lookup), CACHE_LEASE_KEY]);
  return cachedOf(key, entry ?? null, revoked ?? null, lease ?? null, now);
}

/**
 * readCachedSession for a reader that may fill the cache afterwards (the session service): the same
 * answer, and in the same round trip the generation its fill must present (writeCachedSession).
 */
export async function readCachedSessionForFill(kv: KeyValue, key: SessionKey, now = Date.now()): Promise<CacheRead> {
  const [entry, revoked, lease, generation] = await kv.getMany([entryKey(key.lookup), revokedKey(key.lookup), CACHE_LEASE_KEY, generationKey(key.lookup)]);
  return { cached: cachedOf(key, entry ?? null, revoked ?? null, lease ?? null, now), generation: generation ?? null };
}

function cachedOf(key: SessionKey, entry: string | null, revoked: string | null, lease: string | null, now: number): CachedSession | "revoked" | null {
  if (revoked) return "revoked";
  // The deadline bounds a lease even if a delayed SET reached Redis late (clocks agree to well under a second).
  if (!lease || !(Number(lease) > now)) return null;
  return liveEntry(key, entry, now);
}

/** The session an entry holds, unless it is missing, of another record version, or expired. */
function liveEntry(key: SessionKey, entry: string | null, now: number): CachedSession | null {
  if (!entry) return null;
  const cached = JSON.parse(entry) as CachedSession;
  if (cached.v !== CACHE_RECORD_VERSION || !(Date.parse(cached.session.expiresAt) > now)) return null;
  return { ...cached, session: { ...cached.session, token: key.token } };
}

/**
 * The entry this cache holds for a token, whatever the lease says: for the session service alone, while its
 * store is out of reach and the entries are still known to be complete (cache-lease.ts, staleServingUntil).
 * A tombstone still reads "revoked"; an expired entry, one of another version, or any entry while the stop
 * key is set (stopStaleServing) reads as nothing.
 */
export async function readHeldSession(kv: KeyValue, key: SessionKey, now = Date.now()): Promise<CachedSession | "revoked" | null> {
  const [entry, revoked, stopped] = await kv.getMany([entryKey(key.lookup), revokedKey(key.lookup), STALE_STOP_KEY]);
  if (revoked) return "revoked";
  if (stopped) return null;
  return liveEntry(key, entry ?? null, now);
}

/** No replica serves entries past the lease for ttlMs: a change of sessions or users did not reach the store. */
export async function stopStaleServing(kv: KeyValue, ttlMs: number): Promise<void> {
  if (ttlMs > 0) await kv.set(STALE_STOP_KEY, "1", ttlMs);
}

/**
 * Caches a session under its token's lookup hash; the token itself is left out of the entry. `generation`
 * is the session's generation as read before the data of `cached` was read (readCachedSessionForFill; null
 * for a session created just now): when a forget changed it since, nothing is written and the answer is
 * false (the next read misses and loads the store).
 */
export async function writeCachedSession(kv: KeyValue, lookup: string, cached: CachedSession, generation: string | null, now = Date.now()): Promise<boolean> {
  const ttl = Math.min(Date.parse(cached.session.expiresAt) - now, MAX_ENTRY_TTL_MS);
  if (ttl <= 0) return false;
  const { token: _token, ...session } = cached.session;
  return kv.setIfUnchanged(generationKey(lookup), generation, entryKey(lookup), JSON.stringify({ ...cached, session }), ttl);
}

/**
 * Marks a token revoked (first), then drops its entry. The tombstone outlives any entry a concurrent reader
 * can still write (an hour, plus a minute for that reader's request), even one a refresh gave a later expiry.
 */
export async function revokeCachedSession(kv: KeyValue, lookup: string, expiresAt: Date, now = Date.now()): Promise<void> {
  await kv.set(revokedKey(lookup), "1", Math.max(expiresAt.getTime() - now, MIN_TOMBSTONE_TTL_MS));
  await kv.del(entryKey(lookup));
}

/**
 * Drops an entry so the next read loads it afresh (the user or the session changed). The generation changes
 * first, so a fill that read before the change and writes after this drop is refused.
 */
export async function forgetCachedSession(kv: KeyValue, lookup: string): Promise<void> {
  await kv.set(generationKey(lookup), newId(), GENERATION_TTL_MS);
  await kv.del(entryKey(lookup));
}

/** Sets the cache lease for ttlMs from now: until then readers may trust entries. */
export async function holdCacheLease(kv: KeyValue, ttlMs: number, now = Date.now()): Promise<void> {
  if (ttlMs > 0) await kv.set(CACHE_LEASE_KEY, String(now + ttlMs), ttlMs);
}
