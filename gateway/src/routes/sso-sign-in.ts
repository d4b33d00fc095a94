/**
 * Single sign-on (docs/http-api/sso.md#sign-in): POST /sign-in/sso answers the organization's provider URL
 * and binds the state (the RelayState for SAML) to this browser with the state cookie, as social sign-in
 * does. GET /sso/callback/:providerId (OpenID) and GET /sso/saml2/callback/:providerId (after a SAML IdP's
 * POST to the ACS) hand the provider's answer to the sso service and answer every outcome with a redirect:
 * the callback URL (the new-user one for a registration) on success, the error URL with `?error=`.
 */
import express, { type Request, type Response } from "express";
import * as z from "zod";
import { authEvents } from "@auth-platform/runtime/metrics";
import { call } from "@auth-platform/runtime/rpc";
import { CallbackUrl } from "../http/callback-url.js";
import { clearStateCookie, hasStateCookie, setStateCookie, stateFromCookie } from "../http/cookies.js";
import { defineRoute, type Route } from "../http/define-route.js";
import { socialRedirectSchema } from "../http/public-schemas.js";
import { redirectTo } from "../http/redirect.js";
import type { CompleteSignInResponse } from "@auth-platform/proto/gen/auth/sso/v1/sso";
import { clientOf, issueSession, type RouteDeps } from "./deps.js";
import { socialRedirectResponse } from "./responses.js";
import { callbackFields } from "./social.js";
import { redirectToChallenge, setChallengeCookies, trustedDeviceOf } from "./two-factor.js";

export const signInSsoBody = z.object({
  email: z.string().min(3).max(254).optional(),
  organizationSlug: z.string().min(1).max(64).optional(),
  providerId: z.string().min(1).max(64).optional(),
  domain: z.string().min(1).max(253).optional(),
  callbackURL: z.string(),
  errorCallbackURL: z.string().optional(),
  newUserCallbackURL: z.string().optional(),
  // Sent by the client; the provider's own settings decide the scopes and parameters.
  scopes: z.array(z.string().min(1).max(255)).max(50).optional(),
  loginHint: z.string().max(255).optional(),
  additionalParams: z.record(z.string(), z.string()).optional(),
  requestSignUp: z.boolean().optional(),
  providerType: z.enum(["oidc", "saml"]).optional(),
});

/** A SAML IdP's form POST (HTTP-POST binding); the sso service checks the response itself. */
const samlPostFields = z.looseObject({
  SAMLResponse: z.string().min(1).max(400_000),
  RelayState: z.string().max(1024).optional(),
});

const samlCallbackFields = z.looseObject({ handoff: z.string().min(1).max(128) });

