/**
 * Finds the caller's session: a bearer token or the signed cookie. A session this gateway holds in its own
 * memory (session-memory.ts: kept while the session service's pushes hold a lease) is answered from there,
 * before its refresh point, with no I/O at all. Otherwise, with Redis shared with the session
 * service, a warm session is read straight from the cache under the token's keyed hash (one HMAC, one
 * MGET, one HMAC to check the entry's MAC, no gRPC hop, no SQL), and the HTTP JSON is built from the session
 * service's cache record; a miss, a session due for refresh, a cache without its lease, an entry whose MAC
 * does not hold (reported as a security event), or a cache failure asks the session service. What either
 * answers fills the memory.
 */
import type { Request } from "express";
import { AuthError } from "@auth-platform/proto/errors";
import { cacheMac } from "@auth-platform/runtime/cache-mac";
import { call } from "@auth-platform/runtime/rpc";
import type { KeyValue } from "@auth-platform/runtime/key-value";
import type { Logger } from "@auth-platform/runtime/log";
import { readCachedSession, type RefusedRecord } from "@auth-platform/runtime/session-cache";
import { tokenLookup } from "@auth-platform/runtime/session-token";
import { carriedUser } from "@auth-platform/runtime/user-message";
import type { Clients } from "../clients.js";
import { type CookieJar, parseCookies, unsign, unsignImported } from "./cookies.js";
import { type PublicSession, type PublicUser, publicSession, publicUser } from "./public-shapes.js";
import type { SessionMemory } from "./session-memory.js";

export interface CurrentSession {
  session: PublicSession;
  user: PublicUser;
  refreshed: boolean;
}

export interface SessionResolver {
  /** The token the request carries, if its signature (for cookies) holds. */
  tokenOf(req: Pick<Request, "headers">): string | null;
  /** get-session's answer (JSON) for the session this gateway holds in its memory for the request's token, with no I/O; undefined when it holds none (ask `current`). */
  heldAnswer(req: Pick<Request, "headers">): string | undefined;
  /** The live session for the request, or null. */
  current(req: Request, options?: { disableRefresh?: boolean }): Promise<CurrentSession | null>;
  /** The live session a token other than the request's names (the admin's kept one, a token in a body), never extended; or null. */
  ofToken(req: Request, token: string): Promise<CurrentSession | null>;
  /** The live session, or 401. */
  require(req: Request): Promise<CurrentSession>;
}

const BEARER = /^Bearer\s+(\S+)$/i;

/** Told of a shared cache entry refused for its MAC, for the request that read it (a security event). */
export type RefusedCacheEntry = (req: Request, reason: RefusedRecord) => void;

export function sessionResolver(deps: {
  clients: Clients;
  jar: CookieJar;
  secret: string;
  /** The secret of an imported better-auth app, whose signed cookies are accepted too (GATEWAY_IMPORTED_COOKIE_SECRET). */
  importedCookieSecret?: string;
  sharedCache?: KeyValue;
  /** The gateway's own copies (none: every request asks the shared cache or the session service). */
  memory?: SessionMemory;
  log: Logger;
  onRefusedEntry?: RefusedCacheEntry;
}): SessionResolver {
  const { memory } = deps;
  const { lookup } = tokenLookup(deps.secret);
  const mac = cacheMac(deps.secret);
  const { importedCookieSecret } = deps;
  // Ours first; then, when configured, the imported app's encoding under its secret.
  const verified = (signed: string): string | null => unsign(signed, deps.secret) ?? (importedCookieSecret ? unsignImported(signed, importedCookieSecret) : null);
  const tokenOf = (req: Pick<Request, "headers">): string | null => {
    const bearer = BEARER.exec(req.headers.authorization ?? "")?.[1];
    if (bearer) return bearer.includes(".") ? verified(bearer) : bearer;
    const cookie = parseCookies(req.headers.cookie).get(deps.jar.sessionName);
    return cookie ? verified(cookie) : null;
  };

  const fromMemory = (key: string, token: string): CurrentSession | undefined => {
    const held = memory?.get(key, token, Date.now());
    return held && { session: held.session, user: held.user, refreshed: false };
  };

  const resolve = async (req: Request, token: string, options: { disableRefresh?: boolean }): Promise<CurrentSession | null> => {
    const key = lookup(token);
    const held = fromMemory(key, token);
    if (held) return held;
    // Counted before the read: a change published while it runs keeps its answer out of the memory.
    const since = memory?.version() ?? 0;
    if (deps.sharedCache) {
      try {
        const { cached, refused } = await readCachedSession(deps.sharedCache, mac, { token, lookup: key });
        if (refused) {
          deps.log.warn("session cache entry refused: its MAC does not hold (written without AUTH_SECRET, or moved); asking the session service", { reason: refused });
          deps.onRefusedEntry?.(req, refused);
        }
        if (cached === "revoked") return null;
        if (cached && (options.disableRefresh || Date.now() < cached.refreshAt)) {
          const found = { session: publicSession(cached.session), user: publicUser(cached.user), refreshed: false };
          memory?.fill(key, found, Math.min(cached.refreshAt, Date.parse(cached.session.expiresAt)), since);
          return found;
        }
      } catch (error) {
        deps.log.warn("session cache read failed; asking the session service", { error });
      }
    }
    const sessions = deps.clients.sessions;
    const found = await call(sessions, sessions.getSession, { token, disableRefresh: options.disableRefresh ?? false });
    const user = carriedUser(found);
    if (!found.session || !user) return null;
    const current = { session: publicSession(found.session), user: publicUser(user), refreshed: found.refreshed };
    // A session service of the previous release sends no refresh point: nothing to keep it until.
    if (found.refreshAt) memory?.fill(key, current, Math.min(found.refreshAt.getTime(), found.session.expiresAt?.getTime() ?? 0), since);
    return current;
  };

  const current = async (req: Request, options: { disableRefresh?: boolean } = {}): Promise<CurrentSession | null> => {
    const token = tokenOf(req);
    return token ? resolve(req, token, options) : null;
  };

  return {
    tokenOf,
    heldAnswer(req) {
      if (!memory) return undefined;
      const token = tokenOf(req);
      return token ? memory.answer(lookup(token), token, Date.now()) : undefined;
    },
    current,
    ofToken: (req, token) => (token ? resolve(req, token, { disableRefresh: true }) : Promise.resolve(null)),
    async require(req) {
      const found = await current(req);
      if (!found) throw new AuthError("UNAUTHORIZED");
      return found;
    },
  };
}
