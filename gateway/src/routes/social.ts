/**
 * Social sign-in: POST /sign-in/social (the provider's URL, or a direct sign-in with an id token),
 * GET and POST /callback/:id (the provider sends the browser back; Apple posts a form), POST /link-social, and
 * the generic OAuth client's names for them: POST /sign-in/oauth2, GET /oauth2/callback/:providerId, POST /oauth2/link.
 * The oauth service keeps the state and talks to the provider; the gateway checks the callback URLs once
 * (callback-url.ts), binds the state to the browser with a cookie, and answers every callback outcome as a
 * redirect: the callback URL on success, the error URL (default: the error page) with `?error=` otherwise.
 */
import express, { type Request, type Response } from "express";
import * as z from "zod";
import type { CompleteSignInResponse } from "@auth-platform/proto/gen/auth/oauth/v1/oauth";
import { authEvents, countedSignIn, failureOutcome } from "@auth-platform/runtime/metrics";
import { call } from "@auth-platform/runtime/rpc";
import { callerOf } from "../http/caller.js";
import { defineRoute, type Route } from "../http/define-route.js";
import { socialRedirectSchema, socialSignInSchema } from "../http/public-schemas.js";
import { CallbackUrl } from "../http/callback-url.js";
import { clearStateCookie, hasStateCookie, setStateCookie } from "../http/cookies.js";
import { publicUser } from "../http/public-shapes.js";
import { redirectTo } from "../http/redirect.js";
import { errorCodeOf } from "../http/security-events.js";
import { clientOf, issueSession, type RouteDeps } from "./deps.js";
import { socialProvidersResponse, socialRedirectResponse, socialTokenResponse } from "./responses.js";
import { answeredWithChallenge, redirectSignedIn, trustedDeviceOf } from "./two-factor.js";

const provider = z.string().min(1).max(64);
const scopes = z.array(z.string().min(1).max(255)).max(50).optional();

export const signInSocialBody = z.object({
  provider,
  callbackURL: z.string().nullish(),
  newUserCallbackURL: z.string().nullish(),
  errorCallbackURL: z.string().nullish(),
  disableRedirect: z.boolean().nullish(),
  requestSignUp: z.boolean().nullish(),
  loginHint: z.string().max(255).nullish(),
  scopes,
  idToken: z
    .object({
      token: z.string().min(1).max(16_384),
      nonce: z.string().max(1024).nullish(),
      accessToken: z.string().max(16_384).nullish(),
      refreshToken: z.string().max(16_384).nullish(),
      expiresAt: z.number().int().nonnegative().nullish(),
      // The name the app got beside the token (Apple's first authorization only); the email here is not used.
      user: z
        .object({
          name: z.object({ firstName: z.string().max(255).nullish(), lastName: z.string().max(255).nullish() }).nullish(),
          email: z.string().max(255).nullish(),
        })
        .nullish(),
    })
    .nullish(),
});

export const linkSocialBody = z.object({
  provider,
  callbackURL: z.string().nullish(),
  errorCallbackURL: z.string().nullish(),
  disableRedirect: z.boolean().nullish(),
  scopes,
});

/** POST /sign-in/oauth2: /sign-in/social as the generic OAuth plugin's client sends it, the provider named `providerId` (docs/http-api/social.md). */
export const signInOAuth2Body = signInSocialBody.omit({ provider: true, idToken: true }).extend({ providerId: provider });

/** POST /oauth2/link: /link-social of the generic OAuth plugin's client. */
export const linkOAuth2Body = linkSocialBody.omit({ provider: true }).extend({ providerId: provider });

// What a provider sends back, in the query (GET) or a form (Apple's POST).
export const callbackFields = z.looseObject({
  code: z.string().max(4096).optional(),
  state: z.string().max(256).optional(),
  error: z.string().max(256).optional(),
  error_description: z.string().max(2048).optional(),
  user: z.string().max(4096).optional(),
  iss: z.string().max(2048).optional(),
});

/**
 * Counts a callback as a social sign-in (and a registration) by its outcome. A callback that linked an
 * account is no sign-in; a failed one cannot tell a link from a sign-in and counts as a failed sign-in.
 */
function countCallback(outcome: CompleteSignInResponse): void {
  if (outcome.error) {
    authEvents.signIn("social", outcome.error === "internal_server_error" ? "error" : "failure");
    return;
  }
  if (outcome.twoFactor) {
    authEvents.signIn("social", "two_factor_required");
    return;
  }
  if (!outcome.session) return;
  authEvents.signIn("social", "success");
  if (outcome.isNewUser) authEvents.signUp("social", "success");
}

