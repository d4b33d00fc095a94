/**
 * /two-factor/*: enrolment for the signed-in user (enable, disable, get-totp-uri, generate-backup-codes), the
 * second step of a challenged sign-in (send-otp, verify-totp, verify-otp, verify-backup-code) and the user's
 * trusted devices (our own list and revoke routes: no better-auth client has them). Rate limited 3 per 10 s.
 */
import type { Request, Response } from "express";
import * as z from "zod";
import type { TrustedDeviceToken, TwoFactorChallenge } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import type { Session } from "@auth-platform/proto/gen/auth/session/v1/session";
import { AuthError } from "@auth-platform/proto/errors";
import { authEvents, failureOutcome, type TwoFactorMethod } from "@auth-platform/runtime/metrics";
import { call } from "@auth-platform/runtime/rpc";
import { callerOf } from "../http/caller.js";
import { clearSessionCookies, hasDontRemember } from "../http/cookies.js";
import { CallbackUrl } from "../http/callback-url.js";
import { defineRoute, type Route } from "../http/define-route.js";
import { redirectTo } from "../http/redirect.js";
import { backupCodesSchema, enableTwoFactorSchema, statusSchema, totpUriSchema, trustedDevicesSchema, twoFactorVerifiedSchema } from "../http/public-schemas.js";
import { publicTrustedDevice, publicUser } from "../http/public-shapes.js";
import { errorCodeOf } from "../http/security-events.js";
import { clearTrustDeviceCookie, clearTwoFactorCookie, setTrustDeviceCookie, setTwoFactorCookie, trustDeviceCookie, twoFactorCookie } from "../http/two-factor-cookies.js";
import { clientOf, issueSession, type RouteDeps } from "./deps.js";
import {
  backupCodesResponse,
  enableTwoFactorResponse,
  statusResponse,
  totpUriResponse,
  trustedDevicesResponse,
  twoFactorRedirectResponse,
  twoFactorVerifiedResponse,
} from "./responses.js";

export const passwordBody = z.object({ password: z.string().max(1024) });
// method: the current client may name it; only TOTP enrolment is served (mailed codes need no enrolment).
export const enableBody = passwordBody.extend({ issuer: z.string().max(100).nullish(), method: z.literal("totp").nullish() });
export const verifyBody = z.object({
  code: z.string().max(64),
  trustDevice: z.boolean().nullish(),
  // Current client (verify-backup-code): true keeps the caller's session cookie as it is; ours never changes it.
  disableSession: z.boolean().nullish(),
});
export const sendOtpBody = z.object({ trustDevice: z.boolean().nullish() }).nullish();
export const revokeBody = z.object({ id: z.string().min(1).max(64) });

/** The trusted-device token the request's cookie carries (signature checked), for a sign-in call. */
export const trustedDeviceOf = (req: Request, deps: RouteDeps) => trustDeviceCookie(req, deps.jar, deps.secret) ?? undefined;

/**
 * The cookies of a sign-in whose identity answer may be a challenge: the two-factor cookie when challenged
 * (the challenge is returned), else the renewed trusted-device cookie if a trusted device let it through.
 */
export function setChallengeCookies(
  req: Request,
  res: Response,
  deps: RouteDeps,
  outcome: { twoFactor?: TwoFactorChallenge; trustedDevice?: TrustedDeviceToken },
): TwoFactorChallenge | undefined {
  if (outcome.trustedDevice) setTrustDeviceCookie(res, deps.jar, deps.secret, outcome.trustedDevice);
  if (!outcome.twoFactor) return undefined;
  setTwoFactorCookie(res, deps.jar, deps.secret, outcome.twoFactor, outcome.twoFactor.userId);
  // No session until the second factor: a session cookie this browser still holds (an earlier sign-in, of
  // this user or another) goes, with its dont-remember marker, as better-auth's sign-in hook does; the
  // challenge keeps this sign-in's rememberMe.
  clearSessionCookies(res, deps.jar);
  // A trusted-device cookie that did not let this user through is of no use to this browser any more.
  if (trustedDeviceOf(req, deps)) clearTrustDeviceCookie(res, deps.jar);
  return outcome.twoFactor;
}

/**
 * Ends a sign-in route whose identity call answered a challenge: the two-factor cookie and the redirect JSON
 * (true: answered). Otherwise renews the trusted-device cookie if a trusted device let the sign-in through.
 */
export function answeredWithChallenge(req: Request, res: Response, deps: RouteDeps, outcome: { twoFactor?: TwoFactorChallenge; trustedDevice?: TrustedDeviceToken }): boolean {
  const challenge = setChallengeCookies(req, res, deps, outcome);
  if (!challenge) return false;
  res.json(twoFactorRedirectResponse(challenge.methods));
  return true;
}

