/**
 * Sign-in with an Apple id token through the gateway (POST /sign-in/social with idToken): Apple's issuer and
 * key set are a local stand-in (APPLE_ISSUER: its discovery document and key set), the token signed by its
 * key. A fresh token with the nonce signs in; one issued over an hour ago, with another nonce, another
 * audience or signed by an unknown key is refused; a user with two-factor on gets the challenge JSON (no
 * session) and a trusted device lets them through.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base32Decode, totpCode, totpStep } from "../../services/identity/src/domain/totp.js";
import type { BrowserFlow } from "../../testing/browser-flow.js";
import { backendLabel } from "../../testing/databases.js";
import { postJson, useSocialPlatform } from "../../testing/social-platform.js";

const APPLE_CLIENT_ID = "com.example.platform";
const PASSWORD = "password-123";
const env: Record<string, string> = {};
let apple: { issuer: string; sign(claims: Record<string, unknown>, options?: { foreignKey?: boolean }): Promise<string>; stop(): Promise<void> };

/** Apple's discovery document and key set on loopback; tokens signed by its key (or by one it does not publish). */
beforeAll(async () => {
  const key = await generateKeyPair("ES256", { extractable: true });
  const foreign = await generateKeyPair("ES256", { extractable: true });
  const jwk = { ...(await exportJWK(key.publicKey)), kid: "apple-test", alg: "ES256", use: "sig" };
  const server: Server = createServer((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.url === "/.well-known/openid-configuration") {
      return res.end(
        JSON.stringify({
          issuer,
          authorization_endpoint: `${issuer}/auth/authorize`,
          token_endpoint: `${issuer}/auth/token`,
          jwks_uri: `${issuer}/auth/keys`,
          response_types_supported: ["code"],
          subject_types_supported: ["pairwise"],
          id_token_signing_alg_values_supported: ["ES256"],
        }),
      );
    }
    if (req.url === "/auth/keys") return res.end(JSON.stringify({ keys: [jwk] }));
    res.statusCode = 404;
    res.end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  apple = {
    issuer,
    sign: (claims, { foreignKey = false } = {}) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: issuer, aud: APPLE_CLIENT_ID, iat: now, exp: now + 600, ...claims })
        .setProtectedHeader({ alg: "ES256", kid: "apple-test" })
        .sign(foreignKey ? foreign.privateKey : key.privateKey);
    },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
  Object.assign(env, { APPLE_CLIENT_ID, APPLE_CLIENT_SECRET: "apple-client-secret", APPLE_ISSUER: issuer });
});
afterAll(() => apple?.stop());

// Registered after the stand-in's beforeAll: the platform starts with Apple configured against it.
const social = useSocialPlatform({ env });

const api = (path: string) => `${social.platform.baseURL}${path}`;
let counter = 0;
const anEmail = () => `apple-${Date.now().toString(36)}-${++counter}@example.com`;
const cookieNamed = (flow: BrowserFlow, suffix: string) => [...flow.jar.cookies.keys()].some((name) => name.endsWith(suffix));
const codeFor = (totpURI: string, steps = 0) => totpCode(base32Decode(new URL(totpURI).searchParams.get("secret")!), totpStep(new Date()) + steps);

async function signInWithAppleToken(flow: BrowserFlow, idToken: string, nonce?: string) {
  return postJson(flow, api("/sign-in/social"), { provider: "apple", idToken: { token: idToken, ...(nonce ? { nonce } : {}) } });
}

