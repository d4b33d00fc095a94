/**
 * TwoFactorService over gRPC: decode, call one use case, encode. Enrolment and trusted devices act for the
 * caller (requireCaller); the Verify* RPCs answer a sign-in challenge or check the caller's code.
 */
import { type TwoFactorServiceServer, TwoFactorServiceService } from "@auth-platform/proto/gen/auth/identity/v1/two_factor";
import { AuthError } from "@auth-platform/proto/errors";
import type { RpcServer } from "@auth-platform/proto/rpc-server";
import { type Caller, requireCaller } from "@auth-platform/runtime/caller";
import type { AccessTable } from "@auth-platform/runtime/grpc-access";
import { languageOr } from "@auth-platform/runtime/language";
import type { ServiceBinding } from "@auth-platform/runtime/grpc-server";
import type { SessionRotation } from "@auth-platform/proto/gen/auth/identity/v1/two_factor";
import type { Rotation } from "../domain/open-session.js";
import type { Registry } from "../domain/ports.js";
import { listTrustedDevices, revokeTrustedDevice } from "../domain/trusted-devices.js";
import { disableTwoFactor, enableTwoFactor, generateBackupCodes, getTotpUri, verifySignedInUser } from "../domain/two-factor.js";
import { answerChallenge, sendChallengeOtp } from "../domain/two-factor-challenge.js";
import { callerClient, toClient, toUserMessage } from "./mappers.js";

const GATEWAY = ["gateway"] as const;

/** Who may call what (docs/internal-api.md): the gateway, for a challenged sign-in or the caller. */
export const TWO_FACTOR_ACCESS: AccessTable = {
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
};

/** The request of the three Verify* RPCs (one shape). */
interface VerifyRequest {
  code: string;
  challenge?: string | undefined;
  caller?: Caller | undefined;
  trustDevice: boolean;
  client?: { ipAddress?: string | undefined; userAgent?: string | undefined } | undefined;
  rotation?: SessionRotation | undefined;
}

/** The caller's session to rotate, when the gateway asks (a gateway of the previous release does not). */
function rotationOf(caller: Caller, rotation: SessionRotation | undefined): Rotation | undefined {
  if (!rotation) return undefined;
  return { sessionId: caller.sessionId, impersonatedBy: caller.impersonatedBy, rememberMe: rotation.rememberMe, client: callerClient(caller) };
}

export function twoFactorService(registry: Registry, rpc: RpcServer): ServiceBinding {
  /** A challenge (sign-in) or the signed-in user, never both and never neither. */
  const verify = (method: "totp" | "otp" | "backup-code") => async (req: VerifyRequest) => {
    if (Boolean(req.challenge) === Boolean(req.caller)) throw new AuthError("VALIDATION_ERROR", "exactly one of challenge and caller is required");
    if (req.challenge) {
      const { user, session, rememberMe, trustedDevice } = await answerChallenge(registry, {
        token: req.challenge,
        method,
        code: req.code,
        trustDevice: req.trustDevice,
        client: toClient(req.client),
      });
      return { user: toUserMessage(user), session, trustedDevice, rememberMe };
    }
    const caller = requireCaller(req.caller);
    // A signed-in user has no challenge, so no mailed code to check.
    if (method === "otp") throw new AuthError("INVALID_TWO_FACTOR_COOKIE");
    const { user, session } = await verifySignedInUser(registry, { userId: caller.userId, method, code: req.code, rotation: rotationOf(caller, req.rotation) });
    return { user: toUserMessage(user), session, rememberMe: req.rotation?.rememberMe ?? false };
  };
  const implementation: TwoFactorServiceServer = {
    enableTwoFactor: rpc.unary("EnableTwoFactor", async (req, { deadline }) => {
      const { userId } = requireCaller(req.caller);
      const { totpUri, backupCodes } = await enableTwoFactor(registry, { userId, password: req.password, issuer: req.issuer, deadline });
      return { totpUri, backupCodes };
    }),
    disableTwoFactor: rpc.unary("DisableTwoFactor", async (req, { deadline }) => {
      const caller = requireCaller(req.caller);
      const { user, session } = await disableTwoFactor(registry, { userId: caller.userId, password: req.password, deadline, rotation: rotationOf(caller, req.rotation) });
      return { user: toUserMessage(user), session };
    }),
    getTotpUri: rpc.unary("GetTotpUri", async (req, { deadline }) => ({
      totpUri: await getTotpUri(registry, { userId: requireCaller(req.caller).userId, password: req.password, deadline }),
    })),
    generateBackupCodes: rpc.unary("GenerateBackupCodes", async (req, { deadline }) => ({
      backupCodes: await generateBackupCodes(registry, { userId: requireCaller(req.caller).userId, password: req.password, deadline }),
    })),
    verifyTotp: rpc.unary("VerifyTotp", verify("totp")),
    sendTwoFactorOtp: rpc.unary("SendTwoFactorOtp", async (req) => {
      await sendChallengeOtp(registry, req.challenge, languageOr(req.language));
      return {};
    }),
    verifyTwoFactorOtp: rpc.unary("VerifyTwoFactorOtp", verify("otp")),
    verifyBackupCode: rpc.unary("VerifyBackupCode", verify("backup-code")),
    listTrustedDevices: rpc.unary("ListTrustedDevices", async (req) => ({
      devices: (await listTrustedDevices(registry, requireCaller(req.caller).userId)).map((device) => ({
        id: device.id,
        userAgent: device.userAgent ?? undefined,
        ipAddress: device.ipAddress ?? undefined,
        createdAt: device.createdAt,
        lastUsedAt: device.lastUsedAt,
        expiresAt: device.expiresAt,
      })),
    })),
    revokeTrustedDevice: rpc.unary("RevokeTrustedDevice", async (req) => {
      await revokeTrustedDevice(registry, requireCaller(req.caller).userId, req.id);
      return {};
    }),
  };
  return {
    definition: TwoFactorServiceService,
    implementation: implementation as unknown as ServiceBinding["implementation"],
    name: "auth.identity.v1.TwoFactorService",
    access: TWO_FACTOR_ACCESS,
  };
}
