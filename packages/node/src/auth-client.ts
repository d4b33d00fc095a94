/**
 * createAuthClient: what a team's Node service needs to know who is calling it. A session (the gateway's
 * session cookie, or its token as a bearer) is checked with SessionService/GetSession over mutual TLS, and
 * held in a bounded local cache that WatchSessionEvents keeps exact (session-cache.ts, session-watch.ts:
 * served only under a lease; a revoke answers only once this process has dropped its copy). A JWT is
 * verified against the platform's key set; an API key (`x-api-key`) with identity's VerifyApiKey. Nothing here
 * logs or keeps a token or a key.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import * as grpc from "@grpc/grpc-js";
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from "jose";
import type { User } from "@auth-platform/proto/gen/auth/common/v1/user";
import { type ApiKey, ApiKeyServiceClient, type VerifyApiKeyResponse } from "@auth-platform/proto/gen/auth/identity/v1/api_key";
import { type GetSessionResponse, type Session, SessionServiceClient } from "@auth-platform/proto/gen/auth/session/v1/session";
import { type SessionCache, sessionCache } from "./session-cache.js";
import { type AppliedEvent, type SessionWatch, watchSessionEvents } from "./session-watch.js";

export type { User } from "@auth-platform/proto/gen/auth/common/v1/user";
export type { ApiKey } from "@auth-platform/proto/gen/auth/identity/v1/api_key";

/** A session as GetSession answers it, without its token. */
export type SessionInfo = Omit<Session, "token">;

export type AuthResult =
  | { kind: "session"; session: SessionInfo; user: User }
  | { kind: "jwt"; claims: JWTPayload }
  | { kind: "apiKey"; key: ApiKey }
  | { kind: "unauthenticated"; reason: "no-credential" | "invalid-credential" }
  /** An API key past its rate limit: requireAuth() answers 429 with Retry-After. */
  | { kind: "unauthenticated"; reason: "rate-limited"; retryAfterMs: number };

/** Anything with headers the way Node's IncomingMessage has them (express, fastify, node:http). */
export interface RequestLike {
  headers: Record<string, string | string[] | undefined>;
}

export interface AuthClientOptions {
  /** The session service's gRPC target (`dns:///<release>-auth-platform-session.<ns>.svc.cluster.local:50052`). */
  sessionServiceUrl: string;
  /** The internal-client certificate: the platform's CA, this service's certificate and key (PEM). */
  tls: { ca: string | Buffer; cert: string | Buffer; key: string | Buffer };
  /** The name in the session service's certificate ("session"). */
  sessionServerName?: string;
  /** AUTH_COOKIE_PREFIX of the gateway ("better-auth"): the cookie is `<prefix>.session_token`, or `__Secure-` it. */
  cookiePrefix?: string;
  /**
   * The gateway's cookie secret, to refuse a forged cookie without a round trip. Optional: without it the
   * signature is stripped and the session service checks the token itself (the secret also derives the
   * platform's token keys; hand it to no service that does not already hold it).
   */
  cookieSecret?: string;
  /** The most sessions held (10,000 by default; 0: no cache and no stream, every check asks GetSession). */
  cacheSize?: number;
  /**
   * Identity's gRPC target: an API key in `x-api-key` is checked with ApiKeyService/VerifyApiKey (the same
   * certificate; server name "identity"). Without it, API keys are not accepted.
   */
  identityServiceUrl?: string;
  identityServerName?: string;
  /** What every API key must be granted, by resource (`{ files: ["read"] }`); none by default. */
  apiKeyPermissions?: Record<string, string[]>;
  /** A JWT in `Authorization: Bearer` is verified against this key set (the gateway's /api/auth/jwks). */
  jwt?: { jwksUrl: string; issuer?: string; audience?: string | string[] };
  /** Deadline of each GetSession (2 s by default). */
  deadlineMs?: number;
  /** Told of every event applied to the cache (metrics, tests). */
  onSessionEvent?: (event: AppliedEvent) => void;
  /** Warnings (the stream lost): console.warn by default. Never given a token. */
  onWarning?: (message: string, fields: Record<string, unknown>) => void;
}

