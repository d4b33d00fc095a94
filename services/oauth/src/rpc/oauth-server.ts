/** OAuthService over gRPC: decode, call one use case, encode. */
import { type OAuthServiceServer, OAuthServiceService } from "@auth-platform/proto/gen/auth/oauth/v1/oauth";
import { AuthError } from "@auth-platform/proto/errors";
import type { RpcServer } from "@auth-platform/proto/rpc-server";
import type { AccessTable } from "@auth-platform/runtime/grpc-access";
import type { ServiceBinding } from "@auth-platform/runtime/grpc-server";
import { requireCaller } from "@auth-platform/runtime/caller";
import { completeSignIn } from "../domain/complete-sign-in.js";
import { signInWithIdToken } from "../domain/id-token-sign-in.js";
import { providerAccountInfo, refreshProviderTokens } from "../domain/provider-accounts.js";
import type { Registry } from "../domain/ports.js";
import { startSignIn } from "../domain/start-sign-in.js";
import { toClient } from "./mappers.js";

/** Who may call what (docs/internal-api.md). */
export const OAUTH_ACCESS: AccessTable = {
  ListProviders: ["gateway"],
  StartSignIn: ["gateway"],
  CompleteSignIn: ["gateway"],
  SignInWithIdToken: ["gateway"],
  RefreshProviderTokens: ["gateway"],
  GetProviderAccountInfo: ["gateway"],
};

const MAX_URL = 2048;

export function oauthService(registry: Registry, rpc: RpcServer): ServiceBinding {
  const implementation: OAuthServiceServer = {
    listProviders: rpc.unary("ListProviders", async () => {
      const providers = [...registry.providers.values()];
      return { providerIds: providers.map((p) => p.id), displayNames: Object.fromEntries(providers.flatMap((p) => (p.displayName ? [[p.id, p.displayName]] : []))) };
    }),
    startSignIn: rpc.unary("StartSignIn", async (req) => {
      if (!req.providerId) throw new AuthError("VALIDATION_ERROR", "providerId is required");
      for (const url of [req.callbackUrl, req.errorCallbackUrl, req.newUserCallbackUrl]) {
        if (url !== undefined && (!URL.canParse(url) || url.length > MAX_URL)) throw new AuthError("VALIDATION_ERROR", "callback URLs must be absolute URLs");
      }
      const linkFor = req.linkFor && requireCaller(req.linkFor);
      return startSignIn(registry, {
        providerId: req.providerId,
        callbackUrl: req.callbackUrl,
        errorUrl: req.errorCallbackUrl,
        newUserUrl: req.newUserCallbackUrl,
        link: linkFor && { userId: linkFor.userId, email: linkFor.email },
        scopes: req.scopes,
        loginHint: req.loginHint,
      });
    }),
    completeSignIn: rpc.unary("CompleteSignIn", async (req) => {
      const outcome = await completeSignIn(registry, {
        providerId: req.providerId,
        code: req.code,
        state: req.state,
        error: req.error,
        errorDescription: req.errorDescription,
        client: toClient(req.client),
        userJson: req.userJson,
        iss: req.iss,
        trustedDevice: req.trustedDevice,
      });
      if (outcome.kind === "failed") return { error: outcome.error, errorUrl: outcome.errorUrl, errorDescription: outcome.errorDescription, isNewUser: false };
      if (outcome.kind === "linked") return { redirectUrl: outcome.redirectUrl, isNewUser: false };
      const { redirectUrl, session, user, isNewUser, twoFactor, trustedDevice } = outcome;
      return { redirectUrl, session, user, isNewUser, twoFactor, trustedDevice };
    }),
    signInWithIdToken: rpc.unary("SignInWithIdToken", async (req) => {
      if (!req.providerId || !req.idToken) throw new AuthError("VALIDATION_ERROR", "providerId and idToken are required");
      const expiresAt = req.expiresAt !== undefined ? new Date(Number(req.expiresAt)) : undefined;
      return signInWithIdToken(registry, {
        providerId: req.providerId,
        idToken: req.idToken,
        nonce: req.nonce,
        accessToken: req.accessToken,
        refreshToken: req.refreshToken,
        expiresAt: expiresAt && !Number.isNaN(expiresAt.getTime()) ? expiresAt : undefined,
        client: toClient(req.client),
        trustedDevice: req.trustedDevice,
        user: req.userFirstName || req.userLastName ? { firstName: req.userFirstName, lastName: req.userLastName } : undefined,
      });
    }),
    refreshProviderTokens: rpc.unary("RefreshProviderTokens", async (req) => {
      return refreshProviderTokens(registry, { userId: requireCaller(req.caller).userId, accountId: req.accountId, providerId: req.providerId });
    }),
    getProviderAccountInfo: rpc.unary("GetProviderAccountInfo", async (req) => {
      return providerAccountInfo(registry, { userId: requireCaller(req.caller).userId, accountId: req.accountId, providerId: req.providerId });
    }),
  };
  return {
    definition: OAuthServiceService,
    implementation: implementation as unknown as ServiceBinding["implementation"],
    name: "auth.oauth.v1.OAuthService",
    access: OAUTH_ACCESS,
  };
}
