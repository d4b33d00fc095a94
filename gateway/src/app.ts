/**
 * createApp(deps): the express app with every route under the base path, and the server's request listener:
 * a warm get-session answered in front of the app (http/warm-session.ts), everything else by the app. No
 * listen (tests use the app too).
 */
import type { RequestListener } from "node:http";
import express, { type NextFunction, type Request, type Response } from "express";
import { AuthError } from "@auth-platform/proto/errors";
import type { KeyValue } from "@auth-platform/runtime/key-value";
import type { Logger } from "@auth-platform/runtime/log";
import type { Clients } from "./clients.js";
import type { GatewayConfig } from "./config.js";
import { clientIp, clientIpPolicy, rateLimitKeyOf } from "./http/client-ip.js";
import { capacityGate } from "./http/capacity-gate.js";
import { cookieJar } from "./http/cookies.js";
import { cors } from "./http/cors.js";
import { originCheck, requestFacts, requestId } from "./http/context.js";
import { refuseMalformedInput } from "./http/body.js";
import { mountRoutes, type Route, type RouteSpec } from "./http/define-route.js";
import { errorHandler } from "./http/errors.js";
import { observeRequests } from "./http/observe.js";
import { type RateLimitCounters, rateLimit, rateLimitCheck } from "./http/rate-limit.js";
import { securityEventReporter, type SecurityEventReporter } from "./http/security-events.js";
import { apiHeaders, securityHeaders } from "./http/security-headers.js";
import { sessionResolver } from "./http/session.js";
import type { SessionMemory } from "./http/session-memory.js";
import { warmGetSession } from "./http/warm-session.js";
import type { RouteDeps } from "./routes/deps.js";
import { accountRoutes } from "./routes/account.js";
import { adminInputRefusals, adminRoutes } from "./routes/admin.js";
import { currentClientRoutes } from "./routes/current-client.js";
import { devMailboxRoutes } from "./routes/dev-mailbox.js";
import { metaRoutes } from "./routes/meta.js";
import { organizationRoutes } from "./routes/organization.js";
import { teamRoutes } from "./routes/teams.js";
import { organizationRoleRoutes } from "./routes/organization-roles.js";
import { ssoRoutes } from "./routes/sso.js";
import { ssoSignInRoutes } from "./routes/sso-sign-in.js";
import { passwordResetRoutes } from "./routes/password-reset.js";
import { providerAccountRoutes } from "./routes/provider-accounts.js";
import { jwtRoutes } from "./routes/jwt.js";
import { sessionRoutes } from "./routes/sessions.js";
import { signInRoutes } from "./routes/sign-in.js";
import { signUpRoutes } from "./routes/sign-up.js";
import { socialRoutes } from "./routes/social.js";
import { mailSignInRoutes } from "./routes/mail-sign-in.js";
import { domainRoutes } from "./routes/domains.js";
import { SCIM_MEDIA_TYPE, scimRoutes } from "./routes/scim.js";
import { verificationRoutes } from "./routes/verification.js";
import { twoFactorRoutes } from "./routes/two-factor.js";
import { passkeyRoutes } from "./routes/passkeys.js";
import { apiKeyRoutes } from "./routes/api-keys.js";
import { openApiRoutes } from "./routes/openapi.js";

export interface AppDeps {
  config: GatewayConfig;
  clients: Clients;
  /** Rate-limit counters (Redis, the database or memory: RATE_LIMIT_STORAGE). */
  counters: RateLimitCounters;
  /** The session cache shared with the session service (only when it is Redis). */
  sharedSessionCache?: KeyValue;
  /** The gateway's own session copies, kept by the session service's pushes (start.ts: @auth-platform/node's watcher). */
  sessionMemory?: SessionMemory;
  log: Logger;
  /** The security event reporter (main.ts keeps it to flush on stop); made here when not given. */
  events?: SecurityEventReporter;
}

/** The routes an app serves, as declared (the registry its OpenAPI document is built from). */
export function declaredRoutes(app: express.Express): readonly RouteSpec[] {
  return (app.locals.routes as Route[]).map((route) => route.spec);
}

