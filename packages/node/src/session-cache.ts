/**
 * A service's local copy of the sessions it has validated, kept exact by the platform's WatchSessionEvents
 * stream (session-watch.ts; docs/adr/0078-internal-services-watch-revocations.md). The same rule as the
 * gateway's session memory (docs/adr/0056-gateway-session-cache-invalidated-by-pushes.md): an entry is
 * served only while the watcher holds a lease, until the session's refresh point (never past its expiry); a
 * fill that any event (or clear) overtook is not kept; losing the stream clears everything.
 *
 * A service holds no AUTH_SECRET, so it cannot compute a token's lookup hash: GetSession hands it back with
 * the session (the name events use), and the entry is keyed by an HMAC of the token under a key made for this
 * process, so neither the map nor a heap dump holds a token.
 */
import { createHmac, createSecretKey, randomBytes } from "node:crypto";

interface Entry<T> {
  value: T;
  userId: string;
  /** The platform's lookup hash of the token (what events name). */
  lookup: string;
  /** Epoch ms: past it, GetSession is asked again. */
  dueAt: number;
}

export interface SessionCache<T> {
  /** The key a token is held under (an HMAC under this process's own key). */
  keyOf(token: string): string;
  /** The value held for this key, while a lease holds and before it is due; else undefined. */
  get(key: string, now: number): T | undefined;
  /** The count of events and clears so far: read it before a fill reads GetSession. */
  version(): number;
  /** Keeps a value read since `since`, unless anything happened meanwhile or no lease holds. */
  fill(key: string, entry: { value: T; userId: string; lookup: string; dueAt: number }, since: number): void;
  dropSessions(lookups: readonly string[]): void;
  dropUser(userId: string): void;
  leaseUntil(until: number): void;
  holdsLease(): boolean;
  clear(): void;
  readonly size: number;
}

export function sessionCache<T>(options: { maxEntries: number; monotonic?: () => number }): SessionCache<T> {
  const monotonic = options.monotonic ?? (() => performance.now());
  const processKey = createSecretKey(randomBytes(32));
  const entries = new Map<string, Entry<T>>();
  const byLookup = new Map<string, string>();
  const byUser = new Map<string, Set<string>>();
  let version = 0;
  let leaseEnd = Number.NEGATIVE_INFINITY;

  const remove = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    byLookup.delete(entry.lookup);
    const keys = byUser.get(entry.userId);
    keys?.delete(key);
    if (keys?.size === 0) byUser.delete(entry.userId);
  };

  return {
    keyOf: (token) => createHmac("sha256", processKey).update(token).digest("base64url"),
    get(key, now) {
      const entry = entries.get(key);
      if (!entry || !(now < entry.dueAt) || !(monotonic() < leaseEnd)) return undefined;
      return entry.value;
    },
    version: () => version,
    fill(key, entry, since) {
      if (since !== version || !(monotonic() < leaseEnd) || options.maxEntries <= 0 || !entry.lookup) return;
      remove(key);
      const held = byLookup.get(entry.lookup);
      if (held !== undefined) remove(held);
      if (entries.size >= options.maxEntries) remove(entries.keys().next().value!);
      entries.set(key, { ...entry });
      byLookup.set(entry.lookup, key);
      const keys = byUser.get(entry.userId);
      if (keys) keys.add(key);
      else byUser.set(entry.userId, new Set([key]));
    },
    dropSessions(lookups) {
      version++;
      for (const lookup of lookups) {
        const key = byLookup.get(lookup);
        if (key !== undefined) remove(key);
      }
    },
    dropUser(userId) {
      version++;
      for (const key of [...(byUser.get(userId) ?? [])]) remove(key);
    },
    leaseUntil(until) {
      leaseEnd = Math.max(leaseEnd, until);
    },
    holdsLease: () => monotonic() < leaseEnd,
    clear() {
      version++;
      leaseEnd = Number.NEGATIVE_INFINITY;
      entries.clear();
      byLookup.clear();
      byUser.clear();
    },
    get size() {
      return entries.size;
    },
  };
}
