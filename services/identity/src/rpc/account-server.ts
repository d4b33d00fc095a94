/**
 * AccountService over gRPC (the users' linked accounts): the signed-in user's list, unlink and provider
 * tokens, for the gateway with the caller; provider sign-in, linking and token storage, for oauth naming the
 * user. Decode, call one use case, encode.
 */
import { type AccountServiceServer, AccountServiceService } from "@auth-platform/proto/gen/auth/identity/v1/account";
import { AuthError } from "@auth-platform/proto/errors";
import type { RpcServer } from "@auth-platform/proto/rpc-server";
import { requireCaller } from "@auth-platform/runtime/caller";
import { type AccessTable, requireWorkload, type Workload } from "@auth-platform/runtime/grpc-access";
import type { ServiceBinding } from "@auth-platform/runtime/grpc-server";
import { listAccounts, unlinkAccount } from "../domain/accounts.js";
import { setPassword } from "../domain/passwords.js";
import type { Registry } from "../domain/ports.js";
import { checkProviderLink, linkProviderAccount, signInWithProvider } from "../domain/provider-sign-in.js";
import { providerTokens, requireConfiguredProvider, storeProviderTokens } from "../domain/provider-tokens.js";
import { toAccountMessage, toClient, toProviderProfile, toSignInResponse } from "./mappers.js";

const GATEWAY = ["gateway"] as const;
const OAUTH = ["oauth"] as const;

/** Who may call what (docs/internal-api.md): the caller's RPCs are the gateway's, the named user's oauth's. */
export const ACCOUNT_ACCESS: AccessTable = {
  ListAccounts: GATEWAY,
  UnlinkAccount: GATEWAY,
  GetProviderTokens: GATEWAY,
  GetProviderAccountInfo: GATEWAY,
  // sso signs in through an organization's provider (docs/adr/0067-the-sso-service.md).
  SignInWithProvider: ["oauth", "sso"],
  LinkProviderAccount: OAUTH,
  CheckProviderLink: OAUTH,
  // oauth reads the tokens to renew them (refresh-token) and to read the provider's profile (account-info).
  LoadProviderTokens: OAUTH,
  StoreProviderTokens: OAUTH,
  SetPassword: GATEWAY,
};

/** Who may ask a provider sign-in to make the user a member of an organization: sso, whose providers belong to one. */
const ORGANIZATION_JOINERS: readonly Workload[] = ["sso"];

export function accountService(registry: Registry, rpc: RpcServer): ServiceBinding {
  const mutualTls = registry.config.grpc.tls.kind === "mtls";
  const implementation: AccountServiceServer = {
    listAccounts: rpc.unary("ListAccounts", async (req) => ({
      accounts: (await listAccounts(registry, requireCaller(req.caller).userId)).map(toAccountMessage),
    })),
    unlinkAccount: rpc.unary("UnlinkAccount", async (req) => {
      const caller = requireCaller(req.caller);
      await unlinkAccount(registry, { userId: caller.userId, id: req.id, providerId: req.providerId, accountId: req.accountId, caller });
      return {};
    }),
    getProviderTokens: rpc.unary("GetProviderTokens", async (req) => {
      const selection = { userId: requireCaller(req.caller).userId, accountId: req.accountId, providerId: req.providerId };
      if (req.refresh) return requireConfiguredProvider(registry, selection);
      const { account, ...tokens } = await providerTokens(registry, selection);
      return { account: toAccountMessage(account), ...tokens };
    }),
    getProviderAccountInfo: rpc.unary("GetProviderAccountInfo", async (req) =>
      requireConfiguredProvider(registry, { userId: requireCaller(req.caller).userId, accountId: req.accountId, providerId: req.providerId }),
    ),
    signInWithProvider: rpc.unary("SignInWithProvider", async (req, { caller }) => {
      const join = req.joinOrganization;
      if (join)
        requireWorkload({ log: registry.log, mutualTls, method: "auth.identity.v1.AccountService/SignInWithProvider" }, caller, ORGANIZATION_JOINERS, {
          field: "joinOrganization",
        });
      if (join && (!join.organizationId || !join.role)) throw new AuthError("VALIDATION_ERROR", "joinOrganization needs organizationId and role");
      const outcome = await signInWithProvider(registry, {
        profile: toProviderProfile(req.profile),
        trusted: req.trusted,
        disableImplicitLinking: req.disableImplicitLinking,
        client: toClient(req.client),
        trustedDevice: req.trustedDevice,
        sso: req.sso,
        joinOrganization: join,
      });
      return { ...toSignInResponse(outcome), isNewUser: outcome.isNewUser };
    }),
    loadProviderTokens: rpc.unary("LoadProviderTokens", async (req) => {
      const { account, ...tokens } = await providerTokens(registry, { userId: req.userId, accountId: req.accountId, providerId: req.providerId });
      return { account: toAccountMessage(account), ...tokens };
    }),
    storeProviderTokens: rpc.unary("StoreProviderTokens", async (req) => {
      if (!req.accountId) throw new AuthError("VALIDATION_ERROR", "accountId is required");
      const t = req.tokens;
      await storeProviderTokens(
        registry,
        { userId: req.userId, accountId: req.accountId },
        {
          accessToken: t?.accessToken,
          refreshToken: t?.refreshToken,
          idToken: t?.idToken,
          accessTokenExpiresAt: t?.accessTokenExpiresAt,
          refreshTokenExpiresAt: t?.refreshTokenExpiresAt,
          scopes: t?.scopes ?? [],
        },
      );
      return {};
    }),
    linkProviderAccount: rpc.unary("LinkProviderAccount", async (req) => ({
      account: toAccountMessage(await linkProviderAccount(registry, req.userId, toProviderProfile(req.profile))),
    })),
    setPassword: rpc.unary("SetPassword", async (req, { deadline }) => {
      const caller = requireCaller(req.caller);
      await setPassword(registry, { userId: caller.userId, newPassword: req.newPassword, caller, deadline });
      return {};
    }),
    checkProviderLink: rpc.unary("CheckProviderLink", async (req) => {
      if (!req.userId || !req.providerId) throw new AuthError("VALIDATION_ERROR", "userId and providerId are required");
      await checkProviderLink(registry, req.userId, req.providerId);
      return {};
    }),
  };
  return {
    definition: AccountServiceService,
    implementation: implementation as unknown as ServiceBinding["implementation"],
    name: "auth.identity.v1.AccountService",
    access: ACCOUNT_ACCESS,
  };
}
