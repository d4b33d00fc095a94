/**
 * Single sign-on through an organization's OpenID Connect provider: the provider chosen (by id, or by a
 * verified domain: docs/adr/0068-a-domain-routes-sign-in-once-verified.md), a state, nonce and PKCE verifier
 * kept for 10 minutes, then at the callback the code exchanged and the id token checked (issuer, audience =
 * our client id, nonce, expiry: openid-client), and the shared completion: identity finds or creates the
 * user under the social linking rules, the user joins the organization, the session says "sso".
 */
import * as oidc from "openid-client";
import { AuthError, type ErrorCode, REDIRECT_ERRORS, redirectErrorCode } from "@auth-platform/proto/errors";
import { describeError } from "@auth-platform/runtime/log";
import { randomString } from "@auth-platform/runtime/random";
import { type SamlSignInDeps, startSamlSignIn } from "../saml/sign-in.js";
import { readSamlSettings } from "../saml/settings.js";
import type { ClaimMapping, ProviderRecord } from "../store/sso-store.js";
import type { Registry, SignInOutcome, SsoProfile } from "./ports.js";

export const STATE_TTL_MS = 10 * 60 * 1000;

export interface StartSsoInput {
  email?: string;
  providerId?: string;
  domain?: string;
  organizationSlug?: string;
  callbackUrl: string;
  errorUrl?: string;
  newUserUrl?: string;
}

const domainOf = (email: string) => email.slice(email.lastIndexOf("@") + 1).toLowerCase();

/** Whether `domain` routes sign-in to the provider: its own verified domain, or one the operator trusts, or one its organization verified. */
async function domainIsVerifiedFor(deps: Pick<Registry, "config" | "store">, provider: ProviderRecord, domain: string): Promise<boolean> {
  if (domain !== provider.domain) return false;
  if (deps.config.trustedDomains.includes("*") || deps.config.trustedDomains.includes(domain)) return true;
  const claim = await deps.store.findVerifiedDomain(domain);
  if (claim) return claim.organizationId === provider.organizationId;
  return provider.domainVerified;
}

/** The enabled provider the request names; PROVIDER_NOT_FOUND for an unknown or disabled one. */
export async function chooseProvider(deps: Pick<Registry, "config" | "store" | "organizations">, input: StartSsoInput): Promise<ProviderRecord> {
  let provider: ProviderRecord | null = null;
  if (input.providerId) provider = await deps.store.getProvider(input.providerId);
  else if (input.domain || input.email) {
    const domain = (input.domain ?? domainOf(input.email!)).toLowerCase();
    provider = await deps.store.findProviderByDomain(domain);
    // The same answer whether a provider exists or not.
    if (!provider || !(await domainIsVerifiedFor(deps, provider, domain))) throw new AuthError("PROVIDER_DOMAIN_HAS_NOT_BEEN_VERIFIED");
  } else if (input.organizationSlug) {
    // The organization's one enabled provider; an unknown slug and a slug without one answer alike.
    const organizationId = await deps.organizations.findOrganizationId(input.organizationSlug);
    const enabled = organizationId ? (await deps.store.listProviders(organizationId)).filter((p) => p.enabled) : [];
    if (enabled.length > 1) throw new AuthError("VALIDATION_ERROR", "the organization has several providers: give providerId");
    provider = enabled[0] ?? null;
  } else throw new AuthError("VALIDATION_ERROR", "give providerId, email, domain or organizationSlug");
  if (!provider?.enabled) throw new AuthError("PROVIDER_NOT_FOUND");
  return provider;
}

export const redirectUriOf = (deps: Pick<Registry, "config">, providerId: string) => `${deps.config.baseUrl}/sso/callback/${encodeURIComponent(providerId)}`;

/** openid-client's configuration for a provider: the discovered endpoints, overridden by the stored ones. */
async function clientOf(deps: Pick<Registry, "discovery" | "secrets" | "config">, provider: ProviderRecord): Promise<oidc.Configuration> {
  const settings = provider.oidc;
  if (!settings) throw new AuthError("INVALID_OIDC_CONFIGURATION");
  const found = await deps.discovery.discover(settings.discoveryEndpoint, { reuse: true });
  const metadata: oidc.ServerMetadata = {
    issuer: found.issuer,
    authorization_endpoint: settings.authorizationEndpoint ?? found.authorizationEndpoint,
    token_endpoint: settings.tokenEndpoint ?? found.tokenEndpoint,
    jwks_uri: settings.jwksEndpoint ?? found.jwksEndpoint,
    userinfo_endpoint: settings.userInfoEndpoint ?? found.userInfoEndpoint ?? undefined,
  };
  const secret = deps.secrets.open(settings.sealedClientSecret, provider.providerId);
  const auth = settings.tokenEndpointAuthentication === "client_secret_basic" ? oidc.ClientSecretBasic(secret) : oidc.ClientSecretPost(secret);
  const config = new oidc.Configuration(metadata, settings.clientId, undefined, auth);
  if (deps.config.allowPrivateAddresses) oidc.allowInsecureRequests(config);
  return config;
}

