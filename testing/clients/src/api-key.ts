/**
 * better-auth 1.7's API key client (`@better-auth/api-key` 1.7.5), on the better-auth 1.7 it was released
 * with: the contract of the /api-key routes. Verification and the expired-key sweep are server calls there
 * (no client action): tests reach them with `$fetch`.
 */
import { apiKeyClient } from "@better-auth/api-key/client";
import { createAuthClient } from "better-auth/client";

type CustomFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** A 1.7 client with the api-key plugin. */
export function apiKeyAuthClient(baseURL: string, customFetchImpl: CustomFetch) {
  return createAuthClient({ baseURL, plugins: [apiKeyClient()], fetchOptions: { customFetchImpl } });
}

export type ApiKeyAuthClient = ReturnType<typeof apiKeyAuthClient>;

/** The key the plugin's routes answer, as its types declare it. */
export type { ApiKey } from "@better-auth/api-key/types";
