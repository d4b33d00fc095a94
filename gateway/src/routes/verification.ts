/** POST /send-verification-email and GET /verify-email. */
import type { Request } from "express";
import * as z from "zod";
import { AuthError, redirectErrorCode } from "@auth-platform/proto/errors";
import { call } from "@auth-platform/runtime/rpc";
import { callerOf } from "../http/caller.js";
import { defineRoute, type Route } from "../http/define-route.js";
import { statusSchema, verifiedEmailSchema } from "../http/public-schemas.js";
import { redirectTo } from "../http/redirect.js";
import { publicUser } from "../http/public-shapes.js";
import type { CurrentSession } from "../http/session.js";
import { clientOf, issueSession, type RouteDeps } from "./deps.js";

export const sendBody = z.object({ email: z.string().max(255), callbackURL: z.string().max(2048).nullish() });
export const verifyQuery = z.looseObject({ token: z.string().min(1).max(4096), callbackURL: z.string().max(2048).optional() });

export function verificationRoutes(deps: RouteDeps): Route[] {
  const routes: Route[] = [];
  const identity = deps.clients.identity;

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/send-verification-email",
        tag: "Account",
        summary: "Send the email verification link",
        body: sendBody,
        response: statusSchema,
        errors: ["INVALID_EMAIL", "VERIFICATION_EMAIL_ISNT_ENABLED", "INVALID_CALLBACKURL"],
      },
      async ({ req, body, json }) => {
        await call(identity, identity.sendVerificationEmail, { email: body.email, callbackUrl: req.callbacks.body.callbackURL?.toString(), language: req.facts.language });
        json({ status: true });
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "get",
        path: "/verify-email",
        tag: "Account",
        summary: "Verify an email address (the mailed link)",
        query: verifyQuery,
        response: verifiedEmailSchema,
        redirect: true,
        errors: ["INVALID_TOKEN", "TOKEN_EXPIRED", "UNAUTHORIZED", "COULDNT_UPDATE_YOUR_EMAIL"],
      },
      async ({ req, res, query, json }) => {
        let result;
        let current: CurrentSession | null = null;
        try {
          current = await deps.sessions.current(req);
          result = await call(identity, identity.verifyEmail, {
            token: query.token,
            client: clientOf(req),
            caller: current ? callerOf(req, current) : undefined,
            language: req.facts.language,
            callbackUrl: req.callbacks.query.callbackURL?.toString(),
          });
        } catch (error) {
          // Only the confirmation of an email change answers this refusal (the new address was taken meanwhile).
          if (current && error instanceof AuthError && error.code === "COULDNT_UPDATE_YOUR_EMAIL") reportEmailChange(deps, req, current, "failure", { error: error.code });
          const code = redirectErrorCode("verifyEmail", error);
          const callback = req.callbacks.query.callbackURL;
          if (callback && code) return redirectTo(res, callback, { error: code });
          throw error;
        }
        // The link of a change-email request, followed in the user's session: the address has moved.
        if (current && result.user?.id === current.user.id && result.user.email !== current.user.email) reportEmailChange(deps, req, current, "success", {});
        if (result.session) issueSession(res, deps, result.session, true);
        if (req.callbacks.query.callbackURL) return redirectTo(res, req.callbacks.query.callbackURL);
        json({ status: true, user: publicUser(result.user!) });
      },
    ),
  );
  return routes;
}

/** The completion of an email change (the request itself is user.change-email, reported by account.ts). */
function reportEmailChange(deps: RouteDeps, req: Request, current: CurrentSession, outcome: "success" | "failure", details: Record<string, unknown>): void {
  deps.events.report({
    action: "user.change-email.confirm",
    actorId: current.user.id,
    impersonatorId: current.session.impersonatedBy ?? undefined,
    targetId: current.user.id,
    ipAddress: req.facts.ipAddress || undefined,
    userAgent: req.facts.userAgent || undefined,
    outcome,
    details,
  });
}
