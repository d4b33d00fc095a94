/** The signed-in user's account: update, change email and password, delete, linked accounts. */
import * as z from "zod";
import { redirectErrorCode } from "@auth-platform/proto/errors";
import { call } from "@auth-platform/runtime/rpc";
import { callerOf } from "../http/caller.js";
import { defineRoute, type Route } from "../http/define-route.js";
import { accountListSchema, deleteUserSchema, statusSchema, tokenAndUserSchema } from "../http/public-schemas.js";
import { otherFields } from "../http/body.js";
import { clearSessionCookies, hasDontRemember } from "../http/cookies.js";
import { publicUser } from "../http/public-shapes.js";
import { redirectTo } from "../http/redirect.js";
import { issueSession, type RouteDeps } from "./deps.js";
import { accountListResponse } from "./responses.js";

export const updateUserBody = z.looseObject({
  name: z.string().max(255).optional(),
  // Checked by identity (runtime/user-image.ts): an https: URL or a raster data URL.
  image: z.string().nullish(),
  username: z.string().optional(),
  displayUsername: z.string().max(255).optional(),
});
const UPDATE_USER_FIELDS = new Set(Object.keys(updateUserBody.shape));
export const changeEmailBody = z.object({ newEmail: z.string().max(255), callbackURL: z.string().max(2048).nullish() });
export const changePasswordBody = z.object({
  newPassword: z.string().max(1024),
  currentPassword: z.string().max(1024),
  revokeOtherSessions: z.boolean().nullish(),
});
export const setPasswordBody = z.object({ newPassword: z.string().max(1024) });
export const deleteUserBody = z.object({
  callbackURL: z.string().max(2048).nullish(),
  password: z.string().max(1024).nullish(),
  token: z.string().max(256).nullish(),
});
export const deleteCallbackQuery = z.looseObject({ token: z.string().min(1).max(256), callbackURL: z.string().max(2048).optional() });
// 1.1 clients name the provider (and optionally the provider's account id); the current client names
// only accountId, the platform's own account id (the `id` list-accounts gives).
export const unlinkBody = z
  .object({ providerId: z.string().min(1).max(255).optional(), accountId: z.string().max(255).nullish() })
  .refine((body) => body.providerId !== undefined || Boolean(body.accountId), { path: ["providerId"], message: "expected providerId or accountId" });

