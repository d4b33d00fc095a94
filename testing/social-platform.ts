/**
 * The platform with Google configured against a real OpenID provider on loopback (openid-provider.ts), for
 * the social sign-in suites. Google's token endpoint is overridden by a pass-through stand-in that records
 * each token request (so a test can read the PKCE verifier sent) and can answer a forged id token instead.
 * By default the stand-in adds a refresh token of its own and answers refresh requests itself; with
 * `refreshAtProvider` the provider grants real refresh tokens and renews them, so a renewed access token is
 * one the provider accepts. `clock.advance` ages tokens as in usePlatform (provider and platform alike: both
 * run in the test's process).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";
import { CURRENT_GENERATION } from "./better-auth-clients.js";
import { BrowserFlow } from "./browser-flow.js";
import { type OpenIdAccount, startOpenIdProvider, type TestOpenIdProvider } from "./openid-provider.js";
import { freePorts, type Platform, type PlatformOptions, startPlatform } from "./platform.js";
import { testClock } from "./test-clock.js";

export interface TokenStandIn {
  url: string;
  /** Form bodies of the token requests seen. */
  requests: URLSearchParams[];
  /** The Authorization header of each (HTTP Basic client authentication), by the same index. */
  authorizations: Array<string | undefined>;
  /** When set, the next token requests are answered with this id token (and an access token). */
  forgedIdToken?: string;
  stop(): Promise<void>;
}