export function ssoSignInRoutes(deps: RouteDeps): Route[] {
  const sso = deps.clients.sso;
  const errorTarget = (req: Request, errorUrl: string | undefined): CallbackUrl => {
    const fallback = deps.appUrl ? "/error" : `${req.facts.baseUrl}/error`;
    return (errorUrl && CallbackUrl.resolve(errorUrl, req.facts.redirects)) || CallbackUrl.resolve(fallback, req.facts.redirects)!;
  };
  const home = (req: Request) => CallbackUrl.resolve("/", req.facts.redirects)!;

  const handleCallback = async (req: Request, res: Response, providerId: string, fields: z.output<typeof callbackFields>) => {
    // The state must be the one this browser was given (login CSRF); the state stays unused otherwise.
    if (fields.state && !hasStateCookie(req, deps.jar, deps.secret, fields.state)) {
      deps.events.ssoSignInFailed(req, { provider: providerId, error: "please_restart_the_process" });
      return redirectTo(res, errorTarget(req, undefined), { error: "please_restart_the_process" });
    }
    const outcome = await call(sso, sso.completeSignIn, {
      providerId,
      code: fields.code,
      state: fields.state,
      error: fields.error,
      errorDescription: fields.error_description,
      client: clientOf(req),
      trustedDevice: trustedDeviceOf(req, deps),
    });
    if (fields.state) clearStateCookie(res, deps.jar);
    await finish(req, res, providerId, outcome);
  };

  /** Every sign-in outcome as a redirect: signed in (or to the second factor), or to the error URL. */
  const finish = async (req: Request, res: Response, providerId: string, outcome: CompleteSignInResponse) => {
    if (outcome.error) {
      deps.events.ssoSignInFailed(req, { provider: providerId, error: outcome.error });
      authEvents.signIn("sso", outcome.error === "internal_server_error" ? "error" : "failure");
      const params: Record<string, string> = { error: outcome.error };
      if (outcome.errorDescription) params.error_description = outcome.errorDescription;
      return redirectTo(res, errorTarget(req, outcome.errorUrl), params);
    }
    authEvents.signIn("sso", outcome.twoFactor ? "two_factor_required" : "success");
    if (outcome.isNewUser) authEvents.signUp("sso", "success");
    const target = (outcome.redirectUrl ? CallbackUrl.resolve(outcome.redirectUrl, req.facts.redirects) : null) ?? home(req);
    const challenge = setChallengeCookies(req, res, deps, outcome);
    if (challenge) return redirectToChallenge(req, res, deps, challenge.methods, target);
    if (outcome.session) issueSession(res, deps, outcome.session, true);
    redirectTo(res, target);
  };

  return [
    defineRoute(
      {
        method: "post",
        path: "/sign-in/sso",
        tag: "Single sign-on",
        summary: "Start a single sign-on with an organization's provider (by id, or by a verified email domain)",
        body: signInSsoBody,
        response: socialRedirectSchema,
        errors: [
          "PROVIDER_NOT_FOUND",
          "PROVIDER_DOMAIN_HAS_NOT_BEEN_VERIFIED",
          "INVALID_OIDC_CONFIGURATION",
          "INVALID_SAML_METADATA",
          "INVALID_CALLBACKURL",
          "INVALID_ERRORCALLBACKURL",
          "INVALID_NEWUSERCALLBACKURL",
        ],
      },
      async ({ req, res, body, json }) => {
        const callbacks = req.callbacks.body;
        const { url, state } = await call(sso, sso.startSignIn, {
          email: body.email,
          organizationSlug: body.organizationSlug,
          providerId: body.providerId,
          domain: body.domain,
          callbackUrl: (callbacks.callbackURL ?? home(req)).href,
          errorCallbackUrl: callbacks.errorCallbackURL?.href,
          newUserCallbackUrl: callbacks.newUserCallbackURL?.href,
        });
        setStateCookie(res, deps.jar, deps.secret, state);
        json(socialRedirectResponse(url, true));
      },
    ),
    defineRoute(
      {
        method: "get",
        path: "/sso/callback/:providerId",
        tag: "Single sign-on",
        summary: "An OpenID provider's redirect back (every outcome is a redirect)",
        queryCheckedByRoute: callbackFields,
        redirect: true,
      },
      async ({ req, res }) => {
        const result = callbackFields.safeParse(req.query);
        if (!result.success) return redirectTo(res, errorTarget(req, undefined), { error: "invalid_callback_request" });
        await handleCallback(req, res, String(req.params.providerId ?? ""), result.data);
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/sso/saml2/sp/acs/:providerId",
        tag: "Single sign-on",
        summary: "A SAML identity provider's POST of its response (redirected to the browser's GET)",
        redirect: true,
        before: [express.urlencoded({ extended: false, limit: "400kb" })],
      },
      async ({ req, res }) => {
        const providerId = String(req.params.providerId ?? "");
        const result = samlPostFields.safeParse(req.body ?? {});
        if (!result.success) return redirectTo(res, errorTarget(req, undefined), { error: "invalid_callback_request" });
        const accepted = await call(sso, sso.acceptSamlResponse, { providerId, samlResponse: result.data.SAMLResponse, relayState: result.data.RelayState });
        if (!accepted.handoff) {
          authEvents.signIn("sso", "failure");
          deps.events.ssoSignInFailed(req, { provider: providerId, error: accepted.error ?? "invalid_saml_response" });
          return redirectTo(res, errorTarget(req, accepted.errorUrl), { error: accepted.error ?? "invalid_saml_response" });
        }
        // 303: the browser follows with a GET, which carries its SameSite=Lax state cookie.
        const next = new URL(`${req.facts.baseUrl}/sso/saml2/callback/${encodeURIComponent(providerId)}`);
        next.searchParams.set("handoff", accepted.handoff);
        res.redirect(303, next.href);
      },
    ),
    defineRoute(
      {
        method: "get",
        path: "/sso/saml2/callback/:providerId",
        tag: "Single sign-on",
        summary: "The browser's return from the ACS: the SAML sign-in completes (every outcome is a redirect)",
        queryCheckedByRoute: samlCallbackFields,
        redirect: true,
      },
      async ({ req, res }) => {
        const result = samlCallbackFields.safeParse(req.query);
        if (!result.success) return redirectTo(res, errorTarget(req, undefined), { error: "invalid_callback_request" });
        const providerId = String(req.params.providerId ?? "");
        const { outcome } = await call(sso, sso.completeSamlSignIn, {
          providerId,
          handoff: result.data.handoff,
          browserState: stateFromCookie(req, deps.jar, deps.secret) ?? undefined,
          client: clientOf(req),
          trustedDevice: trustedDeviceOf(req, deps),
        });
        clearStateCookie(res, deps.jar);
        await finish(req, res, providerId, outcome ?? { error: "internal_server_error", isNewUser: false });
      },
    ),
    defineRoute(
      {
        method: "get",
        path: "/sso/saml2/sp/metadata",
        tag: "Single sign-on",
        summary: "Our SAML service provider metadata for a provider, to give the identity provider",
        query: z.object({ providerId: z.string().min(1).max(64) }),
        xml: "application/samlmetadata+xml",
        errors: ["PROVIDER_NOT_FOUND"],
      },
      async ({ res, query }) => {
        const { xml } = await call(sso, sso.getServiceProviderMetadata, { providerId: query.providerId });
        res.type("application/samlmetadata+xml").send(xml);
      },
    ),
  ];
}
