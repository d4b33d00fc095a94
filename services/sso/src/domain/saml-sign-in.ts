/**
 * The two legs of a SAML sign-in after the IdP (docs/adr/0069-saml-service-provider.md). The ACS takes the
 * IdP's cross-site POST, which carries no SameSite=Lax cookie: the response is checked and its assertion
 * claimed there, and what it says is kept under a one-time handoff code. The browser's GET that follows
 * carries the state cookie: the sign-in completes only when that cookie names the RelayState this sign-in
 * started with, so an attacker cannot post their own assertion into a victim's browser (login CSRF).
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { AuthError, type ErrorCode, redirectErrorCode } from "@auth-platform/proto/errors";
import { describeError } from "@auth-platform/runtime/log";
import { acceptSamlAssertion, bearerHash, type PendingSamlRequest, SAML_HANDOFF_TTL_MS, takeSamlRequest } from "../saml/sign-in.js";
import { providerSettings, readSamlSettings } from "../saml/settings.js";
import { SamlRefusal, serviceProviderMetadata } from "../saml/service-provider.js";
import type { Registry } from "./ports.js";
import { codeOf, completeForProvider, type SsoCallbackInput, type SsoCallbackOutcome, samlDepsOf } from "./sign-in.js";

export type SamlAcceptOutcome = { kind: "accepted"; handoff: string } | { kind: "failed"; error: string; errorUrl?: string };

async function samlProvider(deps: Registry, providerId: string) {
  const provider = await deps.store.getProvider(providerId);
  if (!provider?.enabled || provider.type !== "saml" || !provider.saml) return null;
  return { providerId: provider.providerId, saml: readSamlSettings(provider.saml), record: provider };
}

/** The IdP's POST to our ACS: the response checked, the assertion claimed, the profile kept for the browser's GET. */
export async function acceptSamlPost(deps: Registry, input: { providerId: string; samlResponse: string; relayState: string | null }): Promise<SamlAcceptOutcome> {
  const provider = await samlProvider(deps, input.providerId);
  if (!provider) return { kind: "failed", error: codeOf("PROVIDER_NOT_FOUND") };
  const saml = samlDepsOf(deps);
  let request: PendingSamlRequest | null = null;
  try {
    request = await takeSamlRequest(saml, provider, input.relayState);
    const profile = await acceptSamlAssertion(saml, provider, input.samlResponse, request);
    const handoff = randomBytes(32).toString("base64url");
    await deps.store.saml.putHandoff({
      handoffHash: bearerHash(handoff),
      providerId: provider.providerId,
      relayStateHash: request?.relayStateHash ?? null,
      profile,
      callbackUrl: request?.callbackUrl ?? null,
      errorCallbackUrl: request?.errorCallbackUrl ?? null,
      newUserCallbackUrl: request?.newUserCallbackUrl ?? null,
      expiresAt: new Date(deps.now().getTime() + SAML_HANDOFF_TTL_MS),
    });
    return { kind: "accepted", handoff };
  } catch (error) {
    const errorUrl = request?.errorCallbackUrl ?? undefined;
    if (error instanceof SamlRefusal) {
      // The reason is for the operator; the browser learns only that the response was refused.
      deps.log.warn("sso saml: response refused", { providerId: provider.providerId, reason: error.reason });
      return { kind: "failed", error: codeOf("INVALID_SAML_RESPONSE"), errorUrl };
    }
    if (error instanceof AuthError) return { kind: "failed", error: codeOf(error.code as ErrorCode), errorUrl };
    throw error;
  }
}

const sameHash = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** The browser's GET after the ACS: the handoff taken once, the browser's state checked, the user signed in. */
export async function completeSamlHandoff(
  deps: Registry,
  input: { providerId: string; handoff: string; browserState: string | null } & Pick<SsoCallbackInput, "client" | "trustedDevice">,
): Promise<SsoCallbackOutcome> {
  const handoff = await deps.store.saml.takeHandoff(bearerHash(input.handoff), deps.now());
  if (!handoff || handoff.providerId !== input.providerId) return { kind: "failed", error: codeOf("STATE_NOT_FOUND") };
  const errorUrl = handoff.errorCallbackUrl ?? undefined;
  // A sign-in this browser started must come back to this browser; an IdP-initiated one started nowhere.
  if (handoff.relayStateHash !== null && !(input.browserState && sameHash(bearerHash(input.browserState), handoff.relayStateHash))) {
    return { kind: "failed", error: codeOf("PLEASE_RESTART_THE_PROCESS"), errorUrl };
  }
  const provider = await deps.store.getProvider(handoff.providerId);
  if (!provider?.enabled) return { kind: "failed", error: codeOf("PROVIDER_NOT_FOUND"), errorUrl };
  try {
    const result = await completeForProvider(deps, provider, { ...handoff.profile, providerId: provider.providerId }, input);
    const redirectUrl = (result.isNewUser ? (handoff.newUserCallbackUrl ?? handoff.callbackUrl) : handoff.callbackUrl) ?? undefined;
    return { kind: "signed-in", redirectUrl, ...result };
  } catch (error) {
    const code = redirectErrorCode("socialCallback", error);
    if (!code || code === "internal_server_error") deps.log.error("sso saml sign-in failed", { providerId: provider.providerId, error: describeError(error) });
    return { kind: "failed", error: code ?? "internal_server_error", errorUrl };
  }
}

/** Our SP metadata for a SAML provider, served whether or not the provider is enabled yet (the admin needs it first). */
export async function serviceProviderMetadataOf(deps: Registry, providerId: string): Promise<string> {
  const provider = await deps.store.getProvider(providerId);
  if (provider?.type !== "saml" || !provider.saml) throw new AuthError("PROVIDER_NOT_FOUND");
  const settings = readSamlSettings(provider.saml);
  return serviceProviderMetadata(providerSettings(deps.config.baseUrl, provider.providerId, settings));
}
