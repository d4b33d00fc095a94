/**
 * Session use cases. The cache is read first and filled on a miss; a Redis failure on a read or fill falls
 * back to the store (sign-in and get-session stay up). The store is the truth. A revoke writes the cache
 * tombstone first, then deletes the row; when Redis cannot take the tombstone, the row is deleted and the
 * revocation recorded as pending in one transaction, and the call waits out the cache lease before it
 * answers (cache-lease.ts): from then on no cached copy is trusted until the tombstone is written, so a
 * revoke succeeds during an outage and no revoked session is served from the cache when Redis returns.
 * A change (PutUserCopy, DropUserCopy, the active organization) writes the store, then drops the cached copies; when Redis
 * cannot take that, the forgets are recorded as pending and the call waits out the lease the same way, so
 * the change succeeds and no copy from before it is served when Redis returns (a demoted admin stays demoted).
 * Every revoke and change is then published to the watchers (the gateways' own caches, session-events.ts),
 * and answers once they have applied it or their lease has run out.
 *
 * The store out of reach (PostgreSQL down or partitioned): get-session answers from the cache entries this
 * replica holds, read-only and for SESSION_CACHE_STALE_SERVE_SECONDS at most (cache-lease.ts), never a
 * revoked one; every write fails with the outage (503 with a retry hint, runtime rpc.ts). A sign-out gets
 * its token's tombstone all the same, and a change of a user's sessions that fails stops stale serving on
 * every replica (stopStaleServing).
 */
import { AuthError } from "@auth-platform/proto/errors";
import { isDatabaseUnreachable } from "@auth-platform/runtime/database-unreachable";
import { newId, randomString } from "@auth-platform/runtime/random";
import {
  CACHE_RECORD_VERSION,
  type CachedSession,
  type CachedUser,
  forgetCachedSession,
  readCachedSessionForFill,
  readHeldSession,
  type RefusedRecord,
  revokeCachedSession,
  stopStaleServing,
  writeCachedSession,
} from "@auth-platform/runtime/session-cache";
import { SHORT_SESSION_SECONDS } from "../config.js";
import type { RevocationReason, SessionRecord } from "../store/session-store.js";
import type { Registry } from "./ports.js";
import type { SessionEvent } from "./session-events.js";
import { type UserEventKind, userChanges } from "./user-events.js";
import { authEvents } from "@auth-platform/runtime/metrics";

type Deps = Pick<Registry, "config" | "store" | "cache" | "cacheMac" | "tokens" | "lease" | "events" | "userEvents" | "now" | "log">;

export const TOKEN_LENGTH = 32;

export interface CreateSessionInput {
  userId: string;
  ipAddress?: string;
  userAgent?: string;
  rememberMe: boolean;
  impersonatedBy?: string;
  expiresInSeconds?: number;
  user?: CachedUser;
  /** How the user proved who they are, and the second factor passed (recorded, never checked here). */
  authMethod?: string;
  secondFactor?: string;
  /** A rotation: the user's session whose authentication the new one keeps (method, factor and time). */
  rotatesSessionId?: string;
}

/** The authentication a new session records: the input's, as of now, or for a rotation the replaced session's. */
async function authenticationOf(deps: Pick<Deps, "store">, input: CreateSessionInput, now: Date): Promise<Pick<SessionRecord, "authMethod" | "secondFactor" | "authenticatedAt">> {
  if (!input.rotatesSessionId) return { authMethod: input.authMethod || null, secondFactor: input.secondFactor || null, authenticatedAt: now };
  const replaced = await deps.store.findById(input.rotatesSessionId);
  if (!replaced || replaced.userId !== input.userId) throw new AuthError("SESSION_NOT_FOUND");
  return { authMethod: replaced.authMethod, secondFactor: replaced.secondFactor, authenticatedAt: replaced.authenticatedAt ?? replaced.createdAt };
}

