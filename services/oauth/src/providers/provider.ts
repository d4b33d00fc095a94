/**
 * One configured provider: the authorization redirect, the code exchange and the profile read.
 * Discovery providers (Google, Apple) go through openid-client: endpoints from the issuer's discovery
 * document (each still overridable), the code grant with its state, PKCE and nonce checks. Every id token
 * is then verified against the provider's key set through jose (key-sets.ts), whatever path it came by.
 * The other providers take a plain form-encoded code exchange and a bearer user-info read.
 */
import { createHash } from "node:crypto";
import { decodeJwt } from "jose";
import * as oidc from "openid-client";
import type { ProviderSettings } from "../config.js";
import type { Endpoints, ProviderDefinition } from "./catalogue.js";
import { type Json, type ProviderHttp, ProviderHttpError } from "./http.js";
import type { KeySets } from "./key-sets.js";
import { readTokens } from "./tokens.js";
import type { Provider, ProviderTokens, SignInResult } from "./types.js";

export interface ProviderDeps {
  http: ProviderHttp;
  keySets: KeySets;
  now: () => Date;
  timeoutMs: number;
}

/** The profile could not be read or mapped: the callback answers unable_to_get_user_info. */
export class ProfileError extends Error {
  override name = "ProfileError";
}

/**
 * The token endpoint granted no tokens for the callback's code (it refused the code, or could not be
 * reached): the callback answers please_restart_the_process, since only a new authorization gets a new code.
 */
export class CodeExchangeError extends Error {
  override name = "CodeExchangeError";
}

