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
  putHandoff(handoff: SamlHandoff): Promise<void>;
  /** Removes and returns the handoff (null when unknown or expired): a handoff is used once. */
  takeHandoff(handoffHash: string, now: Date): Promise<SamlHandoff | null>;
}

/**
 * An accepted response waiting for the browser's own GET (docs/adr/0069-saml-service-provider.md): the
 * IdP's cross-site POST carries no SameSite=Lax cookie, so the sign-in completes only on the redirect
 * that follows, where the state cookie proves this browser started it.
 */
export interface SamlHandoff {
  /** SHA-256 of the handoff code (base64url): the code itself is a bearer value, not stored. */
  handoffHash: string;
  providerId: string;
  /** The RelayState's hash this browser's state cookie must match; null for an IdP-initiated response. */
  relayStateHash: string | null;
  profile: SamlProfile;
  callbackUrl: string | null;
  errorCallbackUrl: string | null;
  newUserCallbackUrl: string | null;
  expiresAt: Date;
}

/** How long the browser has to follow the ACS's redirect. */
export const SAML_HANDOFF_TTL_MS = 60_000;

export function memorySamlRequestStore(): SamlRequestStore {
  const pending = new Map<string, PendingSamlRequest>();
  const handoffs = new Map<string, SamlHandoff>();
  return {
    async putHandoff(handoff) {
      handoffs.set(handoff.handoffHash, handoff);
    },
    async takeHandoff(handoffHash, now) {
      const handoff = handoffs.get(handoffHash) ?? null;
      handoffs.delete(handoffHash);
      return handoff && handoff.expiresAt > now ? handoff : null;
    },
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

/** The stored form of a bearer value (a RelayState, a handoff code). */
export function bearerHash(relayState: string): string {
  return createHash("sha256").update(relayState).digest("base64url");
}

export async function startSamlSignIn(
  deps: SamlSignInDeps,
  provider: SamlProviderRef,
  after: { callbackUrl: string; errorCallbackUrl: string | null; newUserCallbackUrl: string | null },
): Promise<{ redirectUrl: string; relayState: string }> {
  const relayState = randomBytes(32).toString("base64url");
  const settings = providerSettings(deps.authBaseUrl, provider.providerId, provider.saml);
  const { requestId, redirectUrl } = await authnRequest(settings, relayState);
  await deps.requests.put({
    relayStateHash: bearerHash(relayState),
    providerId: provider.providerId,
    requestId,
    ...after,
    expiresAt: new Date(deps.now().getTime() + SAML_REQUEST_TTL_MS),
  });
  return { redirectUrl, relayState };
}

export interface CompletedSamlSignIn {
  profile: SamlProfile;
  /** The sign-in this response answers; null for an IdP-initiated one. */
  request: PendingSamlRequest | null;
}

/** The pending request a RelayState names (taken once); null for none, an unknown one or another provider's. */
export async function takeSamlRequest(deps: SamlSignInDeps, provider: SamlProviderRef, relayState: string | null): Promise<PendingSamlRequest | null> {
  // An unknown RelayState is treated as none: the response must then be IdP-initiated (no InResponseTo).
  const request = relayState ? await deps.requests.take(bearerHash(relayState), deps.now()) : null;
  if (request && request.providerId !== provider.providerId) throw new SamlRefusal("in_response_to");
  return request;
}

/** Checks the response against the request it must answer (null: IdP-initiated) and reads the user. */
export async function acceptSamlAssertion(deps: SamlSignInDeps, provider: SamlProviderRef, samlResponse: string, request: PendingSamlRequest | null): Promise<SamlProfile> {
  const settings = providerSettings(deps.authBaseUrl, provider.providerId, provider.saml);
  const assertion = await acceptSamlResponse(settings, { samlResponse, expectedRequestId: request?.requestId ?? null, now: deps.now() }, deps.replays);
  return samlProfile(assertion, provider.saml.mapping);
}

export async function completeSamlSignIn(
  deps: SamlSignInDeps,
  provider: SamlProviderRef,
  input: { samlResponse: string; relayState: string | null },
): Promise<CompletedSamlSignIn> {
  const request = await takeSamlRequest(deps, provider, input.relayState);
  return { profile: await acceptSamlAssertion(deps, provider, input.samlResponse, request), request };
}