export async function createSession(deps: Deps, input: CreateSessionInput): Promise<SessionRecord> {
  const now = deps.now();
  const lifetime = input.expiresInSeconds || (input.rememberMe ? deps.config.expiresInSeconds : SHORT_SESSION_SECONDS);
  const authentication = await authenticationOf(deps, input, now);
  const session: SessionRecord = {
    id: newId(),
    token: randomString(TOKEN_LENGTH),
    userId: input.userId,
    expiresAt: new Date(now.getTime() + lifetime * 1000),
    ipAddress: input.ipAddress || null,
    userAgent: input.userAgent || null,
    createdAt: now,
    updatedAt: now,
    impersonatedBy: input.impersonatedBy || null,
    activeOrganizationId: null,
    activeTeamId: null,
    ...authentication,
  };
  let user: CachedUser | null;
  try {
    // With its session.created event (docs/adr/0077-signed-webhooks.md), which the worker publishes.
    await deps.store.create(session);
    // It starts in the organization its user last set active (docs/adr/0053-remembered-active-organization.md).
    session.activeOrganizationId = await deps.store.restoreActiveOrganization(session.id, session.userId);
    // The copy a cache miss serves (never asking identity); a newer one already kept stays.
    if (input.user) await deps.store.putUser(input.user);
    // Read after the insert: a ban keeps its copy before it lists the user's sessions (revokeUserSessions),
    // so either this read sees the ban or the ban's list sees this session.
    user = await deps.store.findUser(session.userId);
  } catch (error) {
    // The store out of reach is answered as such (503 with a retry hint: runtime rpc.ts), not as a failure.
    if (isDatabaseUnreachable(error)) throw error;
    deps.log.error("session insert failed", { error });
    throw new AuthError("FAILED_TO_CREATE_SESSION");
  }
  if (user && isBanned(user, now)) {
    // Nobody holds the token yet and nothing cached it: deleting the row ends the session.
    await deps.store.deleteByTokens([session.token], "banned");
    deps.log.info("session refused: the user was banned meanwhile", { userId: session.userId });
    throw new AuthError("FAILED_TO_CREATE_SESSION");
  }
  authEvents.sessionCreated();
  // The newest copy, not the one given (which may predate a change already kept). A new token has no
  // generation yet: a forget that found the new row since (a user change) refuses the fill.
  if (user) await fillCache(deps, session.token, toCached(deps, session, user), null);
  return session;
}

/** A ban still in force; one whose expiry has passed is lifted by identity at the next session creation. */
export function isBanned(user: CachedUser, now: Date): boolean {
  return user.banned && !(user.banExpires && Date.parse(user.banExpires) <= now.getTime());
}

/**
 * When a read should extend the session. Only a session given the full configured lifetime is renewable:
 * once SESSION_UPDATE_AGE has passed since its last extension it gets that lifetime again. Shorter ones
 * (rememberMe false, impersonation) end on time: their refresh point is their expiry, which never comes
 * while they are live.
 */
function refreshAt(deps: Pick<Deps, "config">, session: { expiresAt: Date; updatedAt: Date }): number {
  const lifetime = session.expiresAt.getTime() - session.updatedAt.getTime();
  const renewable = lifetime >= deps.config.expiresInSeconds * 1000 - 1000;
  return renewable ? session.updatedAt.getTime() + deps.config.updateAgeSeconds * 1000 : session.expiresAt.getTime();
}

/** The cache record of a session and its user (session-cache.ts). */
function toCached(deps: Pick<Deps, "config">, session: SessionRecord, user: CachedUser): CachedSession {
  return {
    v: CACHE_RECORD_VERSION,
    session: {
      id: session.id,
      token: session.token,
      userId: session.userId,
      expiresAt: session.expiresAt.toISOString(),
      ipAddress: session.ipAddress,
      userAgent: session.userAgent,
      createdAt: session.createdAt.toISOString(),
      updatedAt: session.updatedAt.toISOString(),
      impersonatedBy: session.impersonatedBy,
      activeOrganizationId: session.activeOrganizationId,
      activeTeamId: session.activeTeamId,
      authMethod: session.authMethod,
      secondFactor: session.secondFactor,
      authenticatedAt: session.authenticatedAt?.toISOString() ?? null,
    },
    user,
    refreshAt: refreshAt(deps, session),
  };
}

/** Fills the cache unless a forget changed the session's generation since `generation` was read. */
async function fillCache(deps: Pick<Deps, "cache" | "cacheMac" | "tokens" | "log" | "now">, token: string, cached: CachedSession, generation: string | null): Promise<void> {
  try {
    await writeCachedSession(deps.cache, deps.cacheMac, deps.tokens.lookup(token), cached, generation, deps.now().getTime());
  } catch (error) {
    deps.log.warn("session cache write failed", { error });
  }
}

