/**
 * The session cache layout, shared by its one writer and owner (the session service) and the gateway, which
 * reads it directly on the warm path of get-session when Redis is configured and builds the HTTP JSON from it. Keys carry the token's keyed hash
 * (session-token.ts), never the token, and entries hold the session without its token, so a dump of Redis
 * holds no credential.
 *
 *   session:{lookup} -> {"v":3,"mac":"<MAC>","record":<JSON CachedSession minus the token, plus validUntil>},
 *                       TTL at most an hour (never past the session's expiry); a record of another version
 *                       reads as a miss
 *   revoked:{lookup} -> "1", TTL until the session would have expired, and at least an hour and a minute
 *   cache-lease      -> its deadline (epoch ms), PX a few seconds, refreshed by the session service while no
 *                       revocation or forget waits to be written to Redis
 *                       (docs/adr/0003-cache-lease-through-redis-outages.md)
 *   generation:{lookup} -> a random value, changed by every forget, TTL an hour and a minute
 *   cache-stale-stop -> "1", TTL the configured stale-serving time: set when a change of a user's sessions
 *                       could not reach the session store; no replica serves entries past the lease while it
 *                       is there (readHeldSession)
 *
 * On a Redis Cluster the lookup in these names is a hash tag (`session:{<lookup>}`, ...): a session's entry,
 * tombstone and generation then share a hash slot, so they are still read in one MGET and guarded in one script,
 * and the lease and stop keys, which every session shares, are read beside them in the same round trip
 * (docs/adr/0080-redis-cluster-and-sentinel.md). Elsewhere the names are as they always were.
 *
 * A revoke writes the tombstone before it deletes anything, and every read asks for entry, tombstone and
 * lease in one round trip, so a cache entry written late by a concurrent reader can never bring a revoked
 * session back, and an entry is trusted only while the lease says no revocation is missing from Redis.
 * A forget (the user or the session changed) changes the generation before it drops the entry, and a fill
 * writes only while the generation is still the one read before the data it writes, so a fill that read
 * the session or the user before the change cannot put the old copy back after the forget.
 *
 * The entry is the one record here that grants access (a user id, a role, an impersonator), so it carries a
 * MAC (cache-mac.ts) over its key and the record's exact bytes: an entry edited, written from scratch or
 * moved from another key by whoever can write to Redis without AUTH_SECRET reads as a miss (the caller asks
 * the store) and is counted and reported as refused. The record also says until when it may be trusted (its
 * TTL as written), so a genuine record saved and written back later is refused after that hour at most. The
 * other keys only ever take access away: a forged tombstone or generation signs out or costs a miss, and a
 * deleted one or a forged lease can at most let a genuine record be served within that hour; Redis
 * credentials and TLS are what stop those (docs/configuration.md, "Redis").
 */
import { CACHE_MAC_LENGTH, type CacheMac } from "./cache-mac.js";
import type { KeyValue } from "./key-value.js";
import { authEvents } from "./metrics.js";
import { newId } from "./random.js";

/**
 * The record's version. Change it with any change a reader of the other version would misread: a reader of
 * one version treats an entry of any other as a miss (during a rolling deploy the old and new writers then
 * only cost each other misses). A field added as optional, read as null when absent, needs no change.
 * Version 3 added the MAC: a version 2 entry, which has none, is never trusted.
 */
export const CACHE_RECORD_VERSION = 3;

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
  /** The session's active team (absent in entries written before teams: read as null). */
  activeTeamId?: string | null;
  /** How the session was opened (absent in entries written before it was kept: read as null). */
  authMethod?: string | null;
  secondFactor?: string | null;
  authenticatedAt?: string | null;
}

/** The session's user as cached (the fields of auth.common.v1.User). */
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
// A hash tag only on a cluster: a rolling upgrade on one endpoint or Sentinel keeps every name both versions read.
const tagged = (kv: KeyValue, lookup: string) => (kv.slotted ? `{${lookup}}` : lookup);
/** The names of a session's keys in `kv`'s layout (tests and tools read them). */
export const entryKey = (kv: KeyValue, lookup: string) => `session:${tagged(kv, lookup)}`;
export const revokedKey = (kv: KeyValue, lookup: string) => `revoked:${tagged(kv, lookup)}`;
export const generationKey = (kv: KeyValue, lookup: string) => `generation:${tagged(kv, lookup)}`;

/**
 * A session's keys (one hash slot) and one shared key, in one round trip: one MGET on a single endpoint, an MGET
 * and a GET sent together on a cluster. The shared keys are deadlines or stops no one deletes early, so reading
 * one a moment apart from the session's keys answers as a read of both a moment earlier or later would.
 */