export function accountRoutes(deps: RouteDeps): Route[] {
  const routes: Route[] = [];
  const identity = deps.clients.identity;
  const accounts = deps.clients.accounts;

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/update-user",
        tag: "Account",
        summary: "Update the caller's profile",
        session: "required",
        body: updateUserBody,
        response: statusSchema,
        errors: ["EMAIL_CAN_NOT_BE_UPDATED", "USERNAME_IS_ALREADY_TAKEN_PLEASE_TRY_ANOTHER"],
      },
      async ({ req, body, session: current, json }) => {
        await call(identity, identity.updateUser, {
          caller: callerOf(req, current),
          name: body.name,
          image: body.image ?? undefined,
          clearImage: body.image === null,
          username: body.username,
          displayUsername: body.displayUsername,
          extraFields: otherFields(body, UPDATE_USER_FIELDS),
        });
        json({ status: true });
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/change-email",
        tag: "Account",
        summary: "Change the caller's email address",
        session: "required",
        body: changeEmailBody,
        response: statusSchema,
        errors: ["CHANGE_EMAIL_IS_DISABLED", "INVALID_EMAIL", "EMAIL_IS_THE_SAME", "COULDNT_UPDATE_YOUR_EMAIL"],
      },
      async ({ req, body, session: current, json }) => {
        await deps.events.reported(req, current, "user.change-email", () =>
          call(identity, identity.changeEmail, {
            caller: callerOf(req, current),
            newEmail: body.newEmail,
            callbackUrl: req.callbacks.body.callbackURL?.toString(),
            language: req.facts.language,
          }),
        );
        json({ status: true });
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/change-password",
        tag: "Account",
        summary: "Change the caller's password",
        session: "required",
        body: changePasswordBody,
        response: tokenAndUserSchema,
        errors: [
          "INVALID_PASSWORD",
          "CREDENTIAL_ACCOUNT_NOT_FOUND",
          "PASSWORD_TOO_SHORT",
          "PASSWORD_TOO_LONG",
          "YOU_CANNOT_REVOKE_SESSIONS_WHILE_IMPERSONATING",
          "SERVICE_UNAVAILABLE",
        ],
      },
      async ({ req, res, body, session: current, json }) => {
        const revokeOtherSessions = body.revokeOtherSessions ?? false;
        const result = await deps.events.reported(
          req,
          current,
          "user.change-password",
          () =>
            call(identity, identity.changePassword, {
              caller: callerOf(req, current),
              currentPassword: body.currentPassword,
              newPassword: body.newPassword,
              revokeOtherSessions,
            }),
          { revokeOtherSessions },
        );
        // The new session keeps this browser's choice: after a dont-remember sign-in its cookie stays a
        // browser-session cookie (a shared computer is still signed out when the browser closes).
        if (result.session) issueSession(res, deps, result.session, !hasDontRemember(req, deps.jar, deps.secret));
        json({ token: result.session?.token ?? null, user: publicUser(result.user!) });
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/delete-user",
        tag: "Account",
        summary: "Delete the caller's account (or mail the confirmation link)",
        session: "required",
        body: deleteUserBody,
        response: deleteUserSchema,
        errors: ["NOT_FOUND", "INVALID_PASSWORD", "CREDENTIAL_ACCOUNT_NOT_FOUND", "INVALID_TOKEN", "SESSION_IS_NOT_FRESH"],
      },
      async ({ req, res, body, session: current, json }) => {
        const { deleted } = await call(identity, identity.deleteUser, {
          caller: callerOf(req, current),
          password: body.password ?? undefined,
          token: body.token ?? undefined,
          callbackUrl: req.callbacks.body.callbackURL?.toString(),
          language: req.facts.language,
        });
        if (deleted) clearSessionCookies(res, deps.jar);
        json({ success: true, message: deleted ? "User deleted" : "Verification email sent" });
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "get",
        path: "/delete-user/callback",
        tag: "Account",
        summary: "Confirm an account deletion (the mailed link)",
        session: "checked-by-route",
        query: deleteCallbackQuery,
        response: deleteUserSchema,
        redirect: true,
        errors: ["NOT_FOUND", "INVALID_TOKEN"],
      },
      async ({ req, res, query, json }) => {
        try {
          const current = await deps.sessions.require(req);
          await call(identity, identity.deleteUser, { caller: callerOf(req, current), token: query.token });
        } catch (error) {
          const code = redirectErrorCode("deleteUserCallback", error);
          const callback = req.callbacks.query.callbackURL;
          if (callback && code) return redirectTo(res, callback, { error: code });
          throw error;
        }
        clearSessionCookies(res, deps.jar);
        if (req.callbacks.query.callbackURL) return redirectTo(res, req.callbacks.query.callbackURL);
        json({ success: true, message: "User deleted" });
      },
    ),
  );

  routes.push(
    defineRoute(
      { method: "get", path: "/list-accounts", tag: "Account", summary: "The caller's linked accounts", session: "required", response: accountListSchema },
      async ({ req, session: current, json }) => {
        const listed = await call(accounts, accounts.listAccounts, { caller: callerOf(req, current) });
        json(accountListResponse(listed.accounts, current.user.id));
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/unlink-account",
        tag: "Account",
        summary: "Unlink one of the caller's accounts",
        session: "required",
        body: unlinkBody,
        response: statusSchema,
        errors: ["ACCOUNT_NOT_FOUND", "YOU_CANT_UNLINK_YOUR_LAST_ACCOUNT", "SESSION_IS_NOT_FRESH"],
      },
      async ({ req, body, session: current, json }) => {
        const caller = callerOf(req, current);
        await call(
          accounts,
          accounts.unlinkAccount,
          body.providerId !== undefined
            ? { caller, providerId: body.providerId, accountId: body.accountId ?? undefined }
            : { caller, providerId: "", id: body.accountId ?? undefined },
        );
        json({ status: true });
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/set-password",
        tag: "Account",
        summary: "Set a first password (ours: for a user who signs in by mail or through a provider)",
        session: "required",
        body: setPasswordBody,
        response: statusSchema,
        errors: [
          "USER_ALREADY_HAS_A_PASSWORD",
          "SESSION_IS_NOT_FRESH",
          "SIGN_IN_METHODS_CANNOT_BE_CHANGED_WHILE_IMPERSONATING",
          "PASSWORD_TOO_SHORT",
          "PASSWORD_TOO_LONG",
          "SERVICE_UNAVAILABLE",
        ],
      },
      async ({ req, body, session: current, json }) => {
        await call(accounts, accounts.setPassword, { caller: callerOf(req, current), newPassword: body.newPassword });
        json({ status: true });
      },
    ),
  );
  return routes;
}
