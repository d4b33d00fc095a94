/**
 * The session cache layout, shared by its one writer (the session service) and the gateway, which reads it
 * directly on the warm path of get-session when Redis is configured.
 *
 *   session:{token} -> JSON CachedSession, TTL at most an hour (never past the session's expiry)
 *   revoked:{token} -> "1", TTL until the session would have expired, and at least an hour and a minute
 *
 * A revoke writes the tombstone before it deletes anything, and every read asks for both keys in one round
 * trip, so a cache entry written late by a concurrent reader can never bring a revoked session back.
 */
import type { PublicSession, PublicUser } from "@auth-platform/proto/public-shapes";
import type { KeyValue } from "./key-value.js";

export interface CachedSession {
  session: PublicSession;
  user: PublicUser;
  /** Epoch ms after which a read should extend the session (past expiresAt: never). */
  refreshAt: number;
}

const MAX_ENTRY_TTL_MS = 3_600_000;
const entryKey = (token: string) => `session:${token}`;
const revokedKey = (token: string) => `revoked:${token}`;

/** The live cached session, "revoked", or null on a miss. Expired entries read as a miss. */
export async function readCachedSession(kv: KeyValue, token: string, now = Date.now()): Promise<CachedSession | "revoked" | null> {
  const [entry, revoked] = await kv.getMany([entryKey(token), revokedKey(token)]);
  if (revoked) return "revoked";
  if (!entry) return null;
  const cached = JSON.parse(entry) as CachedSession;
  return Date.parse(cached.session.expiresAt) > now ? cached : null;
}

export async function writeCachedSession(kv: KeyValue, cached: CachedSession, now = Date.now()): Promise<void> {
  const ttl = Math.min(Date.parse(cached.session.expiresAt) - now, MAX_ENTRY_TTL_MS);
  if (ttl > 0) await kv.set(entryKey(cached.session.token), JSON.stringify(cached), ttl);
}

/**
 * Marks a token revoked (first), then drops its entry. The tombstone outlives any entry a concurrent reader
 * can still write (an hour, plus a minute for that reader's request), even one a refresh gave a later expiry.
 */
export async function revokeCachedSession(kv: KeyValue, token: string, expiresAt: Date, now = Date.now()): Promise<void> {
  await kv.set(revokedKey(token), "1", Math.max(expiresAt.getTime() - now, MAX_ENTRY_TTL_MS + 60_000));
  await kv.del(entryKey(token));
}

/** Drops an entry so the next read loads it afresh (the user changed). */
export async function forgetCachedSession(kv: KeyValue, token: string): Promise<void> {
  await kv.del(entryKey(token));
}