/**
 * Where a challenged redirecting sign-in (a social callback, a magic link) sends the browser: the web app's
 * two-factor page, which goes on to the callback URL once the code is verified (it takes a path on its own
 * origin only). Without AUTH_APP_URL there is no such page: the callback URL itself, told with
 * twoFactorRedirect=true (no session yet).
 */
export function redirectToChallenge(req: Request, res: Response, deps: RouteDeps, methods: string[], target: CallbackUrl): void {
  const page = deps.appUrl ? CallbackUrl.resolve(`${deps.appUrl.replace(/\/+$/, "")}/two-factor`, req.facts.redirects) : null;
  if (!page) {
    redirectTo(res, target, { twoFactorRedirect: "true", twoFactorMethods: methods.join(",") });
    return;
  }
  const next = new URL(target.href);
  const after = next.origin === new URL(page.href).origin ? `${next.pathname}${next.search}${next.hash}` : next.href;
  redirectTo(res, page, { methods: methods.join(","), redirect: after });
}

/** A redirect sign-in's end: to the second factor when one is due, else the session cookie and the target. */
export function redirectSignedIn(
  req: Request,
  res: Response,
  deps: RouteDeps,
  outcome: { twoFactor?: TwoFactorChallenge; trustedDevice?: TrustedDeviceToken; session?: Session },
  target: CallbackUrl,
): void {
  const challenge = setChallengeCookies(req, res, deps, outcome);
  if (challenge) {
    redirectToChallenge(req, res, deps, challenge.methods, target);
    return;
  }
  if (outcome.session) issueSession(res, deps, outcome.session, true);
  redirectTo(res, target);
}