export interface AuthClient {
  authenticate(request: RequestLike): Promise<AuthResult>;
  /** Express middleware: `req.auth` set, or 401 `{ code: "UNAUTHORIZED" }`. */
  requireAuth(): (req: RequestLike & { auth?: AuthResult }, res: JsonResponse, next: (error?: unknown) => void) => void;
  /** A fastify preHandler hook: `request.auth` set, or 401. */
  fastifyHook(): (request: RequestLike & { auth?: AuthResult }, reply: FastifyReplyLike) => Promise<void>;
  /** Whether the local cache may serve now (a lease is held), and how many sessions it holds. */
  cacheLive(): boolean;
  cacheSize(): number;
  close(): void;
}

interface JsonResponse {
  status(code: number): { json(body: unknown): unknown };
  setHeader?(name: string, value: string): unknown;
}
interface FastifyReplyLike {
  code(status: number): { send(body: unknown): unknown };
}

const UNAUTHORIZED = { code: "UNAUTHORIZED", message: "Unauthorized" };
const RATE_LIMITED = { code: "RATE_LIMIT_EXCEEDED", message: "Rate limit exceeded" };

/** What requireAuth() or fastifyHook() put on the request (throws when neither ran before the handler). */
export function authOf(request: object): Exclude<AuthResult, { kind: "unauthenticated" }> {
  const result = (request as { auth?: AuthResult }).auth;
  if (!result || result.kind === "unauthenticated") throw new Error("authOf: requireAuth() did not run for this route");
  return result;
}

