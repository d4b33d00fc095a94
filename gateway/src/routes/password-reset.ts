/** Forgot password (both client generations' paths), the reset link's landing, and the reset itself. */
import * as z from "zod";
import { AuthError, redirectErrorCode } from "@auth-platform/proto/errors";
import { call } from "@auth-platform/runtime/rpc";
import { defineRoute, type Route } from "../http/define-route.js";
import { passwordResetRequestedSchema, statusSchema } from "../http/public-schemas.js";
import { redirectTo } from "../http/redirect.js";
import type { RouteDeps } from "./deps.js";
import { passwordResetRequestedResponse } from "./responses.js";

export const requestBody = z.object({ email: z.string().max(255), redirectTo: z.string().max(2048).nullish() });
/** The address rule identity applies (validation.ts normaliseEmail): trimmed, lower-cased, then checked. */
const emailAddress = z.email();

export const landingQuery = z.looseObject({ callbackURL: z.string().min(1).max(2048) });
export const resetBody = z.object({ newPassword: z.string().max(1024), token: z.string().max(256).nullish() });
export const resetQuery = z.looseObject({ token: z.string().max(256).optional() });

export function passwordResetRoutes(deps: RouteDeps): Route[] {
  const routes: Route[] = [];
  const identity = deps.clients.identity;

  // /forget-password is the better-auth 1.1 client's path, /request-password-reset the current one's.
  for (const path of ["/forget-password", "/request-password-reset"]) {
    routes.push(
      defineRoute(
        {
          method: "post",
          path,
          tag: "Account",
          summary: path === "/forget-password" ? "Request a password reset link (1.1 client)" : "Request a password reset link",
          body: requestBody,
          response: passwordResetRequestedSchema,
          errors: ["INVALID_EMAIL", "RESET_PASSWORD_ISNT_ENABLED", "INVALID_REDIRECTURL"],
        },
        async ({ req, body, json }) => {
          // A malformed address is refused (INVALID_EMAIL, docs/http-api/password-reset.md); a well-formed unknown one is answered as a known one.
          if (!emailAddress.safeParse(body.email.trim()).success) throw new AuthError("INVALID_EMAIL");
          await call(identity, identity.requestPasswordReset, { email: body.email, redirectTo: req.callbacks.body.redirectTo?.toString(), language: req.facts.language });
          json(passwordResetRequestedResponse());
        },
      ),
    );
  }

  routes.push(
    defineRoute(
      {
        method: "get",
        path: "/reset-password/:token",
        tag: "Account",
        summary: "The mailed reset link: redirects to the callback URL with the token",
        query: landingQuery,
        redirect: true,
        errors: ["INVALID_CALLBACKURL"],
      },
      async ({ req, res }) => {
        // Present and trusted: the query check above requires it and originCheck resolved it.
        const callbackURL = req.callbacks.query.callbackURL;
        if (!callbackURL) throw new AuthError("INVALID_CALLBACKURL");
        const token = String(req.params.token);
        try {
          await call(identity, identity.checkResetToken, { token });
        } catch (error) {
          const code = redirectErrorCode("resetPasswordLanding", error);
          if (code) return redirectTo(res, callbackURL, { error: code });
          throw error;
        }
        redirectTo(res, callbackURL, { token });
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/reset-password",
        tag: "Account",
        summary: "Set a new password with a reset token",
        body: resetBody,
        query: resetQuery,
        response: statusSchema,
        errors: ["INVALID_TOKEN", "PASSWORD_TOO_SHORT", "PASSWORD_TOO_LONG", "SERVICE_UNAVAILABLE"],
      },
      async ({ req, body, query, json }) => {
        const token = body.token ?? query.token;
        if (!token) throw new AuthError("INVALID_TOKEN");
        const { userId, providerAccountsRemoved, twoFactorRemoved } = await call(identity, identity.resetPassword, { token, newPassword: body.newPassword });
        // Reported once done: a refused reset names no user (the token was not valid). What the reset of an
        // unverified user took away (a squatter's setup, docs/adr/0014-reset-of-an-unverified-account.md) is named in the details.
        const details = providerAccountsRemoved || twoFactorRemoved ? { providerAccountsRemoved, twoFactorRemoved } : {};
        deps.events.report({
          action: "user.reset-password",
          actorId: userId,
          targetId: userId,
          ipAddress: req.facts.ipAddress || undefined,
          userAgent: req.facts.userAgent || undefined,
          outcome: "success",
          details,
        });
        json({ status: true });
      },
    ),
  );
  return routes;
}
