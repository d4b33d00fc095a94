/**
 * /passkey/*: better-auth 1.7's passkey plugin routes (register, sign in, list, rename, delete), and
 * /two-factor/verify-passkey, ours: a passkey answering a two-factor sign-in challenge. Each ceremony's
 * attempt token rides in an HttpOnly cookie from its options to its answer; identity keeps the challenge
 * (docs/adr/0059-passkeys.md).
 */
import type { Request, Response } from "express";
import * as z from "zod";
import { AuthError } from "@auth-platform/proto/errors";
import { authEvents, countedSignIn, failureOutcome } from "@auth-platform/runtime/metrics";
import { call } from "@auth-platform/runtime/rpc";
import { passkeySchema } from "@auth-platform/contract/shapes";
import { callerOf } from "../http/caller.js";
import { defineRoute, type Route } from "../http/define-route.js";
import {
  passkeyAuthenticationOptionsSchema,
  passkeyRegistrationOptionsSchema,
  passkeysSchema,
  sessionWithUserSchema,
  statusSchema,
  twoFactorVerifiedSchema,
  updatePasskeySchema,
} from "../http/public-schemas.js";
import { publicPasskey, publicSession, publicUser } from "../http/public-shapes.js";
import { errorCodeOf } from "../http/security-events.js";
import { clearPasskeyCookie, clearTwoFactorCookie, passkeyCookie, setPasskeyCookie, setTrustDeviceCookie, twoFactorCookie } from "../http/two-factor-cookies.js";
import { clientOf, issueSession, type RouteDeps } from "./deps.js";
import { statusResponse, twoFactorVerifiedResponse } from "./responses.js";

/** An authenticator's answer (RegistrationResponseJSON or AuthenticationResponseJSON): a few kB at most. */
const MAX_RESPONSE_CHARS = 32_768;
const authenticatorResponse = z.record(z.string(), z.unknown()).refine((value) => JSON.stringify(value).length <= MAX_RESPONSE_CHARS, "too large");

export const registerOptionsQuery = z.object({
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
  name: z.string().trim().max(255).optional(),
  // better-auth's passkey-first registration context: no passkey-first registration here, so unused.
  context: z.string().max(1024).optional(),
});
export const verifyRegistrationBody = z.object({
  response: authenticatorResponse,
  name: z.string().trim().max(255).optional(),
  // better-auth's passkey-first registration: a session is always required here, so it changes nothing.
  createSession: z.boolean().optional(),
});
export const verifyAuthenticationBody = z.object({ response: authenticatorResponse });
export const verifyTwoFactorPasskeyBody = z.object({ response: authenticatorResponse, trustDevice: z.boolean().nullish() });
export const passkeyIdBody = z.object({ id: z.string().min(1).max(64) });
/** better-auth 1.1's client POSTs its options request with an optional email, which is ignored: see below. */
export const legacyAuthenticateOptionsBody = z.object({ email: z.string().max(320).nullish() }).nullish();
export const updatePasskeyBody = z.object({ id: z.string().min(1).max(64), name: z.string().trim().min(1).max(255) });

/** The ceremony's attempt token from the request's cookie, or CHALLENGE_NOT_FOUND. */
function ceremonyToken(req: Request, deps: RouteDeps): string {
  const token = passkeyCookie(req, deps.jar, deps.secret);
  if (!token) throw new AuthError("CHALLENGE_NOT_FOUND");
  return token;
}

