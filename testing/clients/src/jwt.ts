/**
 * better-auth 1.7's JWT client (`jwtClient` of `better-auth/client/plugins`): the contract of GET /token
 * (`client.token()`, inferred from the server plugin) and GET /jwks (`client.jwks()`).
 */
import { createAuthClient } from "better-auth/client";
import { jwtClient } from "better-auth/client/plugins";

type CustomFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** A 1.7 client with the JWT plugin. */
export function jwtAuthClient(baseURL: string, customFetchImpl: CustomFetch) {
  return createAuthClient({ baseURL, plugins: [jwtClient()], fetchOptions: { customFetchImpl } });
}

export type JwtAuthClient = ReturnType<typeof jwtAuthClient>;