export interface ValidSession {
  cached: CachedSession;
  refreshed: boolean;
}

/** The live session for a token, extended when due (unless disableRefresh), or null. */
export async function getSession(deps: Deps, token: string, disableRefresh: boolean): Promise<ValidSession | null> {
  const now = deps.now();
  let cached: CachedSession | "revoked" | null = null;
  // The generation read before the store: a fill must present it (undefined: the cache failed, no fill).
  let generation: string | null | undefined;
  try {
    let refused: RefusedRecord | null;
    ({ cached, generation, refused } = await readCachedSessionForFill(deps.cache, deps.cacheMac, { token, lookup: deps.tokens.lookup(token) }, now.getTime()));
    // Written by someone without AUTH_SECRET (or moved from another key): the store answers, and the fill below replaces it.
    if (refused) deps.log.warn("session cache entry refused: its MAC does not hold (written without AUTH_SECRET, or moved); reading the store", { reason: refused });
  } catch (error) {
    deps.log.warn("session cache read failed; reading the store", { error });
  }
  if (cached === "revoked") return null;
  if (!cached) {
    try {
      cached = await loadSession(deps, token, now);
    } catch (error) {
      if (!isDatabaseUnreachable(error)) throw error;
      const held = await heldDuringOutage(deps, token, now, error);
      return held && { cached: held, refreshed: false };
    }
    if (!cached) return null;
    if (generation !== undefined) await fillCache(deps, token, cached, generation);
  }
  if (disableRefresh || now.getTime() < cached.refreshAt) return { cached, refreshed: false };

  const expiresAt = Date.parse(cached.session.expiresAt);
  const lifetime = expiresAt - Date.parse(cached.session.updatedAt);
  const newExpiresAt = new Date(now.getTime() + lifetime);
  let extended: boolean;
  try {
    extended = await deps.store.extend(token, newExpiresAt, now);
  } catch (error) {
    // The lease vouched for this entry; the extension waits for the store (the session is far from expiry).
    if (isDatabaseUnreachable(error)) return { cached, refreshed: false };
    throw error;
  }
  if (!extended) return null;
  const refreshed: CachedSession = {
    ...cached,
    session: { ...cached.session, expiresAt: newExpiresAt.toISOString(), updatedAt: now.toISOString() },
    refreshAt: refreshAt(deps, { expiresAt: newExpiresAt, updatedAt: now }),
  };
  if (generation !== undefined) await fillCache(deps, token, refreshed, generation);
  return { cached: refreshed, refreshed: true };
}

/** The session and its user as the store has them, or null (none, expired, or its user gone). */
async function loadSession(deps: Deps, token: string, now: Date): Promise<CachedSession | null> {
  const record = await deps.store.findByToken(token);
  if (!record) return null;
  if (record.expiresAt <= now) {
    await deps.store.deleteByTokens([token]);
    return null;
  }
  // Identity pushes the user with CreateSession and PutUserCopy; no copy means no user to serve (deleted).
  const user = await deps.store.findUser(record.userId);
  if (!user) return null;
  return toCached(deps, record, user);
}

/**
 * The store is out of reach: the cache entry this token has, served as it is (no refresh, no fill) while the
 * lease allows stale serving (cache-lease.ts, staleServingUntil); a revoked one is no session. Without
 * one the outage is the answer (`unreachable` rethrown: 503 with a retry hint), not "no session": that would
 * sign the user out.
 */
async function heldDuringOutage(deps: Deps, token: string, now: Date, unreachable: unknown): Promise<CachedSession | null> {
  if (now.getTime() >= deps.lease.staleServingUntil()) throw unreachable;
  let held: CachedSession | "revoked" | null;
  try {
    held = await readHeldSession(deps.cache, deps.cacheMac, { token, lookup: deps.tokens.lookup(token) }, now.getTime());
  } catch {
    throw unreachable;
  }
  if (held === "revoked") return null;
  if (!held) throw unreachable;
  return held;
}

export interface ListSessionsOptions {
  /** Impersonation sessions too (the admin listing). */
  includeImpersonated?: boolean;
  /** The signed-in user the request acts for (the gateway's list-sessions); absent for a service's own listing. */
  caller?: CallerRef;
}