async function startTokenStandIn(upstream: () => string, refreshAtProvider: boolean): Promise<TokenStandIn> {
  const standIn: TokenStandIn = { url: "", requests: [], authorizations: [], stop: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const form = new URLSearchParams(body);
      standIn.requests.push(form);
      standIn.authorizations.push(req.headers.authorization);
      if (form.get("grant_type") === "refresh_token" && !refreshAtProvider) {
        res.setHeader("content-type", "application/json");
        res.end(
          JSON.stringify({
            access_token: `refreshed-${form.get("refresh_token")}`,
            token_type: "Bearer",
            expires_in: 1800,
            refresh_token: "rotated-refresh-token",
            scope: "openid email profile",
          }),
        );
        return;
      }
      if (standIn.forgedIdToken) {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ access_token: "forged-access", token_type: "Bearer", expires_in: 3600, id_token: standIn.forgedIdToken, scope: "openid email profile" }));
        return;
      }
      const headers: Record<string, string> = { "content-type": String(req.headers["content-type"]) };
      if (req.headers.authorization) headers.authorization = req.headers.authorization;
      void fetch(upstream(), { method: "POST", headers, body }).then(async (answer) => {
        res.statusCode = answer.status;
        res.setHeader("content-type", answer.headers.get("content-type") ?? "application/json");
        const text = await answer.text();
        // The test provider grants refresh tokens only with offline_access: the stand-in adds one.
        const parsed = answer.ok && !refreshAtProvider ? (JSON.parse(text) as Record<string, unknown>) : null;
        res.end(parsed ? JSON.stringify({ refresh_token: "first-refresh-token", ...parsed }) : text);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  standIn.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  standIn.stop = () => new Promise((resolve) => server.close(() => resolve()));
  return standIn;
}

export interface SocialPlatform {
  readonly platform: Platform;
  readonly idp: TestOpenIdProvider;
  readonly tokens: TokenStandIn;
  /** A browser on the platform and the provider; it stops at any page outside them. */
  browser(): BrowserFlow;
  /** An account on the provider with a fresh subject and email. */
  anAccount(label: string, overrides?: Partial<OpenIdAccount>): OpenIdAccount;
  /** Moves the clock (Date) forward for the platform and the provider; real time is restored after the suite. */
  clock: { advance(ms: number): void };
}

export interface SocialPlatformOptions extends PlatformOptions {
  /** The provider grants and renews refresh tokens itself (the stand-in passes refresh requests on). */
  refreshAtProvider?: boolean;
  /**
   * Also configures the test provider as three generic providers (OAUTH_GENERIC_PROVIDERS): `corp-sso`, OpenID
   * Connect by discovery (its token endpoint the stand-in, as Google's), `corp-oauth`, plain OAuth 2 with
   * the provider's authorization, token and user-info endpoints given by hand, and `corp-basic` (GENERIC_BASIC);
   * `genericEnv` adds to their variables.
   */
  genericProviders?: boolean;
  genericEnv?: Record<string, string>;
  /** Single sign-on providers the test will register: their callbacks (`/sso/callback/<id>`) are registered at the provider. */
  ssoProviderIds?: string[];
}

/** The generic providers useSocialPlatform configures with `genericProviders`, and the names the app shows. */
export const GENERIC_OIDC = { id: "corp-sso", name: "Corp SSO" } as const;
export const GENERIC_OAUTH2 = { id: "corp-oauth", name: "Corp OAuth" } as const;
/**
 * A third, plain OAuth 2 with every default changed: no PKCE, HTTP Basic at the token endpoint (its client
 * at the provider takes nothing else), the name read from the `email` claim, and the verified flag from
 * `corp_verified`, a claim the provider never sends (so it never vouches for the address).
 */
export const GENERIC_BASIC = { id: "corp-basic", name: "Corp Basic", clientId: "basic-client", clientSecret: "basic-client-secret-0123456789" } as const;

let counter = 0;

export function useSocialPlatform(socialOptions: SocialPlatformOptions = {}): SocialPlatform {
  const { refreshAtProvider = false, genericProviders = false, genericEnv = {}, ssoProviderIds = [], ...options } = socialOptions;
  let platform: Platform | undefined;
  const clock = testClock();
  let idp: TestOpenIdProvider | undefined;
  let tokens: TokenStandIn | undefined;
  beforeAll(async () => {
    const [port] = await freePorts(1);
    const baseURL = `http://127.0.0.1:${port}/api/auth`;
    const genericCallbacks = genericProviders ? [GENERIC_OIDC, GENERIC_OAUTH2].map((p) => `${baseURL}/oauth2/callback/${p.id}`) : [];
    idp = await startOpenIdProvider({
      redirectUris: [`${baseURL}/callback/google`, ...genericCallbacks, ...ssoProviderIds.map((id) => `${baseURL}/sso/callback/${id}`)],
      issueRefreshTokens: refreshAtProvider,
      basicAuthClient: genericProviders
        ? { clientId: GENERIC_BASIC.clientId, clientSecret: GENERIC_BASIC.clientSecret, redirectUris: [`${baseURL}/oauth2/callback/${GENERIC_BASIC.id}`] }
        : undefined,
    });
    tokens = await startTokenStandIn(() => `${idp!.issuer}/token`, refreshAtProvider);
    const generic: Record<string, string> = genericProviders
      ? {
          OAUTH_GENERIC_PROVIDERS: `${GENERIC_OIDC.id},${GENERIC_OAUTH2.id},${GENERIC_BASIC.id}`,
          OAUTH_GENERIC_CORP_SSO_CLIENT_ID: idp.clientId,
          OAUTH_GENERIC_CORP_SSO_CLIENT_SECRET: idp.clientSecret,
          OAUTH_GENERIC_CORP_SSO_NAME: GENERIC_OIDC.name,
          OAUTH_GENERIC_CORP_SSO_ISSUER: idp.issuer,
          OAUTH_GENERIC_CORP_SSO_TOKEN_URL: tokens.url,
          OAUTH_GENERIC_CORP_OAUTH_CLIENT_ID: idp.clientId,
          OAUTH_GENERIC_CORP_OAUTH_CLIENT_SECRET: idp.clientSecret,
          OAUTH_GENERIC_CORP_OAUTH_NAME: GENERIC_OAUTH2.name,
          OAUTH_GENERIC_CORP_OAUTH_AUTHORIZATION_URL: `${idp.issuer}/auth`,
          OAUTH_GENERIC_CORP_OAUTH_TOKEN_URL: `${idp.issuer}/token`,
          OAUTH_GENERIC_CORP_OAUTH_USERINFO_URL: `${idp.issuer}/me`,
          OAUTH_GENERIC_CORP_OAUTH_SCOPES: "openid,email,profile",
          OAUTH_GENERIC_CORP_BASIC_CLIENT_ID: GENERIC_BASIC.clientId,
          OAUTH_GENERIC_CORP_BASIC_CLIENT_SECRET: GENERIC_BASIC.clientSecret,
          OAUTH_GENERIC_CORP_BASIC_NAME: GENERIC_BASIC.name,
          OAUTH_GENERIC_CORP_BASIC_AUTHORIZATION_URL: `${idp.issuer}/auth`,
          OAUTH_GENERIC_CORP_BASIC_TOKEN_URL: tokens.url,
          OAUTH_GENERIC_CORP_BASIC_USERINFO_URL: `${idp.issuer}/me`,
          OAUTH_GENERIC_CORP_BASIC_SCOPES: "openid,email,profile",
          OAUTH_GENERIC_CORP_BASIC_PKCE: "false",
          OAUTH_GENERIC_CORP_BASIC_CLIENT_AUTH: "basic",
          OAUTH_GENERIC_CORP_BASIC_CLAIM_NAME: "email",
          OAUTH_GENERIC_CORP_BASIC_CLAIM_EMAIL_VERIFIED: "corp_verified",
          ...genericEnv,
        }
      : {};
    platform = await startPlatform({
      ...options,
      env: {
        PORT: String(port),
        AUTH_BASE_URL: baseURL,
        GOOGLE_CLIENT_ID: idp.clientId,
        GOOGLE_CLIENT_SECRET: idp.clientSecret,
        GOOGLE_ISSUER: idp.issuer,
        GOOGLE_TOKEN_URL: tokens.url,
        ...generic,
        ...options.env,
      },
    });
  }, 60_000);
  afterAll(async () => {
    await platform?.stop();
    await tokens?.stop();
    await idp?.stop();
    clock.restore();
  });
  const followed = (url: URL) => url.origin === idp!.issuer || url.href.startsWith(`${platform!.baseURL}/`);
  return {
    get platform() {
      return platform!;
    },
    get idp() {
      return idp!;
    },
    get tokens() {
      return tokens!;
    },
    browser: () => new BrowserFlow(followed),
    anAccount(label, overrides = {}) {
      counter += 1;
      const id = `${label}-${Date.now().toString(36)}-${counter}`;
      return { sub: `sub-${id}`, email: `${id}@example.com`, email_verified: true, name: `Test ${label}`, picture: `https://img.example/${id}.png`, ...overrides };
    },
    clock: { advance: (ms) => clock.advance(ms) },
  };
}

/** POSTs JSON with the flow's cookies, from the app's origin (as a page would). */
export async function postJson(flow: BrowserFlow, url: string, body: unknown, origin?: string) {
  const res = await flow.request(url, { method: "POST", headers: { "content-type": "application/json", ...(origin ? { origin } : {}) }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as any) : null, headers: res.headers };
}

/** The current better-auth client in a browser flow of the social platform (its cookies, the provider's redirects). */
export function clientIn(social: SocialPlatform, flow: BrowserFlow) {
  return CURRENT_GENERATION.make(social.platform.baseURL, (input, init) => flow.request(input instanceof Request ? input.url : String(input), init));
}

/** A user signed up and in with Google through the current client: the provider's account, the browser, the client and the linked account. */
export async function signedInWithGoogle(social: SocialPlatform, label: string) {
  const account = social.anAccount(label);
  social.idp.signInAs(account);
  const flow = social.browser();
  const client = clientIn(social, flow);
  const { data } = await client.signIn.social({ provider: "google", callbackURL: "/dashboard" });
  await flow.follow((data as { url: string }).url);
  const [google] = (await client.listAccounts()).data!;
  return { account, flow, client, google: google! };
}
