/** IdentityService over gRPC: decode, call one use case, encode. */
import { type IdentityServiceServer, IdentityServiceService } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import { AuthError } from "@auth-platform/proto/errors";
import type { RpcServer } from "@auth-platform/proto/rpc-server";
import { requireCaller } from "@auth-platform/runtime/caller";
import type { AccessTable } from "@auth-platform/runtime/grpc-access";
import type { ServiceBinding } from "@auth-platform/runtime/grpc-server";
import { listAccounts, unlinkAccount } from "../domain/accounts.js";
import { changeEmail } from "../domain/change-email.js";
import { deleteUser } from "../domain/delete-user.js";
import { providerTokens, requireConfiguredProvider, storeProviderTokens } from "../domain/provider-tokens.js";
import { linkProviderAccount, signInWithProvider } from "../domain/provider-sign-in.js";
import { isUsernameAvailable } from "../domain/usernames.js";
import { checkResetToken, requestPasswordReset, resetPassword } from "../domain/password-reset.js";
import { changePassword } from "../domain/passwords.js";
import type { Registry } from "../domain/ports.js";
import { signInEmail, signInUsername } from "../domain/sign-in.js";
import { signUpEmail } from "../domain/sign-up.js";
import { updateUser } from "../domain/update-user.js";
import { sendVerificationEmail, verifyEmail } from "../domain/verification.js";
import { IDENTITY_ADMIN_ACCESS, identityAdminHandlers } from "./admin-handlers.js";
import { callerClient, profileFields, toAccountMessage, toClient, toProviderProfile, toSignInResponse, toUserMessage } from "./mappers.js";
import { twoFactorHandlers } from "./two-factor-handlers.js";

const GATEWAY = ["gateway"] as const;

/** The most users one GetUsers call reads (a member page is at most 1000). */
const MAX_BATCH = 1_000;

/**
 * Who may call what (docs/internal-api.md). An RPC that takes a Caller (the signed-in user) is the
 * gateway's alone: only the gateway may assert a caller; a service acting on a user it names has its own RPC.
 */
export const IDENTITY_ACCESS: AccessTable = {
  SignUpEmail: GATEWAY,
  SignInEmail: GATEWAY,
  SignInUsername: GATEWAY,
  // The session service fills its cache with the user; our users' own services read a user.
  GetUser: ["internal-client", "admin"],
  // Member lists show each member's name, email and image: one batched read per request.
  GetUsers: ["organization"],
  SendVerificationEmail: GATEWAY,
  VerifyEmail: GATEWAY,
  RequestPasswordReset: GATEWAY,
  CheckResetToken: GATEWAY,
  ResetPassword: GATEWAY,
  ChangeEmail: GATEWAY,
  ChangePassword: GATEWAY,
  UpdateUser: GATEWAY,
  DeleteUser: GATEWAY,
  ListAccounts: GATEWAY,
  UnlinkAccount: GATEWAY,
  IsUsernameAvailable: GATEWAY,
  GetProviderTokens: GATEWAY,
  GetProviderAccountInfo: GATEWAY,
  EnableTwoFactor: GATEWAY,
  DisableTwoFactor: GATEWAY,
  GetTotpUri: GATEWAY,
  GenerateBackupCodes: GATEWAY,
  VerifyTotp: GATEWAY,
  SendTwoFactorOtp: GATEWAY,
  VerifyTwoFactorOtp: GATEWAY,
  VerifyBackupCode: GATEWAY,
  ListTrustedDevices: GATEWAY,
  RevokeTrustedDevice: GATEWAY,
  ...IDENTITY_ADMIN_ACCESS,
  SignInWithProvider: ["oauth"],
  LinkProviderAccount: ["oauth"],
  // oauth reads the tokens to renew them (refresh-token) and to read the provider's profile (account-info).
  LoadProviderTokens: ["oauth"],
  StoreProviderTokens: ["oauth"],
};

