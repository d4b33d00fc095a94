/**
 * /two-factor/*: enrolment for the signed-in user (enable, disable, get-totp-uri, generate-backup-codes), the
 * second step of a challenged sign-in (send-otp, verify-totp, verify-otp, verify-backup-code) and the user's
 * trusted devices (our own list and revoke routes: no better-auth client has them). Rate limited 3 per 10 s.
 */
import { type Request, type Response, Router } from "express";
import * as z from "zod";
import type { TrustedDeviceToken, TwoFactorChallenge } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import { AuthError } from "@auth-platform/proto/errors";
import { authEvents, failureOutcome, type TwoFactorMethod } from "@auth-platform/runtime/metrics";
import { call } from "@auth-platform/runtime/rpc";
import { parseBody } from "../http/body.js";
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
  if (outcome.trustedDevice) setTrustDeviceCookie(res, deps.jar, deps.secret, outcome.trustedDevice.token, outcome.trustedDevice.expiresAt);
  if (!outcome.twoFactor) return undefined;
  setTwoFactorCookie(res, deps.jar, deps.secret, outcome.twoFactor.token, outcome.twoFactor.expiresAt, outcome.twoFactor.userId);
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

export function twoFactorRoutes(deps: RouteDeps): Router {
  const router = Router();
  const identity = deps.clients.identity;

  router.post("/two-factor/enable", async (req, res) => {
    const { user } = await deps.sessions.require(req);
    const body = parseBody(req, enableBody);
    const { totpUri, backupCodes } = await call(identity, identity.enableTwoFactor, { userId: user.id, password: body.password, issuer: body.issuer ?? undefined });
    res.json(enableTwoFactorResponse(totpUri, backupCodes));
  });

  router.post("/two-factor/disable", async (req, res) => {
    const { user } = await deps.sessions.require(req);
    const body = parseBody(req, passwordBody);
    await call(identity, identity.disableTwoFactor, { userId: user.id, password: body.password });
    clearTrustDeviceCookie(res, deps.jar);
    res.json(statusResponse());
  });

  router.post("/two-factor/get-totp-uri", async (req, res) => {
    const { user } = await deps.sessions.require(req);
    const body = parseBody(req, passwordBody);
    const { totpUri } = await call(identity, identity.getTotpUri, { userId: user.id, password: body.password });
    res.json(totpUriResponse(totpUri));
  });

  router.post("/two-factor/generate-backup-codes", async (req, res) => {
    const { user } = await deps.sessions.require(req);
    const body = parseBody(req, passwordBody);
    const { backupCodes } = await call(identity, identity.generateBackupCodes, { userId: user.id, password: body.password });
    res.json(backupCodesResponse(backupCodes));
  });

  router.post("/two-factor/send-otp", async (req, res) => {
    parseBody(req, sendOtpBody);
    const challenge = twoFactorCookie(req, deps.jar, deps.secret);
    if (!challenge) throw new AuthError("INVALID_TWO_FACTOR_COOKIE");
    await call(identity, identity.sendTwoFactorOtp, { challenge: challenge.token });
    res.json(statusResponse());
  });

  const verify = (path: string, rpc: typeof identity.verifyTotp, method: TwoFactorMethod) =>
    router.post(path, async (req, res) => {
      const body = parseBody(req, verifyBody);
      const current = await deps.sessions.current(req);
      if (current) {
        // A signed-in user checking a code (the first TOTP code activates two-factor): no new session.
        const { user } = await call(identity, rpc, { code: body.code, userId: current.user.id, trustDevice: false, client: clientOf(req) }).catch((error: unknown) => {
          if (failureOutcome(error) === "failure") deps.events.twoFactorFailed(req, current.user.id, { method, error: errorCodeOf(error) }, current);
          throw error;
        });
        res.json(twoFactorVerifiedResponse(current.session.token, publicUser(user!)));
        return;
      }
      const challenge = twoFactorCookie(req, deps.jar, deps.secret);
      if (!challenge) throw new AuthError("INVALID_TWO_FACTOR_COOKIE");
      const { user, session, trustedDevice, rememberMe } = await call(identity, rpc, {
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
      if (trustedDevice) setTrustDeviceCookie(res, deps.jar, deps.secret, trustedDevice.token, trustedDevice.expiresAt);
      res.json(twoFactorVerifiedResponse(session!.token, publicUser(user!)));
    });
  verify("/two-factor/verify-totp", identity.verifyTotp, "totp");
  verify("/two-factor/verify-otp", identity.verifyTwoFactorOtp, "otp");
  verify("/two-factor/verify-backup-code", identity.verifyBackupCode, "backup_code");

  router.get("/two-factor/list-trusted-devices", async (req, res) => {
    const { user } = await deps.sessions.require(req);
    const { devices } = await call(identity, identity.listTrustedDevices, { userId: user.id });
    res.json(trustedDevicesResponse(devices.map(publicTrustedDevice)));
  });

  router.post("/two-factor/revoke-trusted-device", async (req, res) => {
    const { user } = await deps.sessions.require(req);
    const body = parseBody(req, revokeBody);
    await call(identity, identity.revokeTrustedDevice, { userId: user.id, id: body.id });
    res.json(statusResponse());
  });
  return router;
}
