/** POST /sign-in/email and /sign-in/username (a user with two-factor on gets a challenge instead of a session). */
import type { Request } from "express";
import { AuthError } from "@auth-platform/proto/errors";
import * as z from "zod";
import { countedSignIn } from "@auth-platform/runtime/metrics";
import { call } from "@auth-platform/runtime/rpc";
import { defineRoute, type Route } from "../http/define-route.js";
import { signInOrChallengeSchema } from "../http/public-schemas.js";
import { publicUser } from "../http/public-shapes.js";
import { clientOf, issueSession, type RouteDeps } from "./deps.js";
import { signInEmailResponse, signInUsernameResponse } from "./responses.js";
import { answeredWithChallenge, trustedDeviceOf } from "./two-factor.js";

export const signInEmailBody = z.object({
  email: z.string().max(255),
  password: z.string().max(1024),
  callbackURL: z.string().nullish(),
  rememberMe: z.boolean().nullish(),
});

export const signInUsernameBody = z.object({
  username: z.string().max(255),
  password: z.string().max(1024),
  // The current client may send one (checked like every callback URL); redirect then answers true.
  callbackURL: z.string().nullish(),
  rememberMe: z.boolean().nullish(),
});

const WRONG_CREDENTIALS = new Set(["INVALID_EMAIL_OR_PASSWORD", "INVALID_USERNAME_OR_PASSWORD"]);

/** Counts a wrong-credentials answer towards a sign-in failure burst (security events); the answer is unchanged. */
async function countingFailures<T>(req: Request, deps: RouteDeps, identifier: string, answer: Promise<T>): Promise<T> {
  try {
    return await answer;
  } catch (error) {
    if (error instanceof AuthError && WRONG_CREDENTIALS.has(error.code)) deps.events.signInFailed(req, identifier);
    throw error;
  }
}

export function signInRoutes(deps: RouteDeps): Route[] {
  const routes: Route[] = [];
  const identity = deps.clients.identity;

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/sign-in/email",
        tag: "Account",
        summary: "Sign in with email and password",
        body: signInEmailBody,
        response: signInOrChallengeSchema,
        errors: ["INVALID_EMAIL_OR_PASSWORD", "EMAIL_NOT_VERIFIED", "BANNED_USER", "EMAIL_AND_PASSWORD_IS_NOT_ENABLED", "SERVICE_UNAVAILABLE"],
        capacity: { client: identity, method: identity.signInEmail },
      },
      async ({ req, res, body, json }) => {
        const rememberMe = body.rememberMe ?? true;
        const outcome = await countedSignIn(
          "email",
          () =>
            countingFailures(
              req,
              deps,
              body.email,
              call(identity, identity.signInEmail, {
                email: body.email,
                password: body.password,
                rememberMe,
                client: clientOf(req),
                trustedDevice: trustedDeviceOf(req, deps),
                language: req.facts.language,
              }),
            ),
          (answer) => (answer.twoFactor ? "two_factor_required" : "success"),
        );
        if (answeredWithChallenge(req, res, deps, outcome)) return;
        issueSession(res, deps, outcome.session!, rememberMe);
        json(signInEmailResponse(outcome.session!.token, publicUser(outcome.user!), req.callbacks.body.callbackURL?.toString()));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/sign-in/username",
        tag: "Account",
        summary: "Sign in with username and password",
        body: signInUsernameBody,
        response: signInOrChallengeSchema,
        errors: ["INVALID_USERNAME_OR_PASSWORD", "BANNED_USER", "SERVICE_UNAVAILABLE"],
        capacity: { client: identity, method: identity.signInUsername },
      },
      async ({ req, res, body, json }) => {
        const rememberMe = body.rememberMe ?? true;
        const outcome = await countedSignIn(
          "username",
          () =>
            countingFailures(
              req,
              deps,
              body.username,
              call(identity, identity.signInUsername, {
                username: body.username,
                password: body.password,
                rememberMe,
                client: clientOf(req),
                trustedDevice: trustedDeviceOf(req, deps),
                language: req.facts.language,
              }),
            ),
          (answer) => (answer.twoFactor ? "two_factor_required" : "success"),
        );
        if (answeredWithChallenge(req, res, deps, outcome)) return;
        issueSession(res, deps, outcome.session!, rememberMe);
        json(signInUsernameResponse(outcome.session!.token, publicUser(outcome.user!), req.callbacks.body.callbackURL?.toString()));
      },
    ),
  );
  return routes;
}