/** The session a request acts in, as the gateway named it (auth.common.v1.Caller): re-checked here, where sessions live. */
export interface CallerRef {
  sessionId: string;
  userId: string;
}

/**
 * The user's live sessions, impersonation sessions left out unless asked for (admins see them). A caller
 * acting in an impersonation session gets handles instead of tokens: a raw token listed there would let
 * the admin keep a plain session of the user after stop-impersonating, outside the impersonation's limits
 * and audit.
 */
export async function listSessions(deps: Pick<Deps, "store" | "now"> & Pick<Registry, "handles">, userId: string, options: ListSessionsOptions = {}): Promise<SessionRecord[]> {
  const now = deps.now();
  const sessions = await deps.store.listByUser(userId);
  const caller = options.caller === undefined ? null : callerAmong(sessions, options.caller, userId, now);
  const listed = sessions.filter((s) => s.expiresAt > now && (options.includeImpersonated || !s.impersonatedBy));
  if (!caller?.impersonatedBy) return listed;
  return listed.map((s) => ({ ...s, token: deps.handles.handleOf(s.id) }));
}

/**
 * The session a request acts in, found among its user's sessions: it must be live and belong to the user
 * the request names (when it names one), else UNAUTHORIZED. Its impersonation is read from the store, not
 * taken from the caller.
 */
function callerAmong(sessions: SessionRecord[], caller: CallerRef, userId: string | undefined, now: Date): SessionRecord {
  const session = caller.sessionId ? sessions.find((s) => s.id === caller.sessionId) : undefined;
  if (!session || session.expiresAt <= now || session.userId !== caller.userId || (userId !== undefined && userId !== caller.userId)) throw new AuthError("UNAUTHORIZED");
  return session;
}

/**
 * The caller a gateway of the previous release names by its session token (deprecated: read during a rolling
 * upgrade only); a token that names no session is a caller no check accepts.
 */
export async function callerByToken(deps: Pick<Deps, "store">, token: string): Promise<CallerRef> {
  const session = token ? await deps.store.findByToken(token) : null;
  return session ? { sessionId: session.id, userId: session.userId } : { sessionId: "", userId: "" };
}

/** The live session a request acts in, read by its id, or UNAUTHORIZED (callerAmong). */
export async function callerSession(deps: Pick<Deps, "store" | "now">, caller: CallerRef, userId: string | undefined): Promise<SessionRecord> {
  const session = caller.sessionId ? await deps.store.findById(caller.sessionId) : null;
  return callerAmong(session ? [session] : [], caller, userId, deps.now());
}

/**
 * An impersonation session ends no session of the user but itself, nor starts one: the user's own sessions
 * are theirs, and an admin who must end them has the admin routes, audited as the admin's.
 */
function refuseWhileImpersonating(caller: SessionRecord): void {
  if (caller.impersonatedBy) throw new AuthError("YOU_CANNOT_REVOKE_SESSIONS_WHILE_IMPERSONATING");
}

/** Ends these sessions (of one user) with their session.revoked event, which the worker publishes (webhook-events.ts). */
async function revokeAll(deps: Deps, sessions: SessionRecord[], reason: RevocationReason): Promise<void> {
  if (!sessions.length) return;
  authEvents.sessionsRevoked(sessions.length);
  const revoked: SessionEvent = { kind: "sessions-revoked", lookups: sessions.map((s) => deps.tokens.lookup(s.token)) };
  try {
    // Concurrent, so Redis pipelines them; every tombstone is written before any row is deleted.
    const now = deps.now().getTime();
    await Promise.all(sessions.map((session) => revokeCachedSession(deps.cache, deps.tokens.lookup(session.token), session.expiresAt, now)));
  } catch (error) {
    deps.log.warn("session cache unavailable: revocation recorded in the store until the cache is back", { error, count: sessions.length });
    await deps.store.revokePending(sessions, reason);
    // Until a flush has written these tombstones, this replica serves no entry past the lease.
    deps.lease.forbidStaleServing();
    // Both waits at once: together they stay under the callers' deadline (session-relay.ts).
    await Promise.all([deps.lease.waitOut(), deps.events.publish(revoked)]);
    // Redis may be back by now: the tombstones then hold at once, whatever happens to the store next.
    const later = deps.now().getTime();
    await Promise.all(sessions.map((session) => revokeCachedSession(deps.cache, deps.tokens.lookup(session.token), session.expiresAt, later))).catch(() => undefined);
    return;
  }
  await deps.store.deleteByTokens(
    sessions.map((s) => s.token),
    reason,
  );
  // The rows are gone: the watchers (gateways' caches) drop their copies before the revoke answers.
  await deps.events.publish(revoked);
}

