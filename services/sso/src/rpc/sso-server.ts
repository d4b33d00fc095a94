/** SsoService over gRPC: decode, call one use case, encode. */
import { type SsoServiceServer, SsoServiceService } from "@auth-platform/proto/gen/auth/sso/v1/sso";
import { AuthError } from "@auth-platform/proto/errors";
import type { RpcServer } from "@auth-platform/proto/rpc-server";
import { requireCaller } from "@auth-platform/runtime/caller";
import type { AccessTable } from "@auth-platform/runtime/grpc-access";
import type { ServiceBinding } from "@auth-platform/runtime/grpc-server";
import type { Registry } from "../domain/ports.js";
import * as providers from "../domain/providers.js";
import * as samlSignIn from "../domain/saml-sign-in.js";
import * as signIn from "../domain/sign-in.js";
import { testProvider } from "../domain/test-provider.js";
import { samlInputFromMessage } from "../saml/messages.js";
import { toProviderMessage } from "./mappers.js";
import * as valid from "./validation.js";

const GATEWAY = ["gateway"] as const;

/** Who may call what (docs/internal-api.md). */
export const SSO_ACCESS: AccessTable = {
  RegisterProvider: GATEWAY,
  ListProviders: GATEWAY,
  GetProvider: GATEWAY,
  UpdateProvider: GATEWAY,
  DeleteProvider: GATEWAY,
  TestProvider: GATEWAY,
  StartSignIn: GATEWAY,
  CompleteSignIn: GATEWAY,
  AcceptSamlResponse: GATEWAY,
  CompleteSamlSignIn: GATEWAY,
  GetServiceProviderMetadata: GATEWAY,
};

/** A sign-in outcome on the wire: failures are answers, not errors. */
function outcomeMessage(outcome: signIn.SsoCallbackOutcome) {
  if (outcome.kind === "failed") return { error: outcome.error, errorUrl: outcome.errorUrl, errorDescription: outcome.errorDescription, isNewUser: false };
  const { kind: _kind, ...signedIn } = outcome;
  return signedIn;
}

export function ssoService(registry: Registry, rpc: RpcServer): ServiceBinding {
  const implementation: SsoServiceServer = {
    registerProvider: rpc.unary("RegisterProvider", async (req) => {
      const caller = requireCaller(req.caller);
      if (!req.oidc === !req.saml) throw new AuthError("VALIDATION_ERROR", "give either oidcConfig or samlConfig");
      const provider = await providers.registerProvider(registry, caller, {
        providerId: valid.providerId(req.providerId),
        issuer: valid.url("issuer", req.issuer),
        domain: valid.domain(req.domain),
        organizationId: req.organizationId === undefined ? undefined : valid.id("organizationId", req.organizationId),
        oidc: req.oidc && valid.oidc(req.oidc),
        saml: req.saml && samlInputFromMessage(req.saml),
        defaultRole: req.defaultRole === undefined ? undefined : valid.role(req.defaultRole),
        enabled: req.enabled,
      });
      return { provider: toProviderMessage(provider, registry.config.baseUrl) };
    }),
    listProviders: rpc.unary("ListProviders", async (req) => {
      const caller = requireCaller(req.caller);
      const organizationId = req.organizationId === undefined ? undefined : valid.id("organizationId", req.organizationId);
      return { providers: (await providers.listProviders(registry, caller, organizationId)).map((p) => toProviderMessage(p, registry.config.baseUrl)) };
    }),
    getProvider: rpc.unary("GetProvider", async (req) => {
      const caller = requireCaller(req.caller);
      return { provider: toProviderMessage(await providers.getProvider(registry, caller, valid.providerId(req.providerId)), registry.config.baseUrl) };
    }),
    updateProvider: rpc.unary("UpdateProvider", async (req) => {
      const caller = requireCaller(req.caller);
      const provider = await providers.updateProvider(registry, caller, {
        providerId: valid.providerId(req.providerId),
        issuer: req.issuer === undefined ? undefined : valid.url("issuer", req.issuer),
        domain: req.domain === undefined ? undefined : valid.domain(req.domain),
        oidc: req.oidc && valid.oidc(req.oidc),
        saml: req.saml && samlInputFromMessage(req.saml),
        defaultRole: req.defaultRole === undefined ? undefined : valid.role(req.defaultRole),
        enabled: req.enabled,
      });
      return { provider: toProviderMessage(provider, registry.config.baseUrl) };
    }),
    deleteProvider: rpc.unary("DeleteProvider", async (req) => {
      await providers.deleteProvider(registry, requireCaller(req.caller), valid.providerId(req.providerId));
      return {};
    }),
    testProvider: rpc.unary("TestProvider", async (req) => testProvider(registry, requireCaller(req.caller), valid.providerId(req.providerId))),
    startSignIn: rpc.unary("StartSignIn", async (req) =>
      signIn.startSignIn(registry, {
        email: req.email === undefined ? undefined : valid.email(req.email),
        providerId: req.providerId === undefined ? undefined : valid.providerId(req.providerId),
        domain: req.domain === undefined ? undefined : valid.domain(req.domain),
        organizationSlug: req.organizationSlug,
        callbackUrl: req.callbackUrl,
        errorUrl: req.errorCallbackUrl,
        newUserUrl: req.newUserCallbackUrl,
      }),
    ),
    completeSignIn: rpc.unary("CompleteSignIn", async (req) => {
      const outcome = await signIn.completeSignIn(registry, {
        providerId: req.providerId,
        code: req.code,
        state: req.state,
        error: req.error,
        errorDescription: req.errorDescription,
        client: { ipAddress: req.client?.ipAddress, userAgent: req.client?.userAgent },
        trustedDevice: req.trustedDevice,
      });
      return outcomeMessage(outcome);
    }),
    acceptSamlResponse: rpc.unary("AcceptSamlResponse", async (req) => {
      const outcome = await samlSignIn.acceptSamlPost(registry, {
        providerId: valid.providerId(req.providerId),
        samlResponse: req.samlResponse,
        relayState: req.relayState ?? null,
      });
      return outcome.kind === "accepted" ? { handoff: outcome.handoff } : { error: outcome.error, errorUrl: outcome.errorUrl };
    }),
    completeSamlSignIn: rpc.unary("CompleteSamlSignIn", async (req) => {
      const outcome = await samlSignIn.completeSamlHandoff(registry, {
        providerId: req.providerId,
        handoff: req.handoff,
        browserState: req.browserState ?? null,
        client: { ipAddress: req.client?.ipAddress, userAgent: req.client?.userAgent },
        trustedDevice: req.trustedDevice,
      });
      return { outcome: outcomeMessage(outcome) };
    }),
    getServiceProviderMetadata: rpc.unary("GetServiceProviderMetadata", async (req) => ({
      xml: await samlSignIn.serviceProviderMetadataOf(registry, valid.providerId(req.providerId)),
    })),
  };
  return {
    definition: SsoServiceService,
    implementation: implementation as unknown as ServiceBinding["implementation"],
    name: "auth.sso.v1.SsoService",
    access: SSO_ACCESS,
  };
}
