/**
 * PasskeyService over gRPC: decode, call one use case, encode. Registration and the list, rename and delete
 * act for the caller (requireCaller); the sign-in RPCs take the ceremony's attempt token.
 */
import { type Passkey, type PasskeyCeremony, type PasskeyServiceServer, PasskeyServiceService } from "@auth-platform/proto/gen/auth/identity/v1/passkey";
import type { RpcServer } from "@auth-platform/proto/rpc-server";
import { requireCaller } from "@auth-platform/runtime/caller";
import type { AccessTable } from "@auth-platform/runtime/grpc-access";
import { languageOr } from "@auth-platform/runtime/language";
import type { ServiceBinding } from "@auth-platform/runtime/grpc-server";
import {
  type Ceremony,
  deletePasskey,
  finishPasskeyRegistration,
  listPasskeys,
  renamePasskey,
  signInWithPasskey,
  startPasskeyAuthentication,
  startPasskeyRegistration,
} from "../domain/passkeys.js";
import type { Registry } from "../domain/ports.js";
import { answerChallenge } from "../domain/two-factor-challenge.js";
import type { PasskeyRecord } from "../store/passkey-store.js";
import { toClient, toUserMessage } from "./mappers.js";

const GATEWAY = ["gateway"] as const;

/** Who may call what (docs/internal-api.md): the gateway alone, for the caller or a sign-in. */
export const PASSKEY_ACCESS: AccessTable = {
  StartPasskeyRegistration: GATEWAY,
  FinishPasskeyRegistration: GATEWAY,
  StartPasskeyAuthentication: GATEWAY,
  SignInWithPasskey: GATEWAY,
  VerifyTwoFactorPasskey: GATEWAY,
  ListPasskeys: GATEWAY,
  RenamePasskey: GATEWAY,
  DeletePasskey: GATEWAY,
};

const toPasskeyMessage = (passkey: PasskeyRecord): Passkey => ({
  id: passkey.id,
  userId: passkey.userId,
  name: passkey.name ?? undefined,
  credentialId: passkey.credentialId,
  publicKey: passkey.publicKey,
  counter: String(passkey.counter),
  deviceType: passkey.deviceType,
  backedUp: passkey.backedUp,
  transports: passkey.transports,
  aaguid: passkey.aaguid ?? undefined,
  createdAt: passkey.createdAt,
});

const toCeremony = (ceremony: Ceremony): PasskeyCeremony => ({
  optionsJson: ceremony.options,
  token: ceremony.token,
  expiresAt: ceremony.expiresAt,
  issuedAt: ceremony.issuedAt,
});

const attachment = (value: string | undefined) => (value === "platform" || value === "cross-platform" ? value : undefined);

export function passkeyService(registry: Registry, rpc: RpcServer): ServiceBinding {
  const implementation: PasskeyServiceServer = {
    startPasskeyRegistration: rpc.unary("StartPasskeyRegistration", async (req) => ({
      ceremony: toCeremony(
        await startPasskeyRegistration(registry, { caller: requireCaller(req.caller), name: req.name, authenticatorAttachment: attachment(req.authenticatorAttachment) }),
      ),
    })),
    finishPasskeyRegistration: rpc.unary("FinishPasskeyRegistration", async (req) => ({
      passkey: toPasskeyMessage(await finishPasskeyRegistration(registry, { caller: requireCaller(req.caller), token: req.token, response: req.responseJson, name: req.name })),
    })),
    startPasskeyAuthentication: rpc.unary("StartPasskeyAuthentication", async (req) => ({
      ceremony: toCeremony(await startPasskeyAuthentication(registry, req.userId || undefined)),
    })),
    signInWithPasskey: rpc.unary("SignInWithPasskey", async (req) => {
      const { user, session } = await signInWithPasskey(registry, {
        token: req.token,
        response: req.responseJson,
        rememberMe: req.rememberMe,
        client: toClient(req.client),
        language: languageOr(req.language),
      });
      return { user: toUserMessage(user), session };
    }),
    verifyTwoFactorPasskey: rpc.unary("VerifyTwoFactorPasskey", async (req) => {
      const { user, session, rememberMe, trustedDevice } = await answerChallenge(registry, {
        token: req.challenge,
        method: "passkey",
        code: req.responseJson,
        passkeyCeremony: req.token,
        trustDevice: req.trustDevice,
        client: toClient(req.client),
      });
      return { user: toUserMessage(user), session, rememberMe, trustedDevice };
    }),
    listPasskeys: rpc.unary("ListPasskeys", async (req) => ({
      passkeys: (await listPasskeys(registry, requireCaller(req.caller).userId)).map(toPasskeyMessage),
    })),
    renamePasskey: rpc.unary("RenamePasskey", async (req) => ({
      passkey: toPasskeyMessage(await renamePasskey(registry, requireCaller(req.caller), req.id, req.name)),
    })),
    deletePasskey: rpc.unary("DeletePasskey", async (req) => {
      await deletePasskey(registry, requireCaller(req.caller), req.id);
      return {};
    }),
  };
  return {
    definition: PasskeyServiceService,
    implementation: implementation as unknown as ServiceBinding["implementation"],
    name: "auth.identity.v1.PasskeyService",
    access: PASSKEY_ACCESS,
  };
}