/** SAML sign-in's state lives in the sso store; its URLs derive from the platform's public address. */
export const samlDepsOf = (deps: Pick<Registry, "store" | "now" | "config">): SamlSignInDeps => ({
  requests: deps.store.saml,
  replays: deps.store.saml,
  now: deps.now,
  authBaseUrl: deps.config.baseUrl,
});

/** The provider's sign-in URL and the state the gateway binds to the browser (the RelayState for SAML). */
export async function startSignIn(deps: Registry, input: StartSsoInput): Promise<{ url: string; state: string }> {
  const provider = await chooseProvider(deps, input);
  if (provider.type === "saml" && provider.saml) {
    const { redirectUrl, relayState } = await startSamlSignIn(
      samlDepsOf(deps),
      { providerId: provider.providerId, saml: readSamlSettings(provider.saml) },
      { callbackUrl: input.callbackUrl, errorCallbackUrl: input.errorUrl ?? null, newUserCallbackUrl: input.newUserUrl ?? null },
    );
    return { url: redirectUrl, state: relayState };
  }
  if (provider.type !== "oidc" || !provider.oidc) throw new AuthError("INVALID_OIDC_CONFIGURATION");
  const now = deps.now();
  const state = randomString(32);
  const codeVerifier = randomString(128);
  const nonce = randomString(32);
  let config: oidc.Configuration;
  try {
    config = await clientOf(deps, provider);
  } catch (error) {
    if (error instanceof AuthError) throw error;
    deps.log.warn("sso sign-in: the provider's discovery failed", { providerId: provider.providerId, error: describeError(error) });
    throw new AuthError("INVALID_OIDC_CONFIGURATION");
  }
  await deps.store.saveSignInState(
    {
      state,
      providerId: provider.providerId,
      codeVerifier,
      nonce,
      callbackUrl: input.callbackUrl,
      errorUrl: input.errorUrl ?? null,
      newUserUrl: input.newUserUrl ?? null,
      expiresAt: new Date(now.getTime() + STATE_TTL_MS),
    },
    now,
  );
  const params: Record<string, string> = {
    redirect_uri: redirectUriOf(deps, provider.providerId),
    scope: (provider.oidc.scopes.length ? provider.oidc.scopes : ["openid", "email", "profile"]).join(" "),
    state,
    nonce,
    response_type: "code",
  };
  if (provider.oidc.pkce) {
    params.code_challenge = await oidc.calculatePKCECodeChallenge(codeVerifier);
    params.code_challenge_method = "S256";
  }
  if (input.email) params.login_hint = input.email;
  return { url: oidc.buildAuthorizationUrl(config, params).href, state };
}

export interface SsoCallbackInput {
  providerId: string;
  code?: string;
  state?: string;
  error?: string;
  errorDescription?: string;
  client: { ipAddress?: string; userAgent?: string };
  trustedDevice?: string;
}

export type SsoCallbackOutcome = ({ kind: "signed-in"; redirectUrl?: string } & SignInOutcome) | { kind: "failed"; error: string; errorUrl?: string; errorDescription?: string };

export const codeOf = (code: ErrorCode): string => REDIRECT_ERRORS.socialCallback[code as keyof typeof REDIRECT_ERRORS.socialCallback] ?? code.toLowerCase();
const PROVIDER_ERROR = /^[a-z0-9_]{1,64}$/;

/** A dotted path into the claims, as a string (absent, or not a string/number/boolean: undefined). */
function claim(claims: Record<string, unknown>, path: string): string | undefined {
  let value: unknown = claims;
  for (const part of path.split(".")) value = value && typeof value === "object" ? (value as Record<string, unknown>)[part] : undefined;
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? String(value) : undefined;
}

