/** MailSignInService over gRPC (sign-in by mailed link or code; verification and reset by code), for the gateway alone. */
import { EmailOtpPurpose, type MailSignInServiceServer, MailSignInServiceService } from "@auth-platform/proto/gen/auth/identity/v1/mail_sign_in";
import { AuthError } from "@auth-platform/proto/errors";
import type { RpcServer } from "@auth-platform/proto/rpc-server";
import type { AccessTable } from "@auth-platform/runtime/grpc-access";
import type { ServiceBinding } from "@auth-platform/runtime/grpc-server";
import { languageOr } from "@auth-platform/runtime/language";
import {
  checkEmailOtp,
  type MailSignInOutcome,
  mailSignInOptions,
  requestMagicLink,
  resetPasswordEmailOtp,
  sendEmailOtp,
  signInEmailOtp,
  verifyEmailOtp,
  verifyMagicLink,
} from "../domain/mail-sign-in.js";
import type { Registry } from "../domain/ports.js";
import type { EmailCodePurpose } from "../store/email-code-store.js";
import { toClient, toSignInResponse, toUserMessage } from "./mappers.js";

const GATEWAY = ["gateway"] as const;

/** Who may call what (docs/internal-api.md): every RPC answers a browser's request, through the gateway. */
export const MAIL_SIGN_IN_ACCESS: AccessTable = {
  MailSignInOptions: GATEWAY,
  RequestMagicLink: GATEWAY,
  VerifyMagicLink: GATEWAY,
  SendEmailOtp: GATEWAY,
  CheckEmailOtp: GATEWAY,
  VerifyEmailOtp: GATEWAY,
  SignInEmailOtp: GATEWAY,
  ResetPasswordEmailOtp: GATEWAY,
};

const PURPOSES: ReadonlyMap<EmailOtpPurpose, EmailCodePurpose> = new Map([
  [EmailOtpPurpose.EMAIL_OTP_PURPOSE_SIGN_IN, "sign-in"],
  [EmailOtpPurpose.EMAIL_OTP_PURPOSE_EMAIL_VERIFICATION, "email-verification"],
  [EmailOtpPurpose.EMAIL_OTP_PURPOSE_FORGET_PASSWORD, "forget-password"],
]);

function purposeOf(purpose: EmailOtpPurpose): EmailCodePurpose {
  const known = PURPOSES.get(purpose);
  if (!known) throw new AuthError("VALIDATION_ERROR", "purpose is required");
  return known;
}

const toMailSignInResponse = (outcome: MailSignInOutcome) => ({ ...toSignInResponse(outcome), isNewUser: outcome.isNewUser });

export function mailSignInService(registry: Registry, rpc: RpcServer): ServiceBinding {
  const implementation: MailSignInServiceServer = {
    mailSignInOptions: rpc.unary("MailSignInOptions", async () => mailSignInOptions(registry)),
    requestMagicLink: rpc.unary("RequestMagicLink", async (req) => {
      await requestMagicLink(registry, {
        email: req.email,
        name: req.name,
        callbackUrl: req.callbackUrl,
        newUserCallbackUrl: req.newUserCallbackUrl,
        errorCallbackUrl: req.errorCallbackUrl,
        language: languageOr(req.language),
      });
      return {};
    }),
    verifyMagicLink: rpc.unary("VerifyMagicLink", async (req) =>
      toMailSignInResponse(await verifyMagicLink(registry, { token: req.token, client: toClient(req.client), trustedDevice: req.trustedDevice })),
    ),
    sendEmailOtp: rpc.unary("SendEmailOtp", async (req) => {
      await sendEmailOtp(registry, { email: req.email, purpose: purposeOf(req.purpose), language: languageOr(req.language) });
      return {};
    }),
    checkEmailOtp: rpc.unary("CheckEmailOtp", async (req) => {
      await checkEmailOtp(registry, { email: req.email, purpose: purposeOf(req.purpose), otp: req.otp });
      return {};
    }),
    verifyEmailOtp: rpc.unary("VerifyEmailOtp", async (req) => {
      const { user, session } = await verifyEmailOtp(registry, { email: req.email, otp: req.otp, client: toClient(req.client) });
      return { user: toUserMessage(user), session };
    }),
    signInEmailOtp: rpc.unary("SignInEmailOtp", async (req) =>
      toMailSignInResponse(
        await signInEmailOtp(registry, {
          email: req.email,
          otp: req.otp,
          name: req.name,
          image: req.image,
          client: toClient(req.client),
          trustedDevice: req.trustedDevice,
        }),
      ),
    ),
    resetPasswordEmailOtp: rpc.unary("ResetPasswordEmailOtp", async (req, { deadline }) => {
      const { userId, removed } = await resetPasswordEmailOtp(registry, { email: req.email, otp: req.otp, password: req.password, deadline });
      return { userId, providerAccountsRemoved: removed.providerAccounts, twoFactorRemoved: removed.twoFactor };
    }),
  };
  return {
    definition: MailSignInServiceService,
    implementation: implementation as unknown as ServiceBinding["implementation"],
    name: "auth.identity.v1.MailSignInService",
    access: MAIL_SIGN_IN_ACCESS,
  };
}
