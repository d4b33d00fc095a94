/**
 * Sign-in by a mailed link (better-auth 1.7's magic-link routes) or a mailed code (its email-OTP routes, with
 * email verification and password reset by code), and what the web app offers of them
 * (docs/http-api/mail-sign-in.md). Identity's MailSignInService holds every rule; asking for a mail answers
 * the same for every address.
 */
import type { Request } from "express";
import * as z from "zod";
import { EmailOtpPurpose } from "@auth-platform/proto/gen/auth/identity/v1/mail_sign_in";
import { AuthError, redirectErrorCode } from "@auth-platform/proto/errors";
import { countedSignIn } from "@auth-platform/runtime/metrics";
import { call } from "@auth-platform/runtime/rpc";
import { defineRoute, type Route } from "../http/define-route.js";
import { sessionSchema, successSchema, twoFactorRedirectSchema, userSchema } from "../http/public-schemas.js";
import { publicSession, publicUser } from "../http/public-shapes.js";
import { redirectTo } from "../http/redirect.js";
import { clientOf, issueSession, type RouteDeps } from "./deps.js";
import { answeredWithChallenge, redirectSignedIn, trustedDeviceOf } from "./two-factor.js";

/** The address rule identity applies (validation.ts normaliseEmail): trimmed, lower-cased, then checked. */
const emailAddress = z.email();
const email = z.string().max(255);
const otp = z.string().max(64);

function checkedEmail(value: string): string {
  if (!emailAddress.safeParse(value.trim().toLowerCase()).success) throw new AuthError("INVALID_EMAIL");
  return value;
}