export function profileFromClaims(
  mapping: ClaimMapping,
  claims: Record<string, unknown>,
): { accountId: string; email: string; emailVerified: boolean; name: string; image?: string } | null {
  const accountId = claim(claims, mapping.id);
  const email = claim(claims, mapping.email);
  if (!accountId || !email) return null;
  return {
    accountId,
    email: email.replace(/[A-Z]/g, (letter) => letter.toLowerCase()),
    emailVerified: claim(claims, mapping.emailVerified) === "true",
    name: claim(claims, mapping.name) ?? "",
    image: claim(claims, mapping.image),
  };
}

export async function completeSignIn(deps: Registry, input: SsoCallbackInput): Promise<SsoCallbackOutcome> {
  if (!input.state) return { kind: "failed", error: codeOf("STATE_NOT_FOUND") };
  const state = await deps.store.takeSignInState(input.state);
  if (!state) return { kind: "failed", error: codeOf("STATE_NOT_FOUND") };
  const errorUrl = state.errorUrl ?? undefined;
  const fail = (code: ErrorCode, errorDescription?: string): SsoCallbackOutcome => ({ kind: "failed", error: codeOf(code), errorUrl, errorDescription });
  if (state.expiresAt <= deps.now()) return fail("PLEASE_RESTART_THE_PROCESS");
  const description = input.errorDescription?.slice(0, 500);
  if (input.error)
    return PROVIDER_ERROR.test(input.error) ? { kind: "failed", error: input.error, errorUrl, errorDescription: description } : fail("INVALID_CALLBACK_REQUEST", description);
  if (!input.code) return fail("NO_CODE", description);
  if (state.providerId !== input.providerId) return fail("INVALID_CALLBACK_REQUEST");
  const provider = await deps.store.getProvider(input.providerId);
  if (!provider?.enabled || !provider.oidc) return fail("OAUTH_PROVIDER_NOT_FOUND");

  let profile: SsoProfile;
  try {
    const config = await clientOf(deps, provider);
    await deps.discovery.checkEndpoint(config.serverMetadata().token_endpoint!);
    const current = new URL(redirectUriOf(deps, provider.providerId));
    current.searchParams.set("code", input.code);
    current.searchParams.set("state", state.state);
    const tokens = await oidc.authorizationCodeGrant(config, current, {
      expectedState: state.state,
      expectedNonce: state.nonce,
      pkceCodeVerifier: provider.oidc.pkce ? state.codeVerifier : undefined,
      idTokenExpected: true,
    });
    const claims = tokens.claims() as Record<string, unknown> | undefined;
    const read = claims && profileFromClaims(provider.oidc.mapping, claims);
    if (!read) return fail("EMAIL_NOT_FOUND");
    profile = { ...read, providerId: provider.providerId, idToken: tokens.id_token, accessToken: tokens.access_token, refreshToken: tokens.refresh_token };
  } catch (error) {
    deps.log.warn("sso sign-in: the provider's answer was refused", { providerId: provider.providerId, error: describeError(error) });
    return fail("UNABLE_TO_GET_USER_INFO");
  }
  try {
    const result = await completeForProvider(deps, provider, profile, input);
    return { kind: "signed-in", redirectUrl: result.isNewUser ? (state.newUserUrl ?? state.callbackUrl) : state.callbackUrl, ...result };
  } catch (error) {
    const code = redirectErrorCode("socialCallback", error);
    if (!code || code === "internal_server_error") deps.log.error("sso sign-in failed", { providerId: provider.providerId, error: describeError(error) });
    return { kind: "failed", error: code ?? "internal_server_error", errorUrl };
  }
}

/**
 * The completion OIDC and SAML share: the provider vouches for the address only at its own verified domain
 * (or a subdomain), identity signs the user in (or up) with the "sso" method, the user joining the
 * organization before any session opens.
 */
export async function completeForProvider(
  deps: Registry,
  provider: ProviderRecord,
  profile: SsoProfile,
  input: Pick<SsoCallbackInput, "client" | "trustedDevice">,
): Promise<SignInOutcome> {
  const emailDomain = domainOf(profile.email);
  const atDomain = emailDomain === provider.domain || emailDomain.endsWith(`.${provider.domain}`);
  const vouched = profile.emailVerified && atDomain && (await domainIsVerifiedFor(deps, provider, provider.domain));
  // identity makes the membership before it opens a session: a failure leaves no session behind.
  return deps.identity.signInWithProvider(
    { ...profile, emailVerified: vouched },
    { client: input.client, trustedDevice: input.trustedDevice, joinOrganization: { organizationId: provider.organizationId, role: provider.defaultRole } },
  );
}