export function createAuthClient(options: AuthClientOptions): AuthClient {
  // Made on first use (at once with a cache, whose stream opens now): a service that only takes JWTs never dials.
  let channel: SessionServiceClient | undefined;
  const sessionClient = () =>
    (channel ??= new SessionServiceClient(options.sessionServiceUrl, credentials(), {
      "grpc.ssl_target_name_override": options.sessionServerName ?? "session",
      "grpc.service_config": JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
    }));
  const credentials = () => grpc.credentials.createSsl(Buffer.from(options.tls.ca), Buffer.from(options.tls.key), Buffer.from(options.tls.cert));
  let keysChannel: ApiKeyServiceClient | undefined;
  const apiKeyClient = () =>
    (keysChannel ??= new ApiKeyServiceClient(options.identityServiceUrl!, credentials(), {
      "grpc.ssl_target_name_override": options.identityServerName ?? "identity",
      "grpc.service_config": JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
    }));
  const cacheSize = options.cacheSize ?? 10_000;
  const cache: SessionCache<{ session: SessionInfo; user: User }> | undefined = cacheSize > 0 ? sessionCache({ maxEntries: cacheSize }) : undefined;
  const warn = options.onWarning ?? ((message, fields) => console.warn(message, fields));
  const watch: SessionWatch | undefined = cache && watchSessionEvents({ client: sessionClient(), cache, onEvent: options.onSessionEvent, onWarning: warn });
  const prefix = options.cookiePrefix ?? "better-auth";
  const jwks = options.jwt && createRemoteJWKSet(new URL(options.jwt.jwksUrl));

  const unsigned = (signed: string): string | null => {
    const dot = signed.lastIndexOf(".");
    if (dot < 0) return signed;
    if (dot === 0) return null;
    const token = signed.slice(0, dot);
    if (options.cookieSecret === undefined) return token;
    const given = Buffer.from(signed.slice(dot + 1));
    const expected = Buffer.from(createHmac("sha256", options.cookieSecret).update(token).digest("base64url"));
    return given.length === expected.length && timingSafeEqual(given, expected) ? token : null;
  };

  const sessionOf = async (token: string): Promise<AuthResult> => {
    const key = cache?.keyOf(token);
    const held = key !== undefined ? cache!.get(key, Date.now()) : undefined;
    if (held) return { kind: "session", ...held };
    const since = cache?.version() ?? 0;
    const reply = await getSession(token);
    if (!reply.session || !reply.user) return { kind: "unauthenticated", reason: "invalid-credential" };
    const { token: _token, ...session } = reply.session;
    const value = { session, user: reply.user };
    if (key !== undefined && reply.refreshAt && reply.tokenLookup) {
      const dueAt = Math.min(reply.refreshAt.getTime(), session.expiresAt?.getTime() ?? 0);
      cache!.fill(key, { value, userId: reply.user.id, lookup: reply.tokenLookup, dueAt }, since);
    }
    return { kind: "session", ...value };
  };

  const getSession = (token: string) =>
    new Promise<GetSessionResponse>((resolve, reject) =>
      // disableRefresh: a read-only check; only the gateway extends sessions (it reissues the cookie).
      sessionClient().getSession({ token, disableRefresh: true }, new grpc.Metadata(), { deadline: Date.now() + (options.deadlineMs ?? 2_000) }, (error, reply) =>
        error ? reject(error) : resolve(reply),
      ),
    );

  const jwtOf = async (token: string): Promise<AuthResult> => {
    if (!jwks) return { kind: "unauthenticated", reason: "invalid-credential" };
    try {
      const { payload } = await jwtVerify(token, jwks, { issuer: options.jwt!.issuer, audience: options.jwt!.audience });
      return { kind: "jwt", claims: payload };
    } catch {
      return { kind: "unauthenticated", reason: "invalid-credential" };
    }
  };

  const apiKeyOf = async (key: string): Promise<AuthResult> => {
    if (!options.identityServiceUrl) return { kind: "unauthenticated", reason: "invalid-credential" };
    const permissions = Object.fromEntries(Object.entries(options.apiKeyPermissions ?? {}).map(([resource, actions]) => [resource, { actions }]));
    const reply = await new Promise<VerifyApiKeyResponse>((resolve, reject) =>
      apiKeyClient().verifyApiKey({ key, permissions }, new grpc.Metadata(), { deadline: Date.now() + (options.deadlineMs ?? 2_000) }, (error, answer) =>
        error ? reject(error) : resolve(answer),
      ),
    );
    if (reply.valid && reply.key) return { kind: "apiKey", key: reply.key };
    if (reply.errorCode === "RATE_LIMIT_EXCEEDED") return { kind: "unauthenticated", reason: "rate-limited", retryAfterMs: Number(reply.retryAfterMs) };
    return { kind: "unauthenticated", reason: "invalid-credential" };
  };

  const header = (request: RequestLike, name: string): string | undefined => {
    const value = request.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };

  const cookie = (request: RequestLike): string | undefined => {
    const found = new Map<string, string>();
    for (const part of (header(request, "cookie") ?? "").split(";")) {
      const eq = part.indexOf("=");
      if (eq < 0) continue;
      const name = part.slice(0, eq).trim();
      if (found.has(name)) continue;
      try {
        found.set(name, decodeURIComponent(part.slice(eq + 1).trim()));
      } catch {
        // A malformed escape: not a cookie of ours.
      }
    }
    return found.get(`__Secure-${prefix}.session_token`) ?? found.get(`${prefix}.session_token`);
  };

  const authenticate = async (request: RequestLike): Promise<AuthResult> => {
    const authorization = header(request, "authorization");
    const bearer = authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
    if (bearer) {
      // A JWT has three parts; a session token none, or one with its cookie signature.
      if (bearer.split(".").length === 3) return jwtOf(bearer);
      const token = unsigned(bearer);
      return token ? sessionOf(token) : { kind: "unauthenticated", reason: "invalid-credential" };
    }
    const apiKey = header(request, "x-api-key");
    if (apiKey) return apiKeyOf(apiKey);
    const signed = cookie(request);
    if (signed === undefined) return { kind: "unauthenticated", reason: "no-credential" };
    const token = unsigned(signed);
    return token ? sessionOf(token) : { kind: "unauthenticated", reason: "invalid-credential" };
  };

  return {
    authenticate,
    requireAuth: () => (req, res, next) => {
      authenticate(req).then((result) => {
        if (result.kind === "unauthenticated") {
          if (result.reason === "rate-limited") {
            res.setHeader?.("Retry-After", String(Math.max(1, Math.ceil(result.retryAfterMs / 1000))));
            return void res.status(429).json(RATE_LIMITED);
          }
          return void res.status(401).json(UNAUTHORIZED);
        }
        req.auth = result;
        next();
      }, next);
    },
    fastifyHook: () => async (request, reply) => {
      const result = await authenticate(request);
      if (result.kind === "unauthenticated") {
        await reply.code(result.reason === "rate-limited" ? 429 : 401).send(result.reason === "rate-limited" ? RATE_LIMITED : UNAUTHORIZED);
        return;
      }
      request.auth = result;
    },
    cacheLive: () => cache?.holdsLease() ?? false,
    cacheSize: () => cache?.size ?? 0,
    close() {
      watch?.stop();
      channel?.close();
      keysChannel?.close();
    },
  };
}