async function readSession(kv: KeyValue, sessionKeys: string[], shared: string): Promise<Array<string | null>> {
  if (!kv.slotted) return kv.getMany([...sessionKeys, shared]);
  const [values, sharedValue] = await Promise.all([kv.getMany(sessionKeys), kv.get(shared)]);
  return [...values, sharedValue];
}

/** Why an entry was not trusted although it was there: no MAC in the current layout, or a MAC that does not match. */
export type RefusedRecord = "unsigned" | "invalid-mac";

/** What a read finds, and why an entry there was refused (null: none was). */
export interface CacheAnswer {
  cached: CachedSession | "revoked" | null;
  refused: RefusedRecord | null;
}

/** A read for a fill: also the generation a fill of that session must present (null: none yet). */
export interface CacheRead extends CacheAnswer {
  generation: string | null;
}

/**
 * The live cached session, "revoked", or null on a miss. Expired entries, entries whose MAC does not hold
 * (`refused` says why), and every entry while the cache lease is absent, read as a miss (the caller asks
 * the store). A tombstone counts with or without a lease.
 */
export async function readCachedSession(kv: KeyValue, mac: CacheMac, key: SessionKey, now = Date.now()): Promise<CacheAnswer> {
  const [entry, revoked, lease] = await readSession(kv, [entryKey(kv, key.lookup), revokedKey(kv, key.lookup)], CACHE_LEASE_KEY);
  return answerOf(kv, mac, key, entry ?? null, revoked ?? null, lease ?? null, now);
}

/**
 * readCachedSession for a reader that may fill the cache afterwards (the session service): the same
 * answer, and in the same round trip the generation its fill must present (writeCachedSession).
 */
export async function readCachedSessionForFill(kv: KeyValue, mac: CacheMac, key: SessionKey, now = Date.now()): Promise<CacheRead> {
  const [entry, revoked, generation, lease] = await readSession(kv, [entryKey(kv, key.lookup), revokedKey(kv, key.lookup), generationKey(kv, key.lookup)], CACHE_LEASE_KEY);
  return { ...answerOf(kv, mac, key, entry ?? null, revoked ?? null, lease ?? null, now), generation: generation ?? null };
}

// The entry's layout: the version first (a reader of another version parses it and sees a miss), then the
// MAC of a fixed length, then the signed record's bytes exactly as written, so they are sliced out, not re-serialised.
const ENTRY_HEAD = `{"v":${CACHE_RECORD_VERSION},"mac":"`;
const ENTRY_MIDDLE = `","record":`;
const RECORD_AT = ENTRY_HEAD.length + CACHE_MAC_LENGTH + ENTRY_MIDDLE.length;

/** The record as signed: the session without its token, and the time after which the entry is not trusted. */
type SignedRecord = Omit<CachedSession, "session"> & { session: Omit<CachedSessionFields, "token">; validUntil: number };

function answerOf(kv: KeyValue, mac: CacheMac, key: SessionKey, entry: string | null, revoked: string | null, lease: string | null, now: number): CacheAnswer {
  if (revoked) return { cached: "revoked", refused: null };
  // The deadline bounds a lease even if a delayed SET reached Redis late (clocks agree to well under a second).
  if (!lease || !(Number(lease) > now)) return { cached: null, refused: null };
  return verifiedEntry(kv, mac, key, entry, now);
}

/** The session a signed entry holds, unless it is missing, of another version, refused (MAC) or expired. */
function verifiedEntry(kv: KeyValue, mac: CacheMac, key: SessionKey, entry: string | null, now: number): CacheAnswer {
  if (!entry) return { cached: null, refused: null };
  const bytes = signedBytes(entry);
  if (bytes === null) {
    if (isOtherVersion(entry)) return { cached: null, refused: null };
    return refuse("unsigned");
  }
  if (!mac.verify(entryKey(kv, key.lookup), bytes, entry.slice(ENTRY_HEAD.length, ENTRY_HEAD.length + CACHE_MAC_LENGTH))) return refuse("invalid-mac");
  const { validUntil, ...record } = JSON.parse(bytes) as SignedRecord;
  if (record.v !== CACHE_RECORD_VERSION || !(validUntil > now) || !(Date.parse(record.session.expiresAt) > now)) return { cached: null, refused: null };
  return { cached: { ...record, session: { ...record.session, token: key.token } }, refused: null };
}

