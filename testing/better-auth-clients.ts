/**
 * The two generations of the better-auth client the gateway serves: 1.1 (devDependency `better-auth`) and
 * the current one (`better-auth-1.7`). Suites run once per generation (`describe.each(CLIENT_GENERATIONS)`).
 * Both are typed through the current client's declared API, which the two share for every call the suites
 * make; where they differ (the path of the reset request) the generation makes the call itself.
 */
import { createAuthClient as createLegacyClient } from "better-auth/client";
import { usernameClient as legacyUsernameClient } from "better-auth/client/plugins";
import { createAuthClient as createCurrentClient } from "better-auth-1.7/client";
import { usernameClient as currentUsernameClient } from "better-auth-1.7/client/plugins";

type CustomFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** A current client with the username plugin: the type every suite sees. */
export function currentClient(baseURL: string, customFetchImpl: CustomFetch) {
  return createCurrentClient({ baseURL, plugins: [currentUsernameClient()], fetchOptions: { customFetchImpl } });
}

export type AuthClient = ReturnType<typeof currentClient>;

function legacyClient(baseURL: string, customFetchImpl: CustomFetch) {
  return createLegacyClient({ baseURL, plugins: [legacyUsernameClient()], fetchOptions: { customFetchImpl } });
}

type Data<T> = { data: T | null; error: { status: number; code?: string; message?: string } | null };

export interface ClientGeneration {
  /** The package version, for test names. */
  version: string;
  /** true for the current generation. */
  current: boolean;
  make(baseURL: string, customFetchImpl: CustomFetch): AuthClient;
  /** Asks for a reset mail: forgetPassword (1.1) or requestPasswordReset (current). */
  requestPasswordReset(client: AuthClient, body: { email: string; redirectTo?: string }): Promise<Data<{ status: boolean; message?: string }>>;
  /** The path that call goes to. */
  resetRequestPath: string;
}

export const LEGACY_GENERATION: ClientGeneration = {
  version: "1.1.9",
  current: false,
  make: (baseURL, customFetchImpl) => legacyClient(baseURL, customFetchImpl) as unknown as AuthClient,
  requestPasswordReset: (client, body) => (client as unknown as ReturnType<typeof legacyClient>).forgetPassword(body),
  resetRequestPath: "/forget-password",
};

export const CURRENT_GENERATION: ClientGeneration = {
  version: "1.7.25",
  current: true,
  make: currentClient,
  requestPasswordReset: (client, body) => client.requestPasswordReset(body),
  resetRequestPath: "/request-password-reset",
};

export const CLIENT_GENERATIONS = [LEGACY_GENERATION, CURRENT_GENERATION];