export function createApp(deps: AppDeps): { app: express.Express; listener: RequestListener } {
  const { config, log } = deps;
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);

  const jar = cookieJar(config.cookiePrefix, config.baseUrl?.startsWith("https:") ?? false);
  const events = deps.events ?? securityEventReporter(deps.clients.admin, log);
  const routeDeps: RouteDeps = {
    clients: deps.clients,
    jar,
    secret: config.secret,
    appUrl: config.appUrl,
    log,
    events,
    sessionJwtHeader: config.sessionJwtHeader,
    sessions: sessionResolver({
      clients: deps.clients,
      jar,
      secret: config.secret,
      importedCookieSecret: config.importedCookieSecret,
      sharedCache: deps.sharedSessionCache,
      memory: deps.sessionMemory,
      log,
      // Someone wrote to Redis without AUTH_SECRET (docs/configuration.md, "Redis"): the audit log shows when and from which request.
      onRefusedEntry: (req, reason) =>
        events.report({
          action: "session-cache.entry-refused",
          outcome: "failure",
          ipAddress: req.facts.ipAddress || undefined,
          userAgent: req.facts.userAgent || undefined,
          details: { reason },
        }),
    }),
  };

  // Every declared route, in mounting order: the OpenAPI document (GET /openapi.json) is built from this list.
  const routes: Route[] = [];
  app.locals.routes = routes;
  const mount = (declared: Route[]) => routes.push(...declared);
  mount(metaRoutes(config.appUrl));
  mount(signUpRoutes(routeDeps));
  mount(signInRoutes(routeDeps));
  mount(sessionRoutes(routeDeps));
  mount(jwtRoutes(routeDeps));
  mount(verificationRoutes(routeDeps));
  mount(passwordResetRoutes(routeDeps));
  mount(accountRoutes(routeDeps));
  mount(providerAccountRoutes(routeDeps));
  mount(currentClientRoutes(routeDeps));
  mount(twoFactorRoutes(routeDeps));
  mount(passkeyRoutes(routeDeps));
  mount(apiKeyRoutes(routeDeps));
  mount(organizationRoutes(routeDeps));
  mount(teamRoutes(routeDeps));
  mount(organizationRoleRoutes(routeDeps));
  mount(adminRoutes(routeDeps));
  mount(socialRoutes(routeDeps));
  mount(mailSignInRoutes(routeDeps));
  mount(ssoRoutes(routeDeps));
  mount(ssoSignInRoutes(routeDeps));
  mount(domainRoutes(routeDeps));
  mount(scimRoutes(routeDeps));
  if (config.devMailbox) mount(devMailboxRoutes(deps.clients.notification));
  mount(openApiRoutes({ routes, devMailbox: Boolean(config.devMailbox), sessionCookieName: jar.sessionName }));

  const api = express.Router();
  const ipPolicy = clientIpPolicy(config.trustedProxies, config.clientIpHeaders);
  const rateKeyOf = (ip: string | undefined) => (ip ? rateLimitKeyOf(ip) : undefined);
  api.use(observeRequests);
  api.use(requestId);
  api.use(securityHeaders(config.baseUrl));
  api.use(requestFacts({ ...config, clientIp: ipPolicy }));
  api.use(cors);
  if (config.rateLimit.enabled) api.use(rateLimit(config.rateLimit, deps.counters, (req) => rateKeyOf(req.facts.ipAddress), log));
  // Before any body is read: beyond capacity, a sign-in is held and refused here for a fraction of the CPU.
  api.use(capacityGate(routes));
  // SCIM bodies go to the sso service as received (JSON or SCIM's media type): it parses them and answers SCIM errors.
  api.use("/scim/v2", express.text({ type: ["application/json", SCIM_MEDIA_TYPE], limit: config.bodyLimit }));
  api.use(express.json({ limit: config.bodyLimit, strict: true }));
  api.use(refuseMalformedInput);
  api.use(originCheck);
  api.use(mountRoutes(routes, routeDeps.sessions));
  api.use((_req: Request, _res: Response, next: NextFunction) => next(new AuthError("NOT_FOUND")));
  api.use(adminInputRefusals(routeDeps));
  api.use(errorHandler(log));

  app.use(config.basePath, api);
  if (!deps.sessionMemory) return { app, listener: app };
  const listener = warmGetSession(
    {
      basePath: config.basePath,
      sessions: routeDeps.sessions,
      apiHeaders: apiHeaders(config.baseUrl),
      rateLimit: config.rateLimit.enabled
        ? { check: rateLimitCheck(config.rateLimit, deps.counters, log), clientKeyOf: (req) => rateKeyOf(clientIp(req.headers, req.socket.remoteAddress, ipPolicy)) }
        : undefined,
      sessionJwtHeader: config.sessionJwtHeader,
    },
    app,
  );
  return { app, listener };
}
