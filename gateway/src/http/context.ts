/** Per-request facts the routes share: the base URL, the trusted origins, the client's device and language. */
import type { NextFunction, Request, Response } from "express";
import { AuthError } from "@auth-platform/proto/errors";
import { type Language, negotiateLanguage } from "@auth-platform/runtime/language";
import type { RequestContext } from "@auth-platform/proto/rpc-server";
import { withRequestContext } from "@auth-platform/runtime/request-context";
import { queryOf } from "./body.js";
import { type RedirectPolicy, type ResolvedCallbacks, resolveCallbacks } from "./callback-url.js";
import { type ClientIpPolicy, clientIp } from "./client-ip.js";
import { isTrustedOrigin, originOf } from "./origins.js";

export interface RequestFacts {
  baseUrl: string;
  trustedOrigins: string[];
  /** How callback URLs resolve and which are accepted (callback-url.ts). */
  redirects: RedirectPolicy;
  ipAddress?: string;
  userAgent?: string;
  /** The best language of the request's Accept-Language we speak (English by default): the mails it leads to are written in it. */
  language: Language;
}

declare module "express-serve-static-core" {
  interface Request {
    facts: RequestFacts;
    /** The callback URLs of the body and of the query, resolved and trusted (set by originCheck). */
    callbacks: { body: ResolvedCallbacks; query: ResolvedCallbacks };
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * A client that goes away before its answer cancels the calls made for it, and a password hash still
 * waiting in identity's queue for it is dropped: under a retry storm, clients that gave up would otherwise
 * keep the hashing busy for nobody (docs/adr/0025-sign-in-beyond-capacity.md). The signal is made when a
 * call first asks for it: most warm requests (a cached get-session) make no call.
 */
class HttpRequestContext implements RequestContext {
  #stopped: AbortController | undefined;
  #clientGone = false;
  /** Set by the capacity gate (capacity-gate.ts) when it took an opening for this request's call. */
  admitted?: string;

  constructor(readonly requestId: string) {}

  get signal(): AbortSignal {
    if (!this.#stopped) {
      this.#stopped = new AbortController();
      if (this.#clientGone) this.#stopped.abort();
    }
    return this.#stopped.signal;
  }

  clientGone(): void {
    this.#clientGone = true;
    this.#stopped?.abort();
  }
}

/** A sane incoming x-request-id, else a new one. */
export function requestIdOf(req: Pick<Request, "headers">): string {
  const incoming = req.headers["x-request-id"];
  return typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
}

/**
 * The request's id, echoed and run under for the rest of the chain: its trace id when tracing is on (so
 * logs and traces meet), else a sane incoming x-request-id, else a new one.
 */
export function requestId(req: Request, res: Response, next: NextFunction): void {
  const id = res.locals.traceId ?? requestIdOf(req);
  res.setHeader("X-Request-Id", id);
  const context = new HttpRequestContext(id);
  // Node emits "close" once per response, after "finish" or when the connection goes first.
  res.on("close", () => {
    if (!res.writableFinished) context.clientGone();
  });
  // No deadline: each call the request makes gets the default one (rpc-client.ts).
  withRequestContext(context, next);
}

export function requestFacts(options: { baseUrl?: string; basePath: string; appUrl?: string; trustedOrigins: string[]; clientIp: ClientIpPolicy }) {
  const fixed = options.baseUrl ? originOf(options.baseUrl) : null;
  const appOrigin = options.appUrl ? originOf(options.appUrl) : null;
  const extra = appOrigin ? [appOrigin] : [];
  const policyFor = (origin: string): RedirectPolicy => {
    const trustedOrigins = [origin, ...extra, ...options.trustedOrigins];
    return { appOrigin: appOrigin ?? origin, selfOrigin: origin, trusted: trustedOrigins };
  };
  // With a configured base URL these never change: computed once, not on every request.
  const fixedBaseUrl = options.baseUrl?.replace(/\/+$/, "");
  const fixedPolicy = fixed ? policyFor(fixed) : undefined;
  return (req: Request, _res: Response, next: NextFunction) => {
    const origin = fixed ?? `${req.protocol}://${req.get("host") ?? "localhost"}`;
    const redirects = fixedPolicy ?? policyFor(originOf(origin) ?? origin);
    req.facts = {
      baseUrl: fixedBaseUrl ?? `${origin}${options.basePath}`,
      trustedOrigins: redirects.trusted,
      redirects,
      ipAddress: clientIp(req.headers, req.socket.remoteAddress, options.clientIp),
      userAgent: req.headers["user-agent"]?.slice(0, 512),
      language: negotiateLanguage(req.headers["accept-language"]),
    };
    next();
  };
}

/**
 * A provider's form POST back is cross-site by design: /callback/:id (Apple's form_post) and a SAML IdP's
 * post to /sso/saml2/sp/acs/:providerId. Both are redirected to a GET that carries the state cookie, which
 * binds the single-use state to the browser (routes/social.ts, routes/sso-sign-in.ts); they alone are
 * exempt from the origin check.
 */
const PROVIDER_CALLBACK = /^\/(callback|sso\/saml2\/sp\/acs)\/[^/]+\/?$/;
const isProviderCallback = (req: Request) => req.method === "POST" && PROVIDER_CALLBACK.test(req.path);

/**
 * CSRF defence on state-changing requests that carry cookies: the Origin (or Referer) must be trusted.
 * A request with neither header is not from a browser page (browsers send Origin on every cross-site
 * POST) and carries no CSRF risk, so API clients such as curl with a cookie jar still work.
 */
export function originCheck(req: Request, _res: Response, next: NextFunction): void {
  if (req.method !== "GET" && req.method !== "HEAD" && req.method !== "OPTIONS" && req.headers.cookie && !isProviderCallback(req)) {
    const origin = req.headers.origin ?? req.headers.referer;
    if (origin !== undefined) {
      const value = origin === "null" ? null : originOf(origin);
      if (!isTrustedOrigin(value, req.facts.trustedOrigins)) {
        next(new AuthError("INVALID_ORIGIN"));
        return;
      }
    }
  }
  req.callbacks = {
    body: resolveCallbacks(req.body as Record<string, unknown> | undefined, req.facts.redirects),
    query: resolveCallbacks(queryOf(req), req.facts.redirects),
  };
  next();
}
