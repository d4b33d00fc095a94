/** The signed-in user's account: update, change email and password, delete, linked accounts. */
import { Router } from "express";
import * as z from "zod";
import { redirectErrorCode } from "@auth-platform/proto/errors";
import { call } from "@auth-platform/runtime/rpc";
import { otherFields, parseBody, parseQuery } from "../http/body.js";
import { clearSessionCookies, hasDontRemember } from "../http/cookies.js";
import { publicUser } from "../http/public-shapes.js";
import { redirectTo } from "../http/redirect.js";
import type { CurrentSession } from "../http/session.js";
import { clientOf, issueSession, type RouteDeps } from "./deps.js";
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

const callerOf = (current: CurrentSession) => ({
  token: current.session.token,
  createdAt: new Date(current.session.createdAt),
  impersonatedBy: current.session.impersonatedBy ?? undefined,
});

export function accountRoutes(deps: RouteDeps): Router {
  const router = Router();
  const identity = deps.clients.identity;

  router.post("/update-user", async (req, res) => {
    const { user } = await deps.sessions.require(req);
    const body = parseBody(req, updateUserBody);
    await call(identity, identity.updateUser, {
      userId: user.id,
      name: body.name,
      image: body.image ?? undefined,
      clearImage: body.image === null,
      username: body.username,
      displayUsername: body.displayUsername,
      extraFields: otherFields(body, UPDATE_USER_FIELDS),
    });
    res.json({ status: true });
  });

  router.post("/change-email", async (req, res) => {
    const current = await deps.sessions.require(req);
    const body = parseBody(req, changeEmailBody);
    await deps.events.reported(req, current, "user.change-email", () =>
      call(identity, identity.changeEmail, { userId: current.user.id, newEmail: body.newEmail, callbackUrl: req.callbacks.body.callbackURL?.toString() }),
    );
    res.json({ status: true });
  });

  router.post("/change-password", async (req, res) => {
    const current = await deps.sessions.require(req);
    const body = parseBody(req, changePasswordBody);
    const revokeOtherSessions = body.revokeOtherSessions ?? false;
    const result = await deps.events.reported(
      req,
      current,
      "user.change-password",
      () =>
        call(identity, identity.changePassword, {
          userId: current.user.id,
          currentPassword: body.currentPassword,
          newPassword: body.newPassword,
          revokeOtherSessions,
          caller: callerOf(current),
          client: clientOf(req),
        }),
      { revokeOtherSessions },
    );
    // The new session keeps this browser's choice: after a dont-remember sign-in its cookie stays a
    // browser-session cookie (a shared computer is still signed out when the browser closes).
    if (result.session) issueSession(res, deps, result.session, !hasDontRemember(req, deps.jar, deps.secret));
    res.json({ token: result.session?.token ?? null, user: publicUser(result.user!) });
  });

  router.post("/delete-user", async (req, res) => {
    const current = await deps.sessions.require(req);
    const body = parseBody(req, deleteUserBody);
    const { deleted } = await call(identity, identity.deleteUser, {
      userId: current.user.id,
      password: body.password ?? undefined,
      token: body.token ?? undefined,
      callbackUrl: req.callbacks.body.callbackURL?.toString(),
      caller: callerOf(current),
    });
    if (deleted) clearSessionCookies(res, deps.jar);
    res.json({ success: true, message: deleted ? "User deleted" : "Verification email sent" });
  });

  router.get("/delete-user/callback", async (req, res) => {
    const query = parseQuery(req, deleteCallbackQuery);
    try {
      const current = await deps.sessions.require(req);
      await call(identity, identity.deleteUser, { userId: current.user.id, token: query.token, caller: callerOf(current) });
    } catch (error) {
      const code = redirectErrorCode("deleteUserCallback", error);
      const callback = req.callbacks.query.callbackURL;
      if (callback && code) return redirectTo(res, callback, { error: code });
      throw error;
    }
    clearSessionCookies(res, deps.jar);
    if (req.callbacks.query.callbackURL) return redirectTo(res, req.callbacks.query.callbackURL);
    res.json({ success: true, message: "User deleted" });
  });

  router.get("/list-accounts", async (req, res) => {
    const { user } = await deps.sessions.require(req);
    const { accounts } = await call(identity, identity.listAccounts, { userId: user.id });
    res.json(accountListResponse(accounts, user.id));
  });

  router.post("/unlink-account", async (req, res) => {
    const current = await deps.sessions.require(req);
    const body = parseBody(req, unlinkBody);
    await call(
      identity,
      identity.unlinkAccount,
      body.providerId !== undefined
        ? { userId: current.user.id, providerId: body.providerId, accountId: body.accountId ?? undefined, caller: callerOf(current) }
        : { userId: current.user.id, providerId: "", id: body.accountId ?? undefined, caller: callerOf(current) },
    );
    res.json({ status: true });
  });
  return router;
}