export function passkeyRoutes(deps: RouteDeps): Route[] {
  const passkeys = deps.clients.passkeys;
  /**
   * The caller's passkeys when signed in, the challenged user's during a two-factor sign-in (the signed
   * two-factor cookie names them), else none: the browser offers its discoverable passkeys.
   */
  const authenticateOptions = async (req: Request, res: Response): Promise<z.infer<typeof passkeyAuthenticationOptionsSchema>> => {
    const current = await deps.sessions.current(req);
    const userId = current?.user.id ?? twoFactorCookie(req, deps.jar, deps.secret)?.userId;
    const { ceremony } = await call(passkeys, passkeys.startPasskeyAuthentication, { userId: userId || undefined });
    setPasskeyCookie(res, deps.jar, deps.secret, ceremony!);
    return JSON.parse(ceremony!.optionsJson);
  };
  return [
    defineRoute(
      {
        method: "get",
        path: "/passkey/generate-register-options",
        tag: "Passkeys",
        summary: "Options to register a passkey for the caller",
        session: "required",
        query: registerOptionsQuery,
        response: passkeyRegistrationOptionsSchema,
        errors: ["SESSION_IS_NOT_FRESH", "SIGN_IN_METHODS_CANNOT_BE_CHANGED_WHILE_IMPERSONATING"],
      },
      async ({ req, res, query, session, json }) => {
        const { ceremony } = await call(passkeys, passkeys.startPasskeyRegistration, {
          caller: callerOf(req, session),
          name: query.name || undefined,
          authenticatorAttachment: query.authenticatorAttachment,
        });
        setPasskeyCookie(res, deps.jar, deps.secret, ceremony!);
        json(JSON.parse(ceremony!.optionsJson));
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/passkey/verify-registration",
        tag: "Passkeys",
        summary: "Store the passkey the authenticator created",
        session: "required",
        body: verifyRegistrationBody,
        response: passkeySchema,
        errors: [
          "CHALLENGE_NOT_FOUND",
          "YOU_ARE_NOT_ALLOWED_TO_REGISTER_THIS_PASSKEY",
          "FAILED_TO_VERIFY_REGISTRATION",
          "PREVIOUSLY_REGISTERED",
          "SIGN_IN_METHODS_CANNOT_BE_CHANGED_WHILE_IMPERSONATING",
        ],
      },
      async ({ req, res, body, session, json }) => {
        const token = ceremonyToken(req, deps);
        // Taken by this call whatever its outcome: the cookie is of no more use.
        clearPasskeyCookie(res, deps.jar);
        const { passkey } = await call(passkeys, passkeys.finishPasskeyRegistration, {
          caller: callerOf(req, session),
          token,
          responseJson: JSON.stringify(body.response),
          name: body.name || undefined,
        });
        json(publicPasskey(passkey!));
      },
    ),
    defineRoute(
      {
        method: "get",
        path: "/passkey/generate-authenticate-options",
        tag: "Passkeys",
        summary: "Options to sign in with a passkey (or answer a two-factor challenge with one)",
        response: passkeyAuthenticationOptionsSchema,
      },
      async ({ req, res, json }) => json(await authenticateOptions(req, res)),
    ),
    defineRoute(
      {
        method: "post",
        path: "/passkey/generate-authenticate-options",
        tag: "Passkeys",
        summary: "The same options, as better-auth 1.1's client asks for them (its email is ignored)",
        body: legacyAuthenticateOptionsBody,
        response: passkeyAuthenticationOptionsSchema,
      },
      // Never the email's passkeys: the answer would tell who has one. The browser offers its discoverable ones.
      async ({ req, res, json }) => json(await authenticateOptions(req, res)),
    ),
    defineRoute(
      {
        method: "post",
        path: "/passkey/verify-authentication",
        tag: "Passkeys",
        summary: "Sign in with a passkey",
        body: verifyAuthenticationBody,
        response: sessionWithUserSchema,
        errors: ["CHALLENGE_NOT_FOUND", "PASSKEY_NOT_FOUND", "AUTHENTICATION_FAILED", "BANNED_USER", "EMAIL_NOT_VERIFIED"],
      },
      async ({ req, res, body, json }) => {
        const token = ceremonyToken(req, deps);
        clearPasskeyCookie(res, deps.jar);
        const { user, session } = await countedSignIn("passkey", () =>
          call(passkeys, passkeys.signInWithPasskey, {
            token,
            responseJson: JSON.stringify(body.response),
            rememberMe: true,
            client: clientOf(req),
            language: req.facts.language,
          }),
        );
        issueSession(res, deps, session!, true);
        json({ session: publicSession(session!), user: publicUser(user!) });
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/two-factor/verify-passkey",
        tag: "Two-factor",
        summary: "Answer the pending two-factor sign-in with a passkey",
        body: verifyTwoFactorPasskeyBody,
        response: twoFactorVerifiedSchema,
        errors: ["INVALID_TWO_FACTOR_COOKIE", "INVALID_TWO_FACTOR_AUTHENTICATION", "BANNED_USER", "TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER"],
      },
      async ({ req, res, body, json }) => {
        const challenge = twoFactorCookie(req, deps.jar, deps.secret);
        if (!challenge) throw new AuthError("INVALID_TWO_FACTOR_COOKIE");
        const token = passkeyCookie(req, deps.jar, deps.secret) ?? "";
        clearPasskeyCookie(res, deps.jar);
        const { user, session, trustedDevice, rememberMe } = await call(passkeys, passkeys.verifyTwoFactorPasskey, {
          challenge: challenge.token,
          token,
          responseJson: JSON.stringify(body.response),
          trustDevice: body.trustDevice ?? false,
          client: clientOf(req),
        }).then(
          (answer) => {
            authEvents.twoFactorChallenge("passkey", "passed");
            return answer;
          },
          (error: unknown) => {
            if (failureOutcome(error) === "failure") {
              authEvents.twoFactorChallenge("passkey", "failed");
              deps.events.twoFactorFailed(req, challenge.userId, { method: "passkey", error: errorCodeOf(error) });
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
    defineRoute(
      { method: "get", path: "/passkey/list-user-passkeys", tag: "Passkeys", summary: "The caller's passkeys", session: "required", response: passkeysSchema },
      async ({ req, session, json }) => {
        const { passkeys: list } = await call(passkeys, passkeys.listPasskeys, { caller: callerOf(req, session) });
        json(list.map(publicPasskey));
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/passkey/delete-passkey",
        tag: "Passkeys",
        summary: "Delete one of the caller's passkeys",
        session: "required",
        body: passkeyIdBody,
        response: statusSchema,
        errors: ["PASSKEY_NOT_FOUND", "YOU_CANT_DELETE_YOUR_LAST_WAY_TO_SIGN_IN", "SIGN_IN_METHODS_CANNOT_BE_CHANGED_WHILE_IMPERSONATING"],
      },
      async ({ req, body, session, json }) => {
        await call(passkeys, passkeys.deletePasskey, { caller: callerOf(req, session), id: body.id });
        json(statusResponse());
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/passkey/update-passkey",
        tag: "Passkeys",
        summary: "Rename one of the caller's passkeys",
        session: "required",
        body: updatePasskeyBody,
        response: updatePasskeySchema,
        errors: ["PASSKEY_NOT_FOUND", "SIGN_IN_METHODS_CANNOT_BE_CHANGED_WHILE_IMPERSONATING"],
      },
      async ({ req, body, session, json }) => {
        const { passkey } = await call(passkeys, passkeys.renamePasskey, { caller: callerOf(req, session), id: body.id, name: body.name });
        json({ passkey: publicPasskey(passkey!) });
      },
    ),
  ];
}