export function identityService(registry: Registry, rpc: RpcServer): ServiceBinding {
  const implementation: IdentityServiceServer = {
    signUpEmail: rpc.unary("SignUpEmail", async (req, { deadline }) => {
      const { user, session } = await signUpEmail(registry, {
        name: req.name,
        email: req.email,
        password: req.password,
        image: req.image,
        username: req.username,
        displayUsername: req.displayUsername,
        extraFields: req.extraFields ?? {},
        rememberMe: req.rememberMe,
        client: toClient(req.client),
        callbackUrl: req.callbackUrl,
        deadline,
      });
      return { user: toUserMessage(user), session };
    }),
    signInEmail: rpc.unary("SignInEmail", async (req, { deadline }) => {
      const outcome = await signInEmail(registry, {
        email: req.email,
        password: req.password,
        rememberMe: req.rememberMe,
        client: toClient(req.client),
        trustedDevice: req.trustedDevice,
        deadline,
      });
      return toSignInResponse(outcome);
    }),
    signInUsername: rpc.unary("SignInUsername", async (req, { deadline }) => {
      const outcome = await signInUsername(registry, {
        username: req.username,
        password: req.password,
        rememberMe: req.rememberMe,
        client: toClient(req.client),
        trustedDevice: req.trustedDevice,
        deadline,
      });
      return toSignInResponse(outcome);
    }),
    getUser: rpc.unary("GetUser", async (req) => {
      const user = await registry.store.findUserById(req.id);
      if (!user) throw new AuthError("USER_NOT_FOUND");
      return { user: toUserMessage(user) };
    }),
    getUsers: rpc.unary("GetUsers", async (req) => {
      if (req.ids.length > MAX_BATCH || req.emails.length > MAX_BATCH) throw new AuthError("VALIDATION_ERROR", `at most ${MAX_BATCH} ids and ${MAX_BATCH} emails`);
      const users = await registry.store.findUsers(
        req.ids,
        req.emails.map((email) => email.toLowerCase()),
      );
      return { users: users.map(toUserMessage) };
    }),
    sendVerificationEmail: rpc.unary("SendVerificationEmail", async (req) => {
      await sendVerificationEmail(registry, { email: req.email, callbackUrl: req.callbackUrl });
      return {};
    }),
    verifyEmail: rpc.unary("VerifyEmail", async (req) => {
      // Opened signed in or not; a caller sent must name a user and a session.
      const sessionUserId = req.caller && requireCaller(req.caller).userId;
      const { user, session } = await verifyEmail(registry, { token: req.token, client: toClient(req.client), sessionUserId });
      return { user: toUserMessage(user), session };
    }),
    requestPasswordReset: rpc.unary("RequestPasswordReset", async (req) => {
      await requestPasswordReset(registry, { email: req.email, redirectTo: req.redirectTo });
      return {};
    }),
    checkResetToken: rpc.unary("CheckResetToken", async (req) => {
      await checkResetToken(registry, req.token);
      return {};
    }),
    resetPassword: rpc.unary("ResetPassword", async (req, { deadline }) => {
      const { userId, removed } = await resetPassword(registry, { token: req.token, newPassword: req.newPassword, deadline });
      return { userId, providerAccountsRemoved: removed.providerAccounts, twoFactorRemoved: removed.twoFactor };
    }),
    changeEmail: rpc.unary("ChangeEmail", async (req) => {
      await changeEmail(registry, { userId: requireCaller(req.caller).userId, newEmail: req.newEmail, callbackUrl: req.callbackUrl });
      return {};
    }),
    changePassword: rpc.unary("ChangePassword", async (req, { deadline }) => {
      const caller = requireCaller(req.caller);
      const { user, session } = await changePassword(registry, {
        userId: caller.userId,
        currentPassword: req.currentPassword,
        newPassword: req.newPassword,
        revokeOtherSessions: req.revokeOtherSessions,
        caller,
        client: callerClient(caller),
        deadline,
      });
      return { user: toUserMessage(user), session };
    }),
    updateUser: rpc.unary("UpdateUser", async (req) => {
      const { userId } = requireCaller(req.caller);
      return { user: toUserMessage(await updateUser(registry, { userId, fields: profileFields(req) })) };
    }),
    deleteUser: rpc.unary("DeleteUser", async (req, { deadline }) => {
      const caller = requireCaller(req.caller);
      return deleteUser(registry, {
        userId: caller.userId,
        password: req.password,
        token: req.token,
        callbackUrl: req.callbackUrl,
        caller,
        deadline,
      });
    }),
    listAccounts: rpc.unary("ListAccounts", async (req) => ({
      accounts: (await listAccounts(registry, requireCaller(req.caller).userId)).map(toAccountMessage),
    })),
    unlinkAccount: rpc.unary("UnlinkAccount", async (req) => {
      const caller = requireCaller(req.caller);
      await unlinkAccount(registry, { userId: caller.userId, id: req.id, providerId: req.providerId, accountId: req.accountId, caller });
      return {};
    }),
    isUsernameAvailable: rpc.unary("IsUsernameAvailable", async (req) => ({ available: await isUsernameAvailable(registry, req.username) })),
    getProviderTokens: rpc.unary("GetProviderTokens", async (req) => {
      const selection = { userId: requireCaller(req.caller).userId, accountId: req.accountId, providerId: req.providerId };
      if (req.refresh) return requireConfiguredProvider(registry, selection);
      const { account, ...tokens } = await providerTokens(registry, selection);
      return { account: toAccountMessage(account), ...tokens };
    }),
    getProviderAccountInfo: rpc.unary("GetProviderAccountInfo", async (req) =>
      requireConfiguredProvider(registry, { userId: requireCaller(req.caller).userId, accountId: req.accountId, providerId: req.providerId }),
    ),
    ...twoFactorHandlers(registry, rpc),
    ...identityAdminHandlers(registry, rpc),
    signInWithProvider: rpc.unary("SignInWithProvider", async (req) => {
      const outcome = await signInWithProvider(registry, {
        profile: toProviderProfile(req.profile),
        trusted: req.trusted,
        disableImplicitLinking: req.disableImplicitLinking,
        client: toClient(req.client),
        trustedDevice: req.trustedDevice,
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
  };
  return {
    definition: IdentityServiceService,
    implementation: implementation as unknown as ServiceBinding["implementation"],
    name: "auth.identity.v1.IdentityService",
    access: IDENTITY_ACCESS,
  };
}