export const magicLinkBody = z.object({
  email,
  name: z.string().max(255).optional(),
  callbackURL: z.string().nullish(),
  newUserCallbackURL: z.string().nullish(),
  errorCallbackURL: z.string().nullish(),
  // better-auth hands it to its sendMagicLink hook; we have none, so it is accepted and unused.
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export const magicLinkQuery = z.looseObject({ token: z.string().min(1).max(256) });

// change-email by code is not served (docs/better-auth-compat.md): its type is refused as bad input.
const OTP_TYPES = {
  "sign-in": EmailOtpPurpose.EMAIL_OTP_PURPOSE_SIGN_IN,
  "email-verification": EmailOtpPurpose.EMAIL_OTP_PURPOSE_EMAIL_VERIFICATION,
  "forget-password": EmailOtpPurpose.EMAIL_OTP_PURPOSE_FORGET_PASSWORD,
} as const;
const otpType = z.enum(["sign-in", "email-verification", "forget-password"]);
export const sendOtpBody = z.object({ email, type: otpType });
export const checkOtpBody = z.object({ email, type: otpType, otp });
export const verifyEmailOtpBody = z.object({ email, otp });
// The current client may send configured user fields beside these (a new user's); they are not taken.
export const signInOtpBody = z.looseObject({ email, otp, name: z.string().max(255).optional(), image: z.string().max(2048).optional() });
export const requestResetOtpBody = z.object({ email });
export const resetOtpBody = z.object({ email, otp, password: z.string().max(1024) });

const mailSignInOptionsSchema = z.object({ magicLink: z.boolean(), emailOtp: z.boolean() }).strict();
const magicLinkSessionSchema = z.object({ token: z.string(), user: userSchema, session: sessionSchema });
const otpSignInSchema = z.union([z.object({ token: z.string(), user: userSchema }), twoFactorRedirectSchema]);
const verifiedByOtpSchema = z.object({ status: z.boolean(), token: z.string().nullable(), user: userSchema });

export function mailSignInRoutes(deps: RouteDeps): Route[] {
  const routes: Route[] = [];
  const mail = deps.clients.mailSignIn;

  routes.push(
    defineRoute(
      {
        method: "get",
        path: "/mail-sign-in-options",
        tag: "Mail sign-in",
        summary: "Which mailed sign-in ways are on (ours: the sign-in page offers only these)",
        response: mailSignInOptionsSchema,
      },
      async ({ json }) => {
        const { magicLink, emailOtp } = await call(mail, mail.mailSignInOptions, {});
        json({ magicLink, emailOtp });
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/sign-in/magic-link",
        tag: "Mail sign-in",
        summary: "Mail a sign-in link",
        body: magicLinkBody,
        response: z.object({ status: z.boolean() }),
        errors: ["INVALID_EMAIL", "MAGIC_LINK_SIGN_IN_ISNT_ENABLED", "INVALID_CALLBACKURL", "INVALID_NEWUSERCALLBACKURL", "INVALID_ERRORCALLBACKURL"],
      },
      async ({ req, body, json }) => {
        const callbacks = req.callbacks.body;
        await call(mail, mail.requestMagicLink, {
          email: checkedEmail(body.email),
          name: body.name,
          callbackUrl: callbacks.callbackURL?.href,
          newUserCallbackUrl: callbacks.newUserCallbackURL?.href,
          errorCallbackUrl: callbacks.errorCallbackURL?.href,
          language: req.facts.language,
        });
        json({ status: true });
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "get",
        path: "/magic-link/verify",
        tag: "Mail sign-in",
        summary: "The mailed sign-in link: signs in, then redirects to the callback URL (JSON without one)",
        query: magicLinkQuery,
        response: magicLinkSessionSchema,
        redirect: true,
        errors: [
          "INVALID_TOKEN",
          "NEW_USER_SIGNUP_DISABLED",
          "BANNED_USER",
          "MAGIC_LINK_SIGN_IN_ISNT_ENABLED",
          "INVALID_CALLBACKURL",
          "INVALID_NEWUSERCALLBACKURL",
          "INVALID_ERRORCALLBACKURL",
        ],
      },
      async ({ req, res, query, json }) => {
        const callbacks = req.callbacks.query;
        let outcome;
        try {
          outcome = await countedSignIn(
            "magic-link",
            () => call(mail, mail.verifyMagicLink, { token: query.token, client: clientOf(req), trustedDevice: trustedDeviceOf(req, deps) }),
            (answer) => (answer.twoFactor ? "two_factor_required" : "success"),
          );
        } catch (error) {
          const code = redirectErrorCode("magicLinkVerify", error);
          const target = callbacks.errorCallbackURL ?? callbacks.callbackURL;
          if (code && target) return redirectTo(res, target, { error: code });
          throw error;
        }
        if (!callbacks.callbackURL) {
          if (answeredWithChallenge(req, res, deps, outcome)) return;
          issueSession(res, deps, outcome.session!, true);
          json({ token: outcome.session!.token, user: publicUser(outcome.user!), session: publicSession(outcome.session!) });
          return;
        }
        const target = (outcome.isNewUser && callbacks.newUserCallbackURL) || callbacks.callbackURL;
        redirectSignedIn(req, res, deps, outcome, target);
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/email-otp/send-verification-otp",
        tag: "Mail sign-in",
        summary: "Mail a code: to sign in, to verify the address, or to reset the password",
        body: sendOtpBody,
        response: successSchema,
        errors: ["INVALID_EMAIL", "EMAIL_OTP_ISNT_ENABLED", "RESET_PASSWORD_ISNT_ENABLED", "VERIFICATION_EMAIL_ISNT_ENABLED"],
      },
      async ({ req, body, json }) => {
        await call(mail, mail.sendEmailOtp, { email: checkedEmail(body.email), purpose: OTP_TYPES[body.type], language: req.facts.language });
        json({ success: true });
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/email-otp/check-verification-otp",
        tag: "Mail sign-in",
        summary: "Tell whether a mailed code is right, without using it",
        body: checkOtpBody,
        response: successSchema,
        errors: ["INVALID_EMAIL", "INVALID_OTP", "OTP_EXPIRED", "TOO_MANY_ATTEMPTS", "USER_NOT_FOUND", "EMAIL_OTP_ISNT_ENABLED"],
      },
      async ({ body, json }) => {
        await call(mail, mail.checkEmailOtp, { email: checkedEmail(body.email), purpose: OTP_TYPES[body.type], otp: body.otp });
        json({ success: true });
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/email-otp/verify-email",
        tag: "Mail sign-in",
        summary: "Verify the address with a mailed code",
        body: verifyEmailOtpBody,
        response: verifiedByOtpSchema,
        errors: ["INVALID_EMAIL", "INVALID_OTP", "OTP_EXPIRED", "TOO_MANY_ATTEMPTS", "USER_NOT_FOUND", "EMAIL_OTP_ISNT_ENABLED", "VERIFICATION_EMAIL_ISNT_ENABLED"],
      },
      async ({ req, res, body, json }) => {
        const { user, session } = await call(mail, mail.verifyEmailOtp, { email: checkedEmail(body.email), otp: body.otp, client: clientOf(req) });
        if (session) issueSession(res, deps, session, true);
        json({ status: true, token: session?.token ?? null, user: publicUser(user!) });
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/sign-in/email-otp",
        tag: "Mail sign-in",
        summary: "Sign in with a mailed code",
        body: signInOtpBody,
        response: otpSignInSchema,
        errors: ["INVALID_EMAIL", "INVALID_OTP", "OTP_EXPIRED", "TOO_MANY_ATTEMPTS", "BANNED_USER", "EMAIL_OTP_ISNT_ENABLED"],
      },
      async ({ req, res, body, json }) => {
        const outcome = await countedSignIn(
          "email-otp",
          () =>
            call(mail, mail.signInEmailOtp, {
              email: checkedEmail(body.email),
              otp: body.otp,
              name: body.name,
              image: body.image,
              client: clientOf(req),
              trustedDevice: trustedDeviceOf(req, deps),
            }),
          (answer) => (answer.twoFactor ? "two_factor_required" : "success"),
        );
        if (answeredWithChallenge(req, res, deps, outcome)) return;
        issueSession(res, deps, outcome.session!, true);
        json({ token: outcome.session!.token, user: publicUser(outcome.user!) });
      },
    ),
  );

  // /forget-password/email-otp is the path better-auth 1.7 still serves, deprecated, beside the current one.
  for (const path of ["/email-otp/request-password-reset", "/forget-password/email-otp"]) {
    routes.push(
      defineRoute(
        {
          method: "post",
          path,
          tag: "Mail sign-in",
          summary: path === "/forget-password/email-otp" ? "Mail a password reset code (deprecated path)" : "Mail a password reset code",
          body: requestResetOtpBody,
          response: successSchema,
          errors: ["INVALID_EMAIL", "EMAIL_OTP_ISNT_ENABLED", "RESET_PASSWORD_ISNT_ENABLED"],
        },
        async ({ req, body, json }) => {
          await call(mail, mail.sendEmailOtp, { email: checkedEmail(body.email), purpose: EmailOtpPurpose.EMAIL_OTP_PURPOSE_FORGET_PASSWORD, language: req.facts.language });
          json({ success: true });
        },
      ),
    );
  }

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/email-otp/reset-password",
        tag: "Mail sign-in",
        summary: "Set a new password with a mailed code",
        body: resetOtpBody,
        response: successSchema,
        errors: [
          "INVALID_EMAIL",
          "INVALID_OTP",
          "OTP_EXPIRED",
          "TOO_MANY_ATTEMPTS",
          "USER_NOT_FOUND",
          "PASSWORD_TOO_SHORT",
          "PASSWORD_TOO_LONG",
          "EMAIL_OTP_ISNT_ENABLED",
          "RESET_PASSWORD_ISNT_ENABLED",
          "SERVICE_UNAVAILABLE",
        ],
      },
      async ({ req, body, json }) => {
        const { userId, providerAccountsRemoved, twoFactorRemoved } = await call(mail, mail.resetPasswordEmailOtp, {
          email: checkedEmail(body.email),
          otp: body.otp,
          password: body.password,
        });
        reportReset(deps, req, userId, providerAccountsRemoved || twoFactorRemoved ? { providerAccountsRemoved, twoFactorRemoved, by: "email-otp" } : { by: "email-otp" });
        json({ success: true });
      },
    ),
  );
  return routes;
}

/** As the reset by link reports it (routes/password-reset.ts), with how it was proven. */
function reportReset(deps: RouteDeps, req: Request, userId: string, details: Record<string, unknown>): void {
  deps.events.report({
    action: "user.reset-password",
    actorId: userId,
    targetId: userId,
    ipAddress: req.facts.ipAddress || undefined,
    userAgent: req.facts.userAgent || undefined,
    outcome: "success",
    details,
  });
}
