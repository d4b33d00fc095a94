/**
 * better-auth 1.7's passkey client (`@better-auth/passkey`), on the better-auth 1.7 it was released with: the
 * contract of the passkey routes. Its browser calls (navigator.credentials) are not used here; tests drive
 * the routes through `$fetch`-backed actions and answer the WebAuthn ceremonies themselves or in Chromium.
 */
import { passkeyClient } from "@better-auth/passkey/client";
import { createAuthClient } from "better-auth/client";

type CustomFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** A 1.7 client with the passkey plugin. */
export function passkeyAuthClient(baseURL: string, customFetchImpl: CustomFetch) {
  return createAuthClient({ baseURL, plugins: [passkeyClient()], fetchOptions: { customFetchImpl } });
}

export type PasskeyAuthClient = ReturnType<typeof passkeyAuthClient>;

/** The passkey the plugin's routes answer, as its types declare it. */
export type { Passkey } from "@better-auth/passkey";
