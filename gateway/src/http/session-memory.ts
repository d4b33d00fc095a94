/**
 * The gateway's own copy of warm sessions, answered without a hop, kept correct by the session service's
 * pushes: @auth-platform/node's watcher (packages/node/src/session-watch.ts, started in start.ts) applies
 * them through the WatchedCache side below (docs/adr/0056-gateway-session-cache-invalidated-by-pushes.md).
 *
 * Keyed by the token's lookup hash; each entry holds what get-session answers, as the JSON the route sends
 * cut where the token goes (a heap dump holds no credential; the warm path answers it without serialising
 * again, http/warm-session.ts), until its due time: the session's refresh point, never past its expiry. An
 * entry is served only while the watcher holds a lease; losing the stream clears everything. A fill counts
 * the events before it reads its source and is not kept if any arrived meanwhile, so a copy read before a
 * change can never be kept after the change's event.
 */
import type { WatchedCache } from "@auth-platform/node";
import type { PublicSession, PublicUser } from "./public-shapes.js";

/** What an entry answers: get-session's session (its token added back on a hit) and user, the route's body. */
export interface HeldSession {
  session: PublicSession;
  user: PublicUser;
}

interface Entry {
  userId: string;
  /** The JSON of { session, user } before and after the token's JSON string. */
  beforeToken: string;
  afterToken: string;
  /** Epoch ms (the session service's clock, as the refresh point is): past it, the session service answers. */
  dueAt: number;
}

/** The watcher's side (dropSessions, dropUser, leaseUntil, clear) is the package's WatchedCache. */
export interface SessionMemory extends WatchedCache {
  /** The session held for this token, while the lease holds and before it is due; else undefined. */
  get(lookup: string, token: string, now: number): HeldSession | undefined;
  /** The JSON of what get(lookup, token, now) gives, get-session's body, without building it; undefined where get() is. */
  answer(lookup: string, token: string, now: number): string | undefined;
  /** The count of events and clears so far: read it before a fill reads its source. */
  version(): number;
  /** Keeps a copy read since `since` (version()), unless anything happened meanwhile or no lease holds. */
  fill(lookup: string, held: HeldSession, dueAt: number, since: number): void;
  /** Whether a lease holds now (entries may be served). */
  holdsLease(): boolean;
  readonly size: number;
}

export interface SessionMemoryOptions {
  /** The most entries held; the oldest fill goes first. */
  maxEntries: number;
  /** The clock leases are counted on (monotonic ms): performance.now by default. */
  monotonic?: () => number;
  /** Told of every lookup (hit or miss), for metrics. */
  onLookup?: (hit: boolean) => void;
}

/**
 * The held session's JSON cut around the token's JSON string. The token is the session's second field,
 * after its id, so its first occurrence is its own; nothing kept holds the token.
 */
function cutAtToken(held: HeldSession): Pick<Entry, "beforeToken" | "afterToken"> | undefined {
  const json = JSON.stringify({ session: held.session, user: held.user });
  const quoted = JSON.stringify(held.session.token);
  const at = json.indexOf(quoted);
  return at < 0 ? undefined : { beforeToken: json.slice(0, at), afterToken: json.slice(at + quoted.length) };
}

export function sessionMemory(options: SessionMemoryOptions): SessionMemory {
  const monotonic = options.monotonic ?? (() => performance.now());
  const entries = new Map<string, Entry>();
  const byUser = new Map<string, Set<string>>();
  let version = 0;
  let leaseEnd = Number.NEGATIVE_INFINITY;

  const remove = (lookup: string) => {
    const entry = entries.get(lookup);
    if (!entry) return;
    entries.delete(lookup);
    const lookups = byUser.get(entry.userId);
    lookups?.delete(lookup);
    if (lookups?.size === 0) byUser.delete(entry.userId);
  };

  const live = (lookup: string, now: number): Entry | undefined => {
    const entry = entries.get(lookup);
    const hit = entry !== undefined && now < entry.dueAt && monotonic() < leaseEnd;
    options.onLookup?.(hit);
    return hit ? entry : undefined;
  };

  const answer = (lookup: string, token: string, now: number): string | undefined => {
    const entry = live(lookup, now);
    return entry && entry.beforeToken + JSON.stringify(token) + entry.afterToken;
  };

  return {
    get(lookup, token, now) {
      const json = answer(lookup, token, now);
      return json === undefined ? undefined : (JSON.parse(json) as HeldSession);
    },
    answer,
    version: () => version,
    fill(lookup, held, dueAt, since) {
      if (since !== version || !(monotonic() < leaseEnd) || options.maxEntries <= 0) return;
      remove(lookup);
      if (entries.size >= options.maxEntries) remove(entries.keys().next().value!);
      const cut = cutAtToken(held);
      if (!cut) return;
      entries.set(lookup, { userId: held.user.id, ...cut, dueAt });
      const lookups = byUser.get(held.user.id);
      if (lookups) lookups.add(lookup);
      else byUser.set(held.user.id, new Set([lookup]));
    },
    dropSessions(lookups) {
      version++;
      for (const lookup of lookups) remove(lookup);
    },
    dropUser(userId) {
      version++;
      for (const lookup of byUser.get(userId) ?? []) remove(lookup);
    },
    leaseUntil(until) {
      leaseEnd = Math.max(leaseEnd, until);
    },
    holdsLease: () => monotonic() < leaseEnd,
    clear() {
      version++;
      leaseEnd = Number.NEGATIVE_INFINITY;
      entries.clear();
      byUser.clear();
    },
    get size() {
      return entries.size;
    },
  };
}