describe(`sign-in with an Apple id token (${backendLabel()})`, () => {
  it("signs a new user in with a fresh token carrying the nonce, and offers apple among the providers", async () => {
    const email = anEmail();
    const flow = social.browser();
    const res = await signInWithAppleToken(flow, await apple.sign({ sub: `apple-${email}`, email, email_verified: "true", nonce: "n-1" }), "n-1");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ redirect: false, token: expect.any(String), user: { email, emailVerified: true } });
    expect(cookieNamed(flow, "session_token")).toBe(true);
    const session = await (await flow.request(api("/get-session"))).json();
    expect(session.user.email).toBe(email);
    expect((await (await fetch(api("/social-providers"))).json()).providers.sort()).toEqual(["apple", "google"]);
  });

  it("names a new user with the name the app got beside the token (Apple gives it once); later sign-ins keep it", async () => {
    const email = anEmail();
    const claims = { sub: `apple-${email}`, email, email_verified: "true" };
    const first = await postJson(social.browser(), api("/sign-in/social"), {
      provider: "apple",
      idToken: { token: await apple.sign(claims), user: { name: { firstName: "Ada", lastName: "Lovelace" }, email: "someone-else@example.com" } },
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.user).toMatchObject({ email, name: "Ada Lovelace" });
    // Without it (every later authorization), the account's user keeps the name it was given.
    const later = await signInWithAppleToken(social.browser(), await apple.sign(claims));
    expect(later.body.user).toMatchObject({ id: first.body.user.id, name: "Ada Lovelace" });
    // Without a name at the first sign-in, or a blank one, the address stands in for it.
    const other = anEmail();
    const unnamed = await signInWithAppleToken(social.browser(), await apple.sign({ sub: `apple-${other}`, email: other, email_verified: "true" }));
    expect(unnamed.body.user).toMatchObject({ email: other, name: other });
    const blank = anEmail();
    const blankName = await postJson(social.browser(), api("/sign-in/social"), {
      provider: "apple",
      idToken: { token: await apple.sign({ sub: `apple-${blank}`, email: blank, email_verified: "true" }), user: { name: { firstName: "  ", lastName: "" } } },
    });
    expect(blankName.body.user).toMatchObject({ email: blank, name: blank });
  });

  it.each([
    ["issued over an hour ago", { iat: Math.floor(Date.now() / 1000) - 3601 }, "n-2", {}],
    ["with another nonce", { nonce: "someone-elses" }, "n-2", {}],
    ["without the nonce that was sent", { nonce: undefined }, "n-2", {}],
    ["for another audience", { aud: "com.example.other" }, "n-2", {}],
    ["from another issuer", { iss: "https://appleid.apple.com.evil.example" }, "n-2", {}],
    ["signed by a key Apple does not publish", {}, "n-2", { foreignKey: true }],
  ])("refuses a token %s: invalid token, no session", async (_label, claims, nonce, options) => {
    const email = anEmail();
    const flow = social.browser();
    const token = await apple.sign({ sub: `apple-${email}`, email, email_verified: "true", nonce: "n-2", ...claims }, options);
    const res = await signInWithAppleToken(flow, token, nonce);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "INVALID_TOKEN", message: "invalid token" });
    expect(cookieNamed(flow, "session_token")).toBe(false);
  });

  it("accepts a token 59 minutes old (the rule is under one hour)", async () => {
    const email = anEmail();
    const iat = Math.floor(Date.now() / 1000) - 59 * 60;
    const res = await signInWithAppleToken(social.browser(), await apple.sign({ sub: `apple-${email}`, email, email_verified: "true", iat, exp: iat + 7200 }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it("challenges a user with two-factor on (no session); the code creates it; a trusted device skips the challenge", async () => {
    const email = anEmail();
    const flow = social.browser();
    const signUp = await postJson(flow, api("/sign-up/email"), { name: "Tim", email, password: PASSWORD });
    expect(signUp.status).toBe(200);
    // Apple's account links into this user only because the user's own address is verified.
    await social.platform.services.identity.deps.store.updateUser(signUp.body.user.id, { emailVerified: true });
    const enable = await postJson(flow, api("/two-factor/enable"), { password: PASSWORD });
    const totpURI = enable.body.totpURI as string;
    expect((await postJson(flow, api("/two-factor/verify-totp"), { code: codeFor(totpURI) })).status).toBe(200);
    expect((await postJson(flow, api("/sign-out"), {})).status).toBe(200);

    const claims = { sub: `apple-${email}`, email, email_verified: "true" };
    const challenged = await signInWithAppleToken(flow, await apple.sign(claims));
    expect(challenged.status, JSON.stringify(challenged.body)).toBe(200);
    expect(challenged.body).toEqual({ twoFactorRedirect: true, twoFactorMethods: ["totp", "otp"] });
    expect(cookieNamed(flow, "session_token")).toBe(false);
    expect(await (await flow.request(api("/get-session"))).json()).toBeNull();

    const verified = await postJson(flow, api("/two-factor/verify-totp"), { code: codeFor(totpURI, 1), trustDevice: true });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body.user.id).toBe(signUp.body.user.id);
    expect((await postJson(flow, api("/sign-out"), {})).status).toBe(200);

    const trusted = await signInWithAppleToken(flow, await apple.sign(claims));
    expect(trusted.status).toBe(200);
    expect(trusted.body).toMatchObject({ token: expect.any(String), user: { id: signUp.body.user.id } });
    expect(trusted.headers.getSetCookie().some((c) => c.split("=")[0]!.endsWith("trust_device"))).toBe(true);
  });
});
