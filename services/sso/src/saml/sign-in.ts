/**
 * A SAML sign-in in two steps (docs/adr/0069-saml-service-provider.md). `startSamlSignIn` sends the browser
 * to the IdP with an AuthnRequest and a RelayState, keeping (RelayState → request ID, provider, where to
 * go after) for ten minutes; `completeSamlSignIn` takes that record back once, checks the response against
 * the request it names, claims the assertion and reads the user's profile. What the profile then becomes
 * (a user, a membership, a session) is the sso service's sign-in code, shared with OpenID Connect.
 */
import { createHash, randomBytes } from "node:crypto";
import { type SamlProfile, samlProfile } from "./profile.js";
import type { SamlReplayStore } from "./replay.js";
import { acceptSamlResponse, authnRequest, SamlRefusal } from "./service-provider.js";
import { providerSettings, type StoredSamlSettings } from "./settings.js";

/** How long the IdP has to answer our AuthnRequest. */
export const SAML_REQUEST_TTL_MS = 10 * 60_000;

export interface PendingSamlRequest {
  /** SHA-256 of the RelayState (base64url): the RelayState itself is a bearer value, not stored. */
  relayStateHash: string;
  providerId: string;
  requestId: string;
  callbackUrl: string;
  errorCallbackUrl: string | null;
  newUserCallbackUrl: string | null;
  expiresAt: Date;
}

export interface SamlRequestStore {
  put(request: PendingSamlRequest): Promise<void>;
  /** Removes and returns the request (null when unknown or expired): a RelayState is used once. */
  take(relayStateHash: string, now: Date): Promise<PendingSamlRequest | null>;
}

export function memorySamlRequestStore(): SamlRequestStore {
  const pending = new Map<string, PendingSamlRequest>();
  return {
    async put(request) {
      pending.set(request.relayStateHash, request);
    },
    async take(relayStateHash, now) {
      const request = pending.get(relayStateHash) ?? null;
      pending.delete(relayStateHash);
      return request && request.expiresAt > now ? request : null;
    },
  };
}

/** The SAML side of a provider record, as sign-in needs it. */
export interface SamlProviderRef {
  providerId: string;
  saml: StoredSamlSettings;
}

export interface SamlSignInDeps {
  requests: SamlRequestStore;
  replays: SamlReplayStore;
  now: () => Date;
  /** The platform's public `.../api/auth` address. */
  authBaseUrl: string;
}

export function relayStateHash(relayState: string): string {
  return createHash("sha256").update(relayState).digest("base64url");
}

export async function startSamlSignIn(
  deps: SamlSignInDeps,
  provider: SamlProviderRef,
  after: { callbackUrl: string; errorCallbackUrl: string | null; newUserCallbackUrl: string | null },
): Promise<{ redirectUrl: string }> {
  const relayState = randomBytes(32).toString("base64url");
  const settings = providerSettings(deps.authBaseUrl, provider.providerId, provider.saml);
  const { requestId, redirectUrl } = authnRequest(settings, relayState);
  await deps.requests.put({
    relayStateHash: relayStateHash(relayState),
    providerId: provider.providerId,
    requestId,
    ...after,
    expiresAt: new Date(deps.now().getTime() + SAML_REQUEST_TTL_MS),
  });
  return { redirectUrl };
}

export interface CompletedSamlSignIn {
  profile: SamlProfile;
  /** The sign-in this response answers; null for an IdP-initiated one. */
  request: PendingSamlRequest | null;
}

export async function completeSamlSignIn(
  deps: SamlSignInDeps,
  provider: SamlProviderRef,
  input: { samlResponse: string; relayState: string | null },
): Promise<CompletedSamlSignIn> {
  const now = deps.now();
  // An unknown RelayState is treated as none: the response must then be IdP-initiated (no InResponseTo).
  const request = input.relayState ? await deps.requests.take(relayStateHash(input.relayState), now) : null;
  if (request && request.providerId !== provider.providerId) throw new SamlRefusal("in_response_to");
  const settings = providerSettings(deps.authBaseUrl, provider.providerId, provider.saml);
  const assertion = await acceptSamlResponse(settings, { samlResponse: input.samlResponse, expectedRequestId: request?.requestId ?? null, now }, deps.replays);
  return { profile: samlProfile(assertion, provider.saml.mapping), request };
}