/**
 * The entry this cache holds for a token, whatever the lease says: for the session service alone, while its
 * store is out of reach and the entries are still known to be complete (cache-lease.ts, staleServingUntil).
 * A tombstone still reads "revoked"; an entry that is expired, of another version or refused by its MAC, or
 * any entry while the stop key is set (stopStaleServing), reads as nothing.
 */
export async function readHeldSession(kv: KeyValue, mac: CacheMac, key: SessionKey, now = Date.now()): Promise<CachedSession | "revoked" | null> {
  const [entry, revoked, stopped] = await readSession(kv, [entryKey(kv, key.lookup), revokedKey(kv, key.lookup)], STALE_STOP_KEY);
  if (revoked) return "revoked";
  if (stopped) return null;
  const { cached } = verifiedEntry(kv, mac, key, entry ?? null, now);
  return cached === "revoked" ? null : cached;
}

/** No replica serves entries past the lease for ttlMs: a change of sessions or users did not reach the store. */
export async function stopStaleServing(kv: KeyValue, ttlMs: number): Promise<void> {
  if (ttlMs > 0) await kv.set(STALE_STOP_KEY, "1", ttlMs);
}

function refuse(reason: RefusedRecord): CacheAnswer {
  authEvents.cacheRecordRefused(reason);
  return { cached: null, refused: reason };
}

/** The signed record's bytes of an entry in this version's layout, or null. */
function signedBytes(entry: string): string | null {
  if (entry.length <= RECORD_AT || !entry.startsWith(ENTRY_HEAD) || !entry.endsWith("}")) return null;
  if (!entry.startsWith(ENTRY_MIDDLE, RECORD_AT - ENTRY_MIDDLE.length)) return null;
  return entry.slice(RECORD_AT, -1);
}

/**
 * An entry another version of the code wrote (a rolling deploy): a plain miss, not a refusal. Whoever can
 * write to Redis gains nothing by writing one; an entry claiming this version without a valid MAC is refused.
 */
function isOtherVersion(entry: string): boolean {
  try {
    const { v } = JSON.parse(entry) as { v?: unknown };
    return typeof v === "number" && v !== CACHE_RECORD_VERSION;
  } catch {
    return false;
  }
}

/**
 * Caches a session under its token's lookup hash, signed (the token itself is left out of the entry).
 * `generation` is the session's generation as read before the data of `cached` was read
 * (readCachedSessionForFill; null for a session created just now): when a forget changed it since, nothing
 * is written and the answer is false (the next read misses and loads the store).
 */
export async function writeCachedSession(kv: KeyValue, mac: CacheMac, lookup: string, cached: CachedSession, generation: string | null, now = Date.now()): Promise<boolean> {
  const ttl = Math.min(Date.parse(cached.session.expiresAt) - now, MAX_ENTRY_TTL_MS);
  if (ttl <= 0) return false;
  const { token: _token, ...session } = cached.session;
  const record: SignedRecord = { ...cached, session, validUntil: now + ttl };
  const bytes = JSON.stringify(record);
  const key = entryKey(kv, lookup);
  return kv.setIfUnchanged(generationKey(kv, lookup), generation, key, `${ENTRY_HEAD}${mac.sign(key, bytes)}${ENTRY_MIDDLE}${bytes}}`, ttl);
}

/**
 * Marks a token revoked (first), then drops its entry. The tombstone outlives any entry a concurrent reader
 * can still write (an hour, plus a minute for that reader's request), even one a refresh gave a later expiry.
 */
export async function revokeCachedSession(kv: KeyValue, lookup: string, expiresAt: Date, now = Date.now()): Promise<void> {
  await kv.set(revokedKey(kv, lookup), "1", Math.max(expiresAt.getTime() - now, MIN_TOMBSTONE_TTL_MS));
  await kv.del(entryKey(kv, lookup));
}

/**
 * Drops an entry so the next read loads it afresh (the user or the session changed). The generation changes
 * first, so a fill that read before the change and writes after this drop is refused.
 */
export async function forgetCachedSession(kv: KeyValue, lookup: string): Promise<void> {
  await kv.set(generationKey(kv, lookup), newId(), GENERATION_TTL_MS);
  await kv.del(entryKey(kv, lookup));
}

/** Sets the cache lease for ttlMs from now: until then readers may trust entries. */
export async function holdCacheLease(kv: KeyValue, ttlMs: number, now = Date.now()): Promise<void> {
  if (ttlMs > 0) await kv.set(CACHE_LEASE_KEY, String(now + ttlMs), ttlMs);
}
