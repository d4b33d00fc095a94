/**
 * better-auth 1.7's SSO client (`@better-auth/sso` 1.7.5), on the better-auth 1.7 it was released with: the
 * contract of /sign-in/sso and the provider routes. `signIn.sso` answers the provider's URL; the test's
 * browser flow follows it.
 */
import { ssoClient } from "@better-auth/sso/client";
import { createAuthClient } from "better-auth/client";

type CustomFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** A 1.7 client with the SSO plugin. */
export function ssoAuthClient(baseURL: string, customFetchImpl: CustomFetch) {
  return createAuthClient({ baseURL, plugins: [ssoClient()], fetchOptions: { customFetchImpl } });
}

export type SsoAuthClient = ReturnType<typeof ssoAuthClient>;