/**
 * Ends one session; with ownerId, only if it belongs to that user (else, as if absent, SESSION_NOT_FOUND).
 * With a caller (the session the request acts in), an impersonation session may end only itself.
 */
export async function revokeSession(deps: Deps, token: string, options: { ownerId?: string; caller?: CallerRef } = {}): Promise<string> {
  const caller = options.caller === undefined ? null : await callerSession(deps, options.caller, options.ownerId);
  let session: SessionRecord | null;
  try {
    session = await deps.store.findByToken(token);
  } catch (error) {
    if (isDatabaseUnreachable(error)) await revokeHeldCopy(deps, token, options.ownerId);
    throw error;
  }
  // Refused whether or not the token names a session: the answer tells an impersonation session nothing.
  if (caller && session?.id !== caller.id) refuseWhileImpersonating(caller);
  if (!session || (options.ownerId && session.userId !== options.ownerId)) throw new AuthError("SESSION_NOT_FOUND");
  // A caller names the session to end among theirs (revoke-session); none: the token's own sign-out.
  await revokeAll(deps, [session], caller ? "revoke-session" : "sign-out");
  return session.userId;
}

/** Ends one session named by id (a service's revocation); answers its user. */
export async function revokeSessionById(deps: Deps, sessionId: string, ownerId?: string, reason: RevocationReason = "revoke-session"): Promise<string> {
  const session = sessionId ? await deps.store.findById(sessionId) : null;
  // With an owner named, another user's session is not found (as by token).
  if (!session || (ownerId && session.userId !== ownerId)) throw new AuthError("SESSION_NOT_FOUND");
  await revokeAll(deps, [session], reason);
  return session.userId;
}

/**
 * A sign-out while the store is out of reach still fails (503: the row stays until a retry deletes it), but
 * the cache entry it would be served from during the outage gets its tombstone: the signed-out token is
 * not served from the cache meanwhile. Best effort; only the owner's (the entry names its user).
 */
async function revokeHeldCopy(deps: Deps, token: string, ownerId: string | undefined): Promise<void> {
  try {
    const lookup = deps.tokens.lookup(token);
    const held = await readHeldSession(deps.cache, deps.cacheMac, { token, lookup }, deps.now().getTime());
    if (!held || held === "revoked" || (ownerId && held.session.userId !== ownerId)) return;
    await revokeCachedSession(deps.cache, lookup, new Date(held.session.expiresAt), deps.now().getTime());
    await deps.events.publish({ kind: "sessions-revoked", lookups: [lookup] });
  } catch (error) {
    deps.log.warn("session cache unavailable: a sign-out during a store outage left its cache entry", { error });
  }
}

/**
 * A change of a user's sessions (a ban, a revocation of all of them, a changed user) that could not reach
 * the store: the cache still holds their entries, which stale serving must not hand out as if nothing had
 * changed. No replica serves entries past the lease until the stop key lapses (this one until its next
 * clean check); the call itself fails with the outage.
 */
async function withoutStaleServingOnOutage<T>(deps: Deps, change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (isDatabaseUnreachable(error)) {
      deps.lease.forbidStaleServing();
      await stopStaleServing(deps.cache, deps.config.cacheStaleServeSeconds * 1000).catch((cause: unknown) => {
        deps.log.warn("session cache unavailable: could not stop other replicas serving cached sessions", { error: cause });
      });
    }
    throw error;
  }
}

/**
 * Ends every session of the user, but the caller's own with keepCallers. With `user` (a ban), that copy is
 * kept first (unless a newer one is): a createSession running meanwhile either reads it and refuses, or
 * inserted its row before this lists. With a caller (the session the request acts in), refused to an
 * impersonation session.
 */
