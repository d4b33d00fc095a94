/** POST /sign-up/email: email and password (and optionally username) sign-up. */
import * as z from "zod";
import { authEvents, failureOutcome } from "@auth-platform/runtime/metrics";
import { call } from "@auth-platform/runtime/rpc";
import { otherFields } from "../http/body.js";
import { defineRoute, type Route } from "../http/define-route.js";
import { signUpSchema } from "../http/public-schemas.js";
import { publicUser } from "../http/public-shapes.js";
import { clientOf, issueSession, type RouteDeps } from "./deps.js";
import { signUpResponse } from "./responses.js";

export const signUpBody = z.looseObject({
  name: z.string().max(255),
  email: z.string().max(255),
  password: z.string(),
  // Checked by identity (runtime/user-image.ts): an https: URL or a raster data URL.
  image: z.string().nullish(),
  callbackURL: z.string().nullish(),
  username: z.string().nullish(),
  displayUsername: z.string().max(255).nullish(),
  rememberMe: z.boolean().nullish(),
});

const KNOWN = new Set(Object.keys(signUpBody.shape));

export function signUpRoutes(deps: RouteDeps): Route[] {
  const signUp = defineRoute(
    {
      method: "post",
      path: "/sign-up/email",
      tag: "Account",
      summary: "Sign up with email and password",
      body: signUpBody,
      response: signUpSchema,
      errors: [
        "EMAIL_AND_PASSWORD_IS_NOT_ENABLED",
        "INVALID_EMAIL",
        "PASSWORD_TOO_SHORT",
        "PASSWORD_TOO_LONG",
        "USER_ALREADY_EXISTS",
        "USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER",
        "SERVICE_UNAVAILABLE",
      ],
      capacity: { client: deps.clients.identity, method: deps.clients.identity.signUpEmail },
    },
    async ({ req, res, body, json }) => {
      const rememberMe = body.rememberMe ?? true;
      const identity = deps.clients.identity;
      const signUp = call(identity, identity.signUpEmail, {
        name: body.name,
        email: body.email,
        password: body.password,
        image: body.image ?? undefined,
        username: body.username ?? undefined,
        displayUsername: body.displayUsername ?? undefined,
        extraFields: otherFields(body, KNOWN),
        rememberMe,
        client: clientOf(req),
        callbackUrl: req.callbacks.body.callbackURL?.toString(),
        language: req.facts.language,
      });
      const { user, session } = await signUp.then(
        (answer) => {
          authEvents.signUp("email", "success");
          return answer;
        },
        (error: unknown) => {
          authEvents.signUp("email", failureOutcome(error));
          throw error;
        },
      );
      if (session) issueSession(res, deps, session, rememberMe);
      json(signUpResponse(session?.token ?? null, publicUser(user!)));
    },
  );
  return [signUp];
}
