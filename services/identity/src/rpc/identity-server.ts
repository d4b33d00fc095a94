/** IdentityService over gRPC (users, sign-up and sign-in, the signed-in user's own account): decode, call one use case, encode. */
import { type IdentityServiceServer, IdentityServiceService } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import { AuthError } from "@auth-platform/proto/errors";
import type { RpcServer } from "@auth-platform/proto/rpc-server";
import { requireCaller } from "@auth-platform/runtime/caller";
import type { AccessTable } from "@auth-platform/runtime/grpc-access";
import { languageOr } from "@auth-platform/runtime/language";
import type { ServiceBinding } from "@auth-platform/runtime/grpc-server";
import { changeEmail } from "../domain/change-email.js";
import { deleteUser } from "../domain/delete-user.js";
import { isUsernameAvailable } from "../domain/usernames.js";
import { checkResetToken, requestPasswordReset, resetPassword } from "../domain/password-reset.js";
import { changePassword } from "../domain/passwords.js";
import { recordSignInFailureBurst } from "../domain/sign-in-bursts.js";
import type { Registry } from "../domain/ports.js";
import { signInEmail, signInUsername } from "../domain/sign-in.js";
import { signUpEmail } from "../domain/sign-up.js";
import { updateUser } from "../domain/update-user.js";
import { sendVerificationEmail, verifyEmail } from "../domain/verification.js";
import { callerClient, profileFields, toClient, toSignInResponse, toUserMessage } from "./mappers.js";

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
  RecordSignInFailureBurst: GATEWAY,
  // The session service fills its cache with the user; our users' own services read a user.
  GetUser: ["internal-client", "admin"],
  // Member lists show each member's name, email and image, the audit log each named user's name and email:
  // one batched read per request. SCIM provisioning (sso) looks up the user holding an address before it creates one.
  GetUsers: ["organization", "admin", "sso"],
  SendVerificationEmail: GATEWAY,
  VerifyEmail: GATEWAY,
  RequestPasswordReset: GATEWAY,
  CheckResetToken: GATEWAY,
  ResetPassword: GATEWAY,
  ChangeEmail: GATEWAY,
  ChangePassword: GATEWAY,
  UpdateUser: GATEWAY,
  DeleteUser: GATEWAY,
  IsUsernameAvailable: GATEWAY,
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
        language: languageOr(req.language),
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
        language: languageOr(req.language),
        deadline,
      });
      return toSignInResponse(outcome);
    }),
    recordSignInFailureBurst: rpc.unary("RecordSignInFailureBurst", async (req) => {
      await recordSignInFailureBurst(registry, {
        eventId: req.eventId,
        identifier: req.identifier,
        failures: req.failures,
        windowSeconds: req.windowSeconds,
        ipAddresses: req.ipAddresses,
        at: req.at ?? registry.now(),
      });
      return {};
    }),
    signInUsername: rpc.unary("SignInUsername", async (req, { deadline }) => {
      const outcome = await signInUsername(registry, {
        username: req.username,
        password: req.password,
        rememberMe: req.rememberMe,
        client: toClient(req.client),
        trustedDevice: req.trustedDevice,
        language: languageOr(req.language),
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
      await sendVerificationEmail(registry, { email: req.email, callbackUrl: req.callbackUrl, language: languageOr(req.language) });
      return {};
    }),
    verifyEmail: rpc.unary("VerifyEmail", async (req) => {
      // Opened signed in or not; a caller sent must name a user and a session.
      const sessionUserId = req.caller && requireCaller(req.caller).userId;
      const { user, session } = await verifyEmail(registry, {
        token: req.token,
        client: toClient(req.client),
        sessionUserId,
        callbackUrl: req.callbackUrl,
        language: languageOr(req.language),
      });
      return { user: toUserMessage(user), session };
    }),
    requestPasswordReset: rpc.unary("RequestPasswordReset", async (req) => {
      await requestPasswordReset(registry, { email: req.email, redirectTo: req.redirectTo, language: languageOr(req.language) });
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
      await changeEmail(registry, { userId: requireCaller(req.caller).userId, newEmail: req.newEmail, callbackUrl: req.callbackUrl, language: languageOr(req.language) });
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
        language: languageOr(req.language),
        caller,
        deadline,
      });
    }),
    isUsernameAvailable: rpc.unary("IsUsernameAvailable", async (req) => ({ available: await isUsernameAvailable(registry, req.username) })),
  };
  return {
    definition: IdentityServiceService,
    implementation: implementation as unknown as ServiceBinding["implementation"],
    name: "auth.identity.v1.IdentityService",
    access: IDENTITY_ACCESS,
  };
}
