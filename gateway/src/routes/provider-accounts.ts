/**
 * What the current better-auth client asks of a linked identity-provider account: a usable access token
 * (POST /get-access-token, renewed first when it has expired), a renewed one (POST /refresh-token) and the
 * provider's profile (GET /account-info). The account is chosen by the platform's account id (`accountId`, the current
 * client) or by provider (`providerId`, earlier clients), always among the signed-in user's own accounts.
 * A credential-only user has no provider account: 400 ACCOUNT_NOT_FOUND. An admin impersonating the user
 * gets none of it (403): impersonation is for seeing this platform as the user sees it, and the user's
 * tokens would reach their data at the provider, beyond it and after the impersonation ends.
 */
import { AuthError } from "@auth-platform/proto/errors";
import * as z from "zod";
import { call } from "@auth-platform/proto/rpc-client";
import { safeImage } from "@auth-platform/runtime/user-image";
import type { Request } from "express";
import { callerOf } from "../http/caller.js";
import { defineRoute, type Route } from "../http/define-route.js";
import { accessTokenSchema, accountInfoSchema, refreshedTokenSchema } from "../http/public-schemas.js";
import type { CurrentSession } from "../http/session.js";
import type { RouteDeps } from "./deps.js";

// Fields such as userId or useAccountCookie may be sent too; the session decides the user, and no account
// cookie is kept, so they select nothing and are ignored.
export const selection = z.looseObject({
  accountId: z.string().min(1).max(255).optional(),
  providerId: z.string().min(1).max(255).optional(),
});

const iso = (date: Date | undefined) => date?.toISOString();

/**
 * An access token this close to its expiry is renewed before it is answered (better-auth's margin), so
 * the caller does not get one that lapses on its way to the provider. No expiry stored: never renewed.
 */
const RENEWAL_MARGIN_MS = 5_000;
const expiresSoon = (expiresAt: Date | undefined) => expiresAt !== undefined && expiresAt.getTime() - Date.now() < RENEWAL_MARGIN_MS;

/** The caller, when it may read its provider accounts (not from an impersonation session). */
function accountHolder(req: Request, current: CurrentSession) {
  if (current.session.impersonatedBy) throw new AuthError("PROVIDER_ACCOUNTS_ARE_NOT_AVAILABLE_WHILE_IMPERSONATING");
  return callerOf(req, current);
}

export function providerAccountRoutes(deps: RouteDeps): Route[] {
  const routes: Route[] = [];
  const accounts = deps.clients.accounts;
  const oauth = deps.clients.oauth;

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/get-access-token",
        tag: "Account",
        summary: "A linked provider account's access token",
        session: "required",
        body: selection,
        response: accessTokenSchema,
        errors: ["ACCOUNT_NOT_FOUND", "INVALID_TOKEN", "PROVIDER_NOT_FOUND", "PROVIDER_ACCOUNTS_ARE_NOT_AVAILABLE_WHILE_IMPERSONATING"],
      },
      async ({ req, body, session, json }) => {
        const caller = accountHolder(req, session);
        const stored = await call(accounts, accounts.getProviderTokens, { caller, accountId: body.accountId, providerId: body.providerId, refresh: false });
        // The caller wants a token it can use: an expired one is renewed first, the way /refresh-token renews it
        // (oauth asks the provider and has identity store the new tokens, so the next call answers them as
        // stored). Without a refresh token the stored one is answered as it is, past expiry and all.
        const tokens =
          stored.refreshToken && expiresSoon(stored.accessTokenExpiresAt) ? await call(oauth, oauth.refreshProviderTokens, { caller, accountId: stored.account?.id }) : stored;
        json({
          accessToken: tokens.accessToken,
          accessTokenExpiresAt: iso(tokens.accessTokenExpiresAt),
          scopes: tokens.account?.scopes ?? [],
          idToken: tokens.idToken,
        });
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "post",
        path: "/refresh-token",
        tag: "Account",
        summary: "Refresh a linked provider account's tokens",
        session: "required",
        body: selection,
        response: refreshedTokenSchema,
        errors: ["ACCOUNT_NOT_FOUND", "INVALID_TOKEN", "PROVIDER_NOT_FOUND", "PROVIDER_ACCOUNTS_ARE_NOT_AVAILABLE_WHILE_IMPERSONATING"],
      },
      async ({ req, body, session, json }) => {
        const caller = accountHolder(req, session);
        // Renewal needs the provider's configuration: the oauth service reads the tokens from identity, asks the
        // provider and stores the new ones.
        const tokens = await call(oauth, oauth.refreshProviderTokens, { caller, accountId: body.accountId, providerId: body.providerId });
        json({
          accessToken: tokens.accessToken,
          refreshToken: tokens.refreshToken,
          accessTokenExpiresAt: iso(tokens.accessTokenExpiresAt),
          refreshTokenExpiresAt: iso(tokens.refreshTokenExpiresAt),
          scope: (tokens.account?.scopes ?? []).join(","),
          idToken: tokens.idToken,
          providerId: tokens.account?.providerId,
          accountId: tokens.account?.id,
        });
      },
    ),
  );

  routes.push(
    defineRoute(
      {
        method: "get",
        path: "/account-info",
        tag: "Account",
        summary: "What the provider says about a linked account",
        session: "required",
        query: selection,
        response: accountInfoSchema,
        errors: ["ACCOUNT_NOT_FOUND", "INVALID_TOKEN", "PROVIDER_NOT_FOUND", "PROVIDER_ACCOUNTS_ARE_NOT_AVAILABLE_WHILE_IMPERSONATING", "FAILED_TO_GET_USER_INFO"],
      },
      async ({ req, query, session, json }) => {
        const info = await call(oauth, oauth.getProviderAccountInfo, { caller: accountHolder(req, session), accountId: query.accountId, providerId: query.providerId });
        json({
          // The provider's avatar only when safe in an <img src>, as every user image this API answers.
          user: info.user ? { ...info.user, ...(info.user.image !== undefined ? { image: safeImage(info.user.image) } : {}) } : {},
          data: info.data ?? {},
          account: { id: info.account?.id, providerId: info.account?.providerId, accountId: info.account?.accountId },
        });
      },
    ),
  );
  return routes;
}