export async function revokeUserSessions(
  deps: Deps,
  userId: string,
  options: { user?: CachedUser; caller?: CallerRef; keepCallers?: boolean; reason?: RevocationReason } = {},
): Promise<void> {
  if (options.caller !== undefined) refuseWhileImpersonating(await callerSession(deps, options.caller, userId));
  const keep = options.keepCallers ? options.caller?.sessionId : undefined;
  await withoutStaleServingOnOutage(deps, async () => {
    const changed = options.user && (await keepUser(deps, userId, options.user));
    const sessions = (await deps.store.listByUser(userId)).filter((s) => s.id !== keep);
    await revokeAll(deps, sessions, revocationReason(options));
    changed?.();
  });
}

/** Why revokeUserSessions ends the sessions, as its caller tells it. */
function revocationReason(options: { user?: CachedUser; caller?: CallerRef; keepCallers?: boolean; reason?: RevocationReason }): RevocationReason {
  if (options.reason) return options.reason;
  if (options.user?.banned) return "banned";
  if (options.caller) return options.keepCallers ? "revoke-other-sessions" : "revoke-sessions";
  return "revoked";
}

/**
 * Keeps the copy (or removes it with `user` null) and returns the publication of what that changed
 * (user-events.ts), to run once the sessions it affects are dealt with.
 */
async function keepUser(deps: Pick<Deps, "store" | "userEvents" | "now">, userId: string, user: CachedUser | null, without?: "deleted" | "unknown"): Promise<() => void> {
  const before = await deps.store.findUser(userId);
  if (user) await deps.store.putUser(user);
  else await deps.store.deleteUser(userId);
  const after = user ? await deps.store.findUser(userId) : null;
  // A sender of the previous release names no copy (ForgetUser): something changed, not a deletion.
  const kinds: UserEventKind[] = without === "deleted" ? ["deleted"] : without === "unknown" ? ["updated"] : userChanges(before, after);
  const at = deps.now().getTime();
  return () => deps.userEvents.publish(kinds.map((kind) => ({ userId, kind, at })));
}

/**
 * After a user changed: keeps the user as it now is (unless a newer copy is kept), or with no user given
 * (deleted, or a sender that predates copies) removes the copy, then drops cached copies of the user's
 * sessions, so the next read serves the kept copy, or none.
 */
export async function forgetUser(deps: Deps, userId: string, user?: CachedUser, options: { deleted?: boolean } = {}): Promise<void> {
  await withoutStaleServingOnOutage(deps, async () => {
    const changed = await keepUser(deps, userId, user ?? null, user ? undefined : options.deleted ? "deleted" : "unknown");
    const sessions = await deps.store.listByUser(userId);
    await dropCachedCopies(
      deps,
      sessions.map((s) => s.token),
      { kind: "user-changed", userId },
    );
    changed();
  });
}

/**
 * Drops the cached copies of these sessions after a change of them or their user, and publishes `event` to the
 * watchers. When Redis cannot take it, the forgets are recorded as pending and the call waits out the lease, as
 * a revocation does: from then on no copy from before the change is trusted until a flush has dropped them
 * (cache-lease.ts).
 */
export async function dropCachedCopies(deps: Pick<Deps, "store" | "cache" | "tokens" | "lease" | "events" | "log">, tokens: string[], event: SessionEvent): Promise<void> {
  if (!tokens.length) return;
  try {
    await Promise.all(tokens.map((token) => forgetCachedSession(deps.cache, deps.tokens.lookup(token))));
  } catch (error) {
    deps.log.warn("session cache unavailable: forget recorded in the store until the cache is back", { error, count: tokens.length });
    await deps.store.forgetPending(tokens.map((token) => deps.tokens.lookup(token)));
    deps.lease.forbidStaleServing();
    // Both waits at once: together they stay under the callers' deadline (session-relay.ts).
    await Promise.all([deps.lease.waitOut(), deps.events.publish(event)]);
    // Redis may be back by now: the entries then go at once, whatever happens to the store next.
    await Promise.all(tokens.map((token) => forgetCachedSession(deps.cache, deps.tokens.lookup(token)))).catch(() => undefined);
    return;
  }
  await deps.events.publish(event);
}

/** The users who have sessions but no kept copy (sessions from before copies were kept), a page at a time. */
export async function usersMissingSnapshot(deps: Pick<Deps, "store">, afterUserId: string, limit: number): Promise<string[]> {
  return deps.store.usersMissingSnapshot(afterUserId, Math.min(Math.max(limit, 1), 1_000));
}
