/**
 * The first leg of social sign-in (and of /link-social): a fresh state (32 characters, the callback's CSRF
 * protection), a PKCE code verifier (128 characters) and a nonce, stored with the callback URLs and the
 * link intent for 10 minutes; the answer is the provider's authorization URL.
 */
import { AuthError } from "@auth-platform/proto/errors";
import { describeError } from "@auth-platform/runtime/log";
import { randomString } from "@auth-platform/runtime/random";
import { STATE_TTL_MS } from "../config.js";
import type { Provider } from "../providers/types.js";
import type { LinkIntent } from "../store/oauth-store.js";
import { fromIdentity } from "./from-identity.js";
import type { Registry } from "./ports.js";

export const STATE_LENGTH = 32;
export const CODE_VERIFIER_LENGTH = 128;

export interface StartSignInInput {
  providerId: string;
  /** Absolute URLs, checked by the gateway against the trusted origins. */
  callbackUrl: string;
  errorUrl?: string;
  newUserUrl?: string;
  link?: LinkIntent;
  scopes?: string[];
  loginHint?: string;
}

/** Where a provider sends the browser back to. */
export const redirectUriOf = (deps: Pick<Registry, "config">, provider: Pick<Provider, "callbackPath">) => `${deps.config.baseUrl}${provider.callbackPath}`;

export async function startSignIn(
  deps: Pick<Registry, "config" | "store" | "providers" | "identity" | "now" | "log">,
  input: StartSignInInput,
): Promise<{ url: string; state: string }> {
  const provider = deps.providers.get(input.providerId);
  if (!provider) throw new AuthError("PROVIDER_NOT_FOUND");
  // A provider the user already has is refused now, before the round trip to it, as better-auth 1.1 does;
  // unless the link asks for more scopes: then it renews that account's grant (docs/adr/0049-link-social-refuses-a-linked-provider-at-once.md).
  if (input.link && !input.scopes?.length) await fromIdentity(() => deps.identity.checkProviderLink(input.link!.userId, provider.id));
  const now = deps.now();
  const state = randomString(STATE_LENGTH);
  const codeVerifier = randomString(CODE_VERIFIER_LENGTH);
  const nonce = randomString(32);
  // Abandoned sign-ins leave states behind; each new one sweeps the expired (one indexed DELETE).
  await deps.store.deleteExpired(now);
  await deps.store.saveState({
    state,
    providerId: provider.id,
    codeVerifier,
    nonce,
    callbackUrl: input.callbackUrl,
    errorUrl: input.errorUrl ?? null,
    newUserUrl: input.newUserUrl ?? null,
    link: input.link ?? null,
    expiresAt: new Date(now.getTime() + STATE_TTL_MS),
    createdAt: now,
  });
  let url: string;
  try {
    url = await provider.authorizationUrl({
      state,
      codeVerifier,
      nonce,
      redirectUri: redirectUriOf(deps, provider),
      scopes: input.scopes ?? [],
      loginHint: input.loginHint,
    });
  } catch (error) {
    // Only an OpenID provider's discovery can fail here (unreachable, or a document without endpoints).
    deps.log.warn("social sign-in: the provider's discovery failed", { providerId: provider.id, error: describeError(error) });
    throw new AuthError("INVALID_OAUTH_CONFIGURATION");
  }
  return { url, state };
}