export function socialRoutes(deps: RouteDeps): Route[] {
  const routes: Route[] = [];
  const oauth = deps.clients.oauth;

  /** Where a failure goes: the state's error URL, else the error page (the app's when AUTH_APP_URL is set). */
  const errorTarget = (req: Request, errorUrl: string | undefined): CallbackUrl => {
    const fallback = deps.appUrl ? "/error" : `${req.facts.baseUrl}/error`;
    return (errorUrl && CallbackUrl.resolve(errorUrl, req.facts.redirects)) || CallbackUrl.resolve(fallback, req.facts.redirects)!;
  };
  const home = (req: Request) => CallbackUrl.resolve("/", req.facts.redirects)!;

  /**
   * The first leg of every provider sign-in and link (/sign-in/social, /sign-in/oauth2, /link-social,
   * /oauth2/link): the callback URLs as the origin check resolved them, the state bound to this browser by
   * its cookie, and the provider's URL. With `linkFor`, the callback links to that signed-in user.
   */
  const startAtProvider = async (
    req: Request,
    res: Response,
    body: { providerId: string; disableRedirect?: boolean | null; scopes?: string[]; loginHint?: string | null },
    linkFor?: ReturnType<typeof callerOf>,
  ) => {
    const callbacks = req.callbacks.body;
    const { url, state } = await call(oauth, oauth.startSignIn, {
      providerId: body.providerId,
      callbackUrl: (callbacks.callbackURL ?? home(req)).href,
      errorCallbackUrl: callbacks.errorCallbackURL?.href,
      // A link goes back to callbackURL, registered user or not.
      newUserCallbackUrl: linkFor ? undefined : callbacks.newUserCallbackURL?.href,
      linkFor,
      scopes: body.scopes ?? [],
      loginHint: body.loginHint ?? undefined,
    });
    setStateCookie(res, deps.jar, deps.secret, state);
    return socialRedirectResponse(url, !body.disableRedirect);
  };

  routes.push(
    defineRoute(
      {
        method: "get",
        path: "/social-providers",
        tag: "Social sign-in",
        summary: "The configured social providers (ours: the sign-in page shows only these)",
        response: z.object({ providers: z.array(z.string()), names: z.record(z.string(), z.string()) }).strict(),
      },
      async ({ json }) => {
        const { providerIds, displayNames } = await call(oauth, oauth.listProviders, {});
        json(socialProvidersResponse(providerIds, displayNames));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/sign-in/social",
        tag: "Social sign-in",
        summary: "Start a social sign-in (or sign in with a provider's id token)",
        body: signInSocialBody,
        response: socialSignInSchema,
        errors: [
          "PROVIDER_NOT_FOUND",
          "INVALID_OAUTH_CONFIGURATION",
          "INVALID_CALLBACKURL",
          "INVALID_ERRORCALLBACKURL",
          "INVALID_NEWUSERCALLBACKURL",
          "ID_TOKEN_NOT_SUPPORTED",
          "INVALID_TOKEN",
          "USER_EMAIL_NOT_FOUND",
          "ACCOUNT_NOT_LINKED",
          "BANNED_USER",
        ],
      },
      async ({ req, res, body, json }) => {
        const idToken = body.idToken;
        if (idToken) {
          const request = {
            providerId: body.provider,
            idToken: idToken.token,
            nonce: idToken.nonce ?? undefined,
            accessToken: idToken.accessToken ?? undefined,
            refreshToken: idToken.refreshToken ?? undefined,
            expiresAt: idToken.expiresAt != null ? String(idToken.expiresAt) : undefined,
            client: clientOf(req),
            trustedDevice: trustedDeviceOf(req, deps),
            userFirstName: idToken.user?.name?.firstName ?? undefined,
            userLastName: idToken.user?.name?.lastName ?? undefined,
          };
          const outcome = await countedSignIn(
            "social",
            () =>
              call(oauth, oauth.signInWithIdToken, request).catch((error: unknown) => {
                if (failureOutcome(error) === "failure") deps.events.socialSignInFailed(req, { provider: body.provider, error: errorCodeOf(error) });
                throw error;
              }),
            (answer) => (answer.twoFactor ? "two_factor_required" : "success"),
          );
          if (outcome.isNewUser) authEvents.signUp("social", "success");
          if (answeredWithChallenge(req, res, deps, outcome)) return;
          issueSession(res, deps, outcome.session!, true);
          return json(socialTokenResponse(outcome.session!.token, publicUser(outcome.user!), req.callbacks.body.callbackURL?.toString()));
        }
        json(await startAtProvider(req, res, { ...body, providerId: body.provider }));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/sign-in/oauth2",
        tag: "Social sign-in",
        summary: "Start a sign-in with a provider (the generic OAuth client's name for /sign-in/social)",
        body: signInOAuth2Body,
        response: socialRedirectSchema,
        errors: ["PROVIDER_NOT_FOUND", "INVALID_OAUTH_CONFIGURATION", "INVALID_CALLBACKURL", "INVALID_ERRORCALLBACKURL", "INVALID_NEWUSERCALLBACKURL"],
      },
      async ({ req, res, body, json }) => json(await startAtProvider(req, res, body)),
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/link-social",
        tag: "Social sign-in",
        summary: "Start linking a provider account",
        session: "required",
        body: linkSocialBody,
        response: socialRedirectSchema,
        errors: ["PROVIDER_NOT_FOUND", "INVALID_OAUTH_CONFIGURATION", "SOCIAL_ACCOUNT_ALREADY_LINKED", "INVALID_CALLBACKURL", "INVALID_ERRORCALLBACKURL"],
      },
      async ({ req, res, body, session, json }) => json(await startAtProvider(req, res, { ...body, providerId: body.provider }, callerOf(req, session))),
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/oauth2/link",
        tag: "Social sign-in",
        summary: "Start linking a provider account (the generic OAuth client's name for /link-social)",
        session: "required",
        body: linkOAuth2Body,
        response: socialRedirectSchema,
        errors: ["PROVIDER_NOT_FOUND", "INVALID_OAUTH_CONFIGURATION", "SOCIAL_ACCOUNT_ALREADY_LINKED", "INVALID_CALLBACKURL", "INVALID_ERRORCALLBACKURL"],
      },
      async ({ req, res, body, session, json }) => json(await startAtProvider(req, res, body, callerOf(req, session))),
    ),
  );

  const handleCallback = async (req: Request, res: Response, providerId: string, fields: z.output<typeof callbackFields>) => {
    // The state must be the one this browser was given (login CSRF); the state stays unused otherwise.
    if (fields.state && !hasStateCookie(req, deps.jar, deps.secret, fields.state)) {
      deps.events.socialSignInFailed(req, { provider: providerId, error: "please_restart_the_process" });
      return redirectTo(res, errorTarget(req, undefined), { error: "please_restart_the_process" });
    }
    const outcome = await call(oauth, oauth.completeSignIn, {
      providerId,
      code: fields.code,
      state: fields.state,
      error: fields.error,
      errorDescription: fields.error_description,
      client: clientOf(req),
      userJson: fields.user,
      iss: fields.iss,
      trustedDevice: trustedDeviceOf(req, deps),
    });
    countCallback(outcome);
    if (fields.state) clearStateCookie(res, deps.jar);
    if (outcome.error) {
      // A failed link is the signed-in user's; a failed sign-in has no actor yet.
      deps.events.socialSignInFailed(req, { provider: providerId, error: outcome.error }, await deps.sessions.current(req, { disableRefresh: true }).catch(() => null));
      const params: Record<string, string> = { error: outcome.error };
      if (outcome.errorDescription) params.error_description = outcome.errorDescription;
      return redirectTo(res, errorTarget(req, outcome.errorUrl), params);
    }
    const target = (outcome.redirectUrl ? CallbackUrl.resolve(outcome.redirectUrl, req.facts.redirects) : null) ?? home(req);
    redirectSignedIn(req, res, deps, outcome, target);
  };

  routes.push(
    defineRoute(
      {
        method: "get",
        path: "/callback/:id",
        tag: "Social sign-in",
        summary: "The provider's redirect back (every outcome is a redirect)",
        queryCheckedByRoute: callbackFields,
        redirect: true,
      },
      async ({ req, res }) => {
        const result = callbackFields.safeParse(req.query);
        if (!result.success) return redirectTo(res, errorTarget(req, undefined), { error: "invalid_callback_request" });
        await handleCallback(req, res, String(req.params.id ?? ""), result.data);
      },
    ),
  );

  // Generic providers come back here (the redirect URI registered with them, as better-auth's generic OAuth
  // plugin registers it); the same callback as /callback/:id.
  routes.push(
    defineRoute(
      {
        method: "get",
        path: "/oauth2/callback/:providerId",
        tag: "Social sign-in",
        summary: "A generic provider's redirect back (every outcome is a redirect)",
        queryCheckedByRoute: callbackFields,
        redirect: true,
      },
      async ({ req, res }) => {
        const result = callbackFields.safeParse(req.query);
        if (!result.success) return redirectTo(res, errorTarget(req, undefined), { error: "invalid_callback_request" });
        await handleCallback(req, res, String(req.params.providerId ?? ""), result.data);
      },
    ),
  );

  // Apple answers with a cross-site form POST (response_mode=form_post): no SameSite=Lax cookie comes with
  // it, so the fields are moved to the query of a GET on the same path, which the browser sends with its
  // cookies. The state is the CSRF protection of this route (app.ts exempts it from the origin check).
  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/callback/:id",
        tag: "Social sign-in",
        summary: "A provider's form POST back (Apple): redirected to the GET",
        redirect: true,
        before: [express.urlencoded({ extended: false, limit: "16kb" })],
      },
      async ({ req, res }) => {
        const result = callbackFields.safeParse(req.body ?? {});
        if (!result.success) return redirectTo(res, errorTarget(req, undefined), { error: "invalid_callback_request" });
        const target = new URL(`${req.facts.baseUrl}/callback/${encodeURIComponent(String(req.params.id ?? ""))}`);
        for (const [name, value] of Object.entries(result.data)) if (typeof value === "string") target.searchParams.set(name, value);
        res.redirect(302, target.href);
      },
    ),
  );
  return routes;
}
