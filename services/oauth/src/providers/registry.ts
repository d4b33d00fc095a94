/** The configured providers (both client id and secret set; the generic ones named in OAUTH_GENERIC_PROVIDERS); the others are not offered. */
import type { OAuthConfig } from "../config.js";
import { PROVIDER_IDS, PROVIDERS } from "./catalogue.js";
import { providerHttp } from "./http.js";
import { keySets } from "./key-sets.js";
import { genericDefinition } from "./generic.js";
import { createProvider } from "./provider.js";
import type { Provider } from "./types.js";

export function configuredProviders(config: OAuthConfig, now: () => Date): Map<string, Provider> {
  const deps = { http: providerHttp(config.httpTimeoutMs), keySets: keySets(), now, timeoutMs: config.httpTimeoutMs };
  const providers = new Map<string, Provider>();
  for (const id of PROVIDER_IDS) {
    const settings = config.providers[id];
    if (settings) providers.set(id, createProvider(id, PROVIDERS[id], settings, deps));
  }
  for (const settings of config.genericProviders) {
    providers.set(
      settings.id,
      createProvider(settings.id, genericDefinition(settings), settings, deps, { callbackPath: `/oauth2/callback/${settings.id}`, displayName: settings.displayName }),
    );
  }
  return providers;
}
