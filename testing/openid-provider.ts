/**
 * A real OpenID provider (oidc-provider) on a loopback port, for the social sign-in suites: discovery, an
 * authorization endpoint with PKCE required, a token endpoint, id tokens signed with a key the test holds
 * (so it can also forge tokens with a wrong audience, nonce or key), and a login step the test drives: the
 * interaction signs in whichever account `signInAs` names, with no form (or the account `addAccount` gave for the
 * request's login_hint, for sign-ins running side by side). With `issueRefreshTokens` it grants a
 * refresh token with every code (without asking for offline_access), so a suite can renew tokens at it.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import Provider from "oidc-provider";

export interface OpenIdAccount {
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
  picture?: string;
}

export interface TestOpenIdProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The account the next login signs in as. */
  signInAs(account: OpenIdAccount): void;
  /** An account a login signs in when the authorization request's login_hint is its email (over `signInAs`'s). */
  addAccount(account: OpenIdAccount): void;
  /** Signs an id token with the provider's own key (or, with `foreignKey`, with a key it does not publish). */
  forgeIdToken(claims: Record<string, unknown>, options?: { foreignKey?: boolean }): Promise<string>;
  /** Authorization requests seen, by their query parameters. */
  authorizations: URLSearchParams[];
  /** Asks the userinfo endpoint with an access token: the claims, or null when the provider refuses the token. */
  userinfo(accessToken: string): Promise<Record<string, unknown> | null>;
  stop(): Promise<void>;
}

/**
 * A second client the provider registers: it authenticates with HTTP Basic only (client_secret_basic) and
 * may leave PKCE out, as a plain OAuth 2 provider may (every other client must send a PKCE challenge).
 */
export interface BasicAuthClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

export async function startOpenIdProvider(options: {
  redirectUris: string[];
  clientId?: string;
  clientSecret?: string;
  issueRefreshTokens?: boolean;
  basicAuthClient?: BasicAuthClient;
}): Promise<TestOpenIdProvider> {
  const clientId = options.clientId ?? "platform-client";
  const clientSecret = options.clientSecret ?? "platform-client-secret-0123456789";
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const foreign = await generateKeyPair("RS256", { extractable: true });
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: "test-key", alg: "RS256", use: "sig" };
  let account: OpenIdAccount | undefined;
  const accounts = new Map<string, OpenIdAccount>();
  const byHint = new Map<string, OpenIdAccount>();
  const authorizations: URLSearchParams[] = [];

  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_post",
      },
      ...(options.basicAuthClient
        ? [
            {
              client_id: options.basicAuthClient.clientId,
              client_secret: options.basicAuthClient.clientSecret,
              redirect_uris: options.basicAuthClient.redirectUris,
              grant_types: ["authorization_code"],
              response_types: ["code"],
              token_endpoint_auth_method: "client_secret_basic",
            },
          ]
        : []),
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: ["openid-provider-test-cookie-key"] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "picture"] },
    // The id token carries the scope's claims itself (Google's do).
    conformIdTokenClaims: false,
    pkce: { required: (_ctx: unknown, client: { clientId: string }) => client.clientId !== options.basicAuthClient?.clientId },
    ...(options.issueRefreshTokens ? { issueRefreshToken: async () => true } : {}),
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx: unknown, sub: string) {
      const found = accounts.get(sub);
      return found && { accountId: sub, claims: async () => ({ ...found }) };
    },
  });
  const handle = provider.callback();
  server.on("request", (req, res) => {
    const url = new URL(req.url ?? "/", issuer);
    if (url.pathname === "/auth" && req.method === "GET") authorizations.push(url.searchParams);
    if (!url.pathname.startsWith("/interaction/")) return handle(req, res);
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      const chosen = byHint.get(String(details.params.login_hint ?? "")) ?? account;
      if (!chosen) throw new Error("the test named no account to sign in as");
      accounts.set(chosen.sub, chosen);
      const grant = new provider.Grant({ accountId: chosen.sub, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope));
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { login: { accountId: chosen.sub }, consent: { grantId } }, { mergeWithLastSubmission: false });
    })().catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });

  return {
    issuer,
    clientId,
    clientSecret,
    authorizations,
    signInAs(next) {
      account = next;
    },
    addAccount(next) {
      byHint.set(next.email, next);
    },
    async userinfo(accessToken) {
      const answer = await fetch(`${issuer}/me`, { headers: { authorization: `Bearer ${accessToken}` } });
      return answer.ok ? ((await answer.json()) as Record<string, unknown>) : null;
    },
    async forgeIdToken(claims, { foreignKey = false } = {}) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: issuer, aud: clientId, iat: now, exp: now + 600, ...claims })
        .setProtectedHeader({ alg: "RS256", kid: "test-key" })
        .sign(foreignKey ? foreign.privateKey : privateKey);
    },
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