/** openid-client's failures of the token request itself: an OAuth error answer, or none (fetch failed, timed out). */
const isTokenRequestFailure = (error: unknown) =>
  error instanceof oidc.ResponseBodyError ||
  (error instanceof TypeError && error.message === "fetch failed") ||
  (error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError"));

/** The longest user id and name identity stores (its columns hold 255 characters). */
const MAX_PROFILE_FIELD = 255;

const challengeOf = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");
const isLoopback = (url: string) => ["127.0.0.1", "localhost", "[::1]"].includes(new URL(url).hostname);

/** The provider's endpoints: the defaults, then what discovery found, then the configured overrides. */
function endpointsOf(definition: ProviderDefinition, settings: ProviderSettings, discovered?: oidc.ServerMetadata): Endpoints {
  const o = settings.endpoints;
  return {
    issuer: o.ISSUER ?? discovered?.issuer ?? definition.endpoints.issuer,
    authorization: o.AUTHORIZATION_URL ?? discovered?.authorization_endpoint ?? definition.endpoints.authorization,
    token: o.TOKEN_URL ?? discovered?.token_endpoint ?? definition.endpoints.token,
    userInfo: o.USERINFO_URL ?? discovered?.userinfo_endpoint ?? definition.endpoints.userInfo,
    jwks: o.JWKS_URL ?? discovered?.jwks_uri ?? definition.endpoints.jwks,
    emails: o.EMAILS_URL ?? definition.endpoints.emails,
    photo: o.PHOTO_URL ?? definition.endpoints.photo,
  };
}

/** Where a provider sends the browser back, under AUTH_BASE_URL: built-in providers at /callback/<id>, generic ones at /oauth2/callback/<id>. */
export type CallbackPath = `/callback/${string}` | `/oauth2/callback/${string}`;

export function createProvider(
  id: string,
  definition: ProviderDefinition,
  settings: ProviderSettings,
  deps: ProviderDeps,
  shown: { callbackPath?: CallbackPath; displayName?: string } = {},
): Provider {
  let discovering: Promise<{ config: oidc.Configuration; endpoints: Endpoints }> | undefined;
  const clientAuth = () => (definition.clientAuth === "basic" ? oidc.ClientSecretBasic(settings.clientSecret) : oidc.ClientSecretPost(settings.clientSecret));

  /** openid-client's configuration, discovered once (a failed discovery is retried on the next sign-in). */
  function discovered() {
    discovering ??= (async () => {
      const issuer = settings.endpoints.ISSUER ?? definition.endpoints.issuer!;
      const insecure = issuer.startsWith("http:") && isLoopback(issuer) ? [oidc.allowInsecureRequests] : [];
      const found = await oidc.discovery(new URL(issuer), settings.clientId, undefined, clientAuth(), {
        execute: insecure,
        timeout: Math.ceil(deps.timeoutMs / 1000),
      });
      const endpoints = endpointsOf(definition, settings, found.serverMetadata());
      if (!endpoints.authorization || !endpoints.token) throw new ProfileError(`${id} discovery named no authorization or token endpoint`);
      // A plain copy: serverMetadata() carries helper methods the constructor does not take.
      const metadata: oidc.ServerMetadata = {
        ...(JSON.parse(JSON.stringify(found.serverMetadata())) as oidc.ServerMetadata),
        authorization_endpoint: endpoints.authorization,
        token_endpoint: endpoints.token,
        userinfo_endpoint: endpoints.userInfo,
        jwks_uri: endpoints.jwks,
      };
      const config = new oidc.Configuration(metadata, settings.clientId, undefined, clientAuth());
      if (insecure.length || [endpoints.token, endpoints.authorization].some((u) => u.startsWith("http:") && isLoopback(u))) oidc.allowInsecureRequests(config);
      return { config, endpoints };
    })().catch((error: unknown) => {
      discovering = undefined;
      throw error;
    });
    return discovering;
  }

  const plainEndpoints = endpointsOf(definition, settings);
  const endpoints = async () => (definition.discovery ? (await discovered()).endpoints : plainEndpoints);

  /** Verifies an id token against the key set: audience our client id, the nonce when one was sent. */
  async function verifiedClaims(idToken: string, nonce: string | undefined, maxAgeSeconds?: number): Promise<Json> {
    const ends = await endpoints();
    if (!ends.jwks) throw new ProfileError(`${id} has no key set to verify its id token`);
    const configuredIssuer = settings.endpoints.ISSUER;
    const issuer = configuredIssuer ? [configuredIssuer, ...(ends.issuer ? [ends.issuer] : [])] : definition.idTokenIssuers;
    try {
      return (await deps.keySets.verify(idToken, { jwksUrl: ends.jwks, audience: settings.clientId, issuer, nonce, maxAgeSeconds, now: deps.now() })) as Json;
    } catch (error) {
      throw new ProfileError(`${id} id token refused: ${(error as Error).message}`);
    }
  }

  /** The user object a provider posted beside the callback (Apple's first sign-in), when it parses. */
  function postedUser(userJson: string | undefined): Json | undefined {
    try {
      return userJson ? (JSON.parse(userJson) as Json) : undefined;
    } catch {
      return undefined;
    }
  }

  async function profileFrom(tokens: ProviderTokens, claims: Json | null, user?: Json): Promise<SignInResult> {
    if (!tokens.accessToken && !claims) throw new ProfileError(`${id} granted no access token`);
    try {
      const { profile, raw } = await definition.profile({ accessToken: tokens.accessToken ?? "", claims, http: deps.http, endpoints: await endpoints(), userJson: user });
      if (!profile) throw new ProfileError(`${id} answered no user id`);
      // A provider's answer is not bounded by our columns: an over-long id cannot be kept (cut, it would name
      // another account); a name is a label, kept cut to length (by code points, never half a character).
      if (profile.accountId.length > MAX_PROFILE_FIELD) throw new ProfileError(`${id} answered an over-long user id`);
      profile.name = Array.from(profile.name).slice(0, MAX_PROFILE_FIELD).join("");
      return { profile, raw, tokens };
    } catch (error) {
      if (error instanceof ProfileError) throw error;
      throw new ProfileError(`${id} user info: ${(error as Error).message}`);
    }
  }

  const scopesFor = (extra: string[]) => [...new Set([...definition.scopes, ...settings.scopes, ...extra])].join(definition.scopeSeparator ?? " ");

  return {
    id,
    callbackPath: shown.callbackPath ?? `/callback/${id}`,
    displayName: shown.displayName,
    async authorizationUrl(input) {
      const params: Record<string, string> = {
        response_type: "code",
        client_id: settings.clientId,
        redirect_uri: input.redirectUri,
        scope: scopesFor(input.scopes),
        state: input.state,
        ...definition.authorizationParams,
      };
      if (definition.pkce) Object.assign(params, { code_challenge: challengeOf(input.codeVerifier), code_challenge_method: "S256" });
      if (definition.verifyIdToken || definition.discovery) params.nonce = input.nonce;
      if (input.loginHint) params.login_hint = input.loginHint;
      if (definition.discovery) return oidc.buildAuthorizationUrl((await discovered()).config, params).href;
      const url = new URL(plainEndpoints.authorization);
      for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
      return url.href;
    },

    async complete(input) {
      let tokens: ProviderTokens;
      if (definition.discovery) {
        const { config } = await discovered();
        const current = new URL(input.redirectUri);
        current.searchParams.set("code", input.code);
        current.searchParams.set("state", input.state);
        if (input.iss) current.searchParams.set("iss", input.iss);
        let answer: oidc.TokenEndpointResponse;
        try {
          answer = await oidc.authorizationCodeGrant(config, current, {
            expectedState: input.state,
            expectedNonce: input.nonce,
            pkceCodeVerifier: definition.pkce ? input.codeVerifier : undefined,
            idTokenExpected: true,
          });
        } catch (error) {
          if (isTokenRequestFailure(error)) throw new CodeExchangeError(`${id} code grant: ${(error as Error).message}`);
          throw new ProfileError(`${id} code grant: ${(error as Error).message}`);
        }
        tokens = readTokens(answer as unknown as Json, deps.now());
      } else {
        tokens = readTokens(await exchange(input.code, input.redirectUri, definition.pkce ? input.codeVerifier : undefined), deps.now(), definition.scopeSeparator);
      }
      const claims = definition.verifyIdToken && tokens.idToken ? await verifiedClaims(tokens.idToken, input.nonce) : null;
      if (definition.verifyIdToken && !claims && definition.discovery) throw new ProfileError(`${id} sent no id token`);
      return profileFrom(tokens, claims, postedUser(input.userJson));
    },

    async refresh(refreshToken) {
      const answer = await tokenRequest({ grant_type: "refresh_token", refresh_token: refreshToken }, "refresh");
      return readTokens(answer, deps.now(), definition.scopeSeparator);
    },

    async accountInfo(input) {
      let claims: Json | null = null;
      if (input.idToken) {
        try {
          claims = decodeJwt(input.idToken) as Json;
        } catch {
          claims = null;
        }
      }
      return profileFrom({ accessToken: input.accessToken, idToken: input.idToken, scopes: [] }, claims);
    },

    verifyIdToken: definition.idTokenSignIn
      ? async (input) => {
          const claims = await verifiedClaims(input.idToken, input.nonce, definition.idTokenSignIn!.maxAgeSeconds);
          // The same shape as the user object Apple posts beside a callback.
          const user = input.user ? { name: { firstName: input.user.firstName, lastName: input.user.lastName } } : undefined;
          return profileFrom({ accessToken: input.accessToken, idToken: input.idToken, scopes: [] }, claims, user);
        }
      : undefined,
  };

  async function exchange(code: string, redirectUri: string, codeVerifier: string | undefined): Promise<Json> {
    try {
      return await tokenRequest({ grant_type: "authorization_code", code, redirect_uri: redirectUri, code_verifier: codeVerifier }, "code exchange");
    } catch (error) {
      throw new CodeExchangeError((error as Error).message);
    }
  }

  /** A form-encoded POST to the token endpoint with the client's credentials (in the body, or HTTP Basic). */
  async function tokenRequest(fields: Record<string, string | undefined>, what: string): Promise<Json> {
    const credentials =
      definition.clientAuth === "basic"
        ? { authorization: `Basic ${Buffer.from(`${encodeURIComponent(settings.clientId)}:${encodeURIComponent(settings.clientSecret)}`).toString("base64")}` }
        : undefined;
    const form = { ...fields, client_id: settings.clientId, client_secret: definition.clientAuth === "post" ? settings.clientSecret : undefined };
    try {
      const answer = await deps.http.postForm((await endpoints()).token, form, credentials);
      if (typeof answer.access_token !== "string")
        throw new ProviderHttpError(`${id} token endpoint answered ${typeof answer.error === "string" ? answer.error : "no access token"}`);
      return answer;
    } catch (error) {
      throw new ProfileError(`${id} ${what}: ${(error as Error).message}`);
    }
  }
}