export function twoFactorRoutes(deps: RouteDeps): Route[] {
  const routes: Route[] = [];
  const twoFactor = deps.clients.twoFactor;

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/two-factor/enable",
        tag: "Two-factor",
        summary: "Start TOTP enrolment",
        session: "required",
        body: enableBody,
        response: enableTwoFactorSchema,
        errors: ["INVALID_PASSWORD", "CREDENTIAL_ACCOUNT_NOT_FOUND", "TOTP_IS_ALREADY_ENABLED"],
      },
      async ({ req, body, session, json }) => {
        const { totpUri, backupCodes } = await call(twoFactor, twoFactor.enableTwoFactor, {
          caller: callerOf(req, session),
          password: body.password,
          issuer: body.issuer ?? undefined,
        });
        json(enableTwoFactorResponse(totpUri, backupCodes));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/two-factor/disable",
        tag: "Two-factor",
        summary: "Turn two-factor off",
        session: "required",
        body: passwordBody,
        response: statusSchema,
        errors: ["INVALID_PASSWORD", "CREDENTIAL_ACCOUNT_NOT_FOUND", "TWO_FACTOR_ISNT_ENABLED", "YOU_CANNOT_REVOKE_SESSIONS_WHILE_IMPERSONATING"],
      },
      async ({ req, res, body, session, json }) => {
        // A change of factors: the caller continues on a new session, the old one ends (rotation).
        const rememberMe = !hasDontRemember(req, deps.jar, deps.secret);
        const { session: rotated } = await call(twoFactor, twoFactor.disableTwoFactor, { caller: callerOf(req, session), password: body.password, rotation: { rememberMe } });
        clearTrustDeviceCookie(res, deps.jar);
        if (rotated) issueSession(res, deps, rotated, rememberMe);
        json(statusResponse());
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/two-factor/get-totp-uri",
        tag: "Two-factor",
        summary: "The TOTP URI",
        session: "required",
        body: passwordBody,
        response: totpUriSchema,
        errors: ["INVALID_PASSWORD", "CREDENTIAL_ACCOUNT_NOT_FOUND", "TOTP_NOT_ENABLED"],
      },
      async ({ req, body, session, json }) => {
        const { totpUri } = await call(twoFactor, twoFactor.getTotpUri, { caller: callerOf(req, session), password: body.password });
        json(totpUriResponse(totpUri));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/two-factor/generate-backup-codes",
        tag: "Two-factor",
        summary: "New backup codes",
        session: "required",
        body: passwordBody,
        response: backupCodesSchema,
        errors: ["INVALID_PASSWORD", "CREDENTIAL_ACCOUNT_NOT_FOUND", "TWO_FACTOR_ISNT_ENABLED"],
      },
      async ({ req, body, session, json }) => {
        const { backupCodes } = await call(twoFactor, twoFactor.generateBackupCodes, { caller: callerOf(req, session), password: body.password });
        json(backupCodesResponse(backupCodes));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/two-factor/send-otp",
        tag: "Two-factor",
        summary: "Mail a one-time code for the pending sign-in",
        body: sendOtpBody,
        response: statusSchema,
        errors: ["INVALID_TWO_FACTOR_COOKIE", "TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER"],
      },
      async ({ req, json }) => {
        const challenge = twoFactorCookie(req, deps.jar, deps.secret);
        if (!challenge) throw new AuthError("INVALID_TWO_FACTOR_COOKIE");
        await call(twoFactor, twoFactor.sendTwoFactorOtp, { challenge: challenge.token, language: req.facts.language });
        json(statusResponse());
      },
    ),
  );

  const verify = (path: string, rpc: typeof twoFactor.verifyTotp, method: TwoFactorMethod) =>
    routes.push(
      defineRoute(
        {
          method: "post",
          path,
          tag: "Two-factor",
          summary: "Check a second-factor code (completes a pending sign-in)",
          body: verifyBody,
          response: twoFactorVerifiedSchema,
          errors: [
            "INVALID_TWO_FACTOR_COOKIE",
            "INVALID_TWO_FACTOR_AUTHENTICATION",
            "BANNED_USER",
            "TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER",
            "YOU_CANNOT_REVOKE_SESSIONS_WHILE_IMPERSONATING",
          ],
        },
        async ({ req, res, body, json }) => {
          const current = await deps.sessions.current(req);
          if (current) {
            // A signed-in user checking a code. The first TOTP code activates two-factor, a change of factors:
            // the caller continues on a new session (this browser's remember-me choice kept), the old one ends.
            const rememberMe = !hasDontRemember(req, deps.jar, deps.secret);
            const { user, session: rotated } = await call(twoFactor, rpc, { code: body.code, caller: callerOf(req, current), trustDevice: false, rotation: { rememberMe } }).catch(
              (error: unknown) => {
                if (failureOutcome(error) === "failure") deps.events.twoFactorFailed(req, current.user.id, { method, error: errorCodeOf(error) }, current);
                throw error;
              },
            );
            if (rotated) issueSession(res, deps, rotated, rememberMe);
            json(twoFactorVerifiedResponse((rotated ?? current.session).token, publicUser(user!)));
            return;
          }
          const challenge = twoFactorCookie(req, deps.jar, deps.secret);
          if (!challenge) throw new AuthError("INVALID_TWO_FACTOR_COOKIE");
          const { user, session, trustedDevice, rememberMe } = await call(twoFactor, rpc, {
            code: body.code,
            challenge: challenge.token,
            trustDevice: body.trustDevice ?? false,
            client: clientOf(req),
          }).then(
            (answer) => {
              authEvents.twoFactorChallenge(method, "passed");
              return answer;
            },
            (error: unknown) => {
              if (failureOutcome(error) === "failure") {
                authEvents.twoFactorChallenge(method, "failed");
                deps.events.twoFactorFailed(req, challenge.userId, { method, error: errorCodeOf(error) });
              }
              throw error;
            },
          );
          clearTwoFactorCookie(res, deps.jar);
          issueSession(res, deps, session!, rememberMe);
          if (trustedDevice) setTrustDeviceCookie(res, deps.jar, deps.secret, trustedDevice);
          json(twoFactorVerifiedResponse(session!.token, publicUser(user!)));
        },
      ),
    );
  verify("/two-factor/verify-totp", twoFactor.verifyTotp, "totp");
  verify("/two-factor/verify-otp", twoFactor.verifyTwoFactorOtp, "otp");
  verify("/two-factor/verify-backup-code", twoFactor.verifyBackupCode, "backup_code");

  routes.push(
    defineRoute(
      { method: "get", path: "/two-factor/list-trusted-devices", tag: "Two-factor", summary: "The caller's trusted devices", session: "required", response: trustedDevicesSchema },
      async ({ req, session, json }) => {
        const { devices } = await call(twoFactor, twoFactor.listTrustedDevices, { caller: callerOf(req, session) });
        json(trustedDevicesResponse(devices.map(publicTrustedDevice)));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/two-factor/revoke-trusted-device",
        tag: "Two-factor",
        summary: "Forget a trusted device",
        session: "required",
        body: revokeBody,
        response: statusSchema,
      },
      async ({ req, body, session, json }) => {
        await call(twoFactor, twoFactor.revokeTrustedDevice, { caller: callerOf(req, session), id: body.id });
        json(statusResponse());
      },
    ),
  );
  return routes;
}
