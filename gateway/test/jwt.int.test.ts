/**
 * Session JWTs over HTTP: better-auth 1.7's jwtClient gets a token for its session (cookie or bearer), a
 * verifier checks it with jose against GET /jwks over HTTP; a revoked session gets none; the key set rotates
 * on the test clock with overlap; ES256 and RS256 configurations verify too.
 */
import { describe, expect, it } from "vitest";
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { jwtAuthClient } from "@auth-platform/test-clients/jwt";
import { browserFetch } from "../../testing/browser.js";
import { TestClient, uniqueEmail } from "../../testing/http.js";
import { type PlatformUnderTest, usePlatform } from "../../testing/use-platform.js";

const PASSWORD = "password-123";
const PERIOD_MS = 3_600_000;

async function signedUp(platform: PlatformUnderTest) {
  const { customFetchImpl } = browserFetch(platform.origin);
  const client = jwtAuthClient(platform.baseURL, customFetchImpl);
  const { data, error } = await client.signUp.email({ name: "Ada", email: uniqueEmail("jwt"), password: PASSWORD });
  expect(error).toBeNull();
  return { client, user: data!.user, sessionToken: data!.token as string };
}

/** Verifies as a resource server would: the key set fetched over HTTP, issuer and audience checked. */
function verify(platform: PlatformUnderTest, token: string) {
  const keySet = createRemoteJWKSet(new URL(`${platform.baseURL}/jwks`));
  return jwtVerify(token, keySet, { issuer: platform.baseURL, audience: platform.baseURL });
}

async function kids(platform: PlatformUnderTest): Promise<string[]> {
  const res = await fetch(`${platform.baseURL}/jwks`);
  return ((await res.json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);
}

describe("GET /token and GET /jwks (EdDSA)", () => {
  const platform = usePlatform({ serviceEnv: { session: { SESSION_JWT_ROTATION_SECONDS: String(PERIOD_MS / 1000) } } });

  it("the 1.7 jwtClient gets a token that verifies against /jwks, with the session's claims", async () => {
    const { client, user } = await signedUp(platform);
    const { data, error } = await client.token();
    expect(error).toBeNull();
    const { payload, protectedHeader } = await verify(platform, data!.token);
    const session = (await client.getSession()).data!.session;
    expect(protectedHeader).toMatchObject({ alg: "EdDSA", typ: "JWT" });
    expect(payload).toMatchObject({ iss: platform.baseURL, aud: platform.baseURL, sub: user.id, sid: session.id, role: "user", email: user.email, email_verified: false });
    expect(typeof payload.auth_method).toBe("string");
    expect(payload.auth_time).toBe(Math.floor(new Date(session.createdAt).getTime() / 1000));
    expect(payload.exp! - payload.iat!).toBe(900);

    const keys = await client.jwks();
    expect(keys.error).toBeNull();
    expect(keys.data!.keys.map((k) => k.kid)).toContain(protectedHeader.kid);
    for (const key of keys.data!.keys) expect(Object.keys(key).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x"]);
  });

  it("/jwks may be cached; /token may not; get-session sends no set-auth-jwt by default", async () => {
    const { sessionToken } = await signedUp(platform);
    const session = await new TestClient(platform.baseURL).get("/get-session", { authorization: `Bearer ${sessionToken}` });
    expect(session.body.session).toBeTruthy();
    expect(session.headers.get("set-auth-jwt")).toBeNull();
    const jwks = await fetch(`${platform.baseURL}/jwks`);
    expect(jwks.headers.get("cache-control")).toBe("public, max-age=300");
    const token = await fetch(`${platform.baseURL}/token`, { headers: { authorization: `Bearer ${sessionToken}` } });
    expect(token.status).toBe(200);
    expect(token.headers.get("cache-control")).toBe("no-store");
  });

  it("a bearer session token gets a token; no session, a bad one or a revoked one gets 401", async () => {
    const { sessionToken, user } = await signedUp(platform);
    const bearer = await new TestClient(platform.baseURL).get("/token", { authorization: `Bearer ${sessionToken}` });
    expect(bearer.status).toBe(200);
    expect((await verify(platform, bearer.body.token)).payload.sub).toBe(user.id);

    for (const headers of [{}, { authorization: "Bearer not-a-session-token-0123456789ab" }] as Record<string, string>[]) {
      expect(await new TestClient(platform.baseURL).get("/token", headers)).toMatchObject({ status: 401, body: { code: "UNAUTHORIZED", message: "Unauthorized" } });
    }

    const ada = platform.client();
    const other = await ada.post("/sign-in/email", { email: user.email, password: PASSWORD });
    expect(other.status).toBe(200);
    expect((await ada.post("/revoke-session", { token: sessionToken })).status).toBe(200);
    expect(await new TestClient(platform.baseURL).get("/token", { authorization: `Bearer ${sessionToken}` })).toMatchObject({ status: 401, body: { code: "UNAUTHORIZED" } });
    expect((await ada.post("/sign-out")).status).toBe(200);
    expect((await ada.get("/token")).status).toBe(401);
  });

  it("rotation: the next key is listed before it signs, the old one until its tokens have expired", async () => {
    const { client } = await signedUp(platform);
    const tokenKid = async () => {
      const { data } = await client.token();
      return { token: data!.token, kid: decodeProtectedHeader(data!.token).kid! };
    };
    // 1 s into a rotation period.
    platform.clock.advance(PERIOD_MS - (Date.now() % PERIOD_MS) + 1000);
    const first = await tokenKid();
    expect(await kids(platform)).toContain(first.kid);

    // Max-age (300 s) plus the margin (60 s) before the period ends: the next key is listed, not yet signing.
    platform.clock.advance(PERIOD_MS - 1000 - 360_000);
    const listed = await kids(platform);
    expect(listed).toContain(first.kid);
    const nextKid = listed.at(-1)!;
    expect(nextKid).not.toBe(first.kid);
    const late = await tokenKid();
    expect(late.kid).toBe(first.kid);

    // The new period: the next key signs; the old key's last tokens still verify.
    platform.clock.advance(360_000 + 1000);
    const fresh = await tokenKid();
    expect(fresh.kid).toBe(nextKid);
    expect((await verify(platform, late.token)).protectedHeader.kid).toBe(first.kid);
    expect(await kids(platform)).toEqual(expect.arrayContaining([first.kid, nextKid]));

    // Its tokens expire 15 min into the period; a minute later the old key leaves the set.
    platform.clock.advance(900_000 - 30_000);
    expect(await kids(platform)).toContain(first.kid);
    platform.clock.advance(120_000);
    expect(await kids(platform)).not.toContain(first.kid);
    await expect(verify(platform, (await tokenKid()).token)).resolves.toBeTruthy();
  });
});

describe("GATEWAY_SESSION_JWT_HEADER=true", () => {
  const platform = usePlatform({ env: { GATEWAY_SESSION_JWT_HEADER: "true", AUTH_TRUSTED_ORIGINS: "https://app.example.com" } });

  it("get-session answers a session JWT in set-auth-jwt, exposed to the browser; none without a session", async () => {
    const { sessionToken, user } = await signedUp(platform);
    const res = await new TestClient(platform.baseURL).get("/get-session", { authorization: `Bearer ${sessionToken}`, origin: "https://app.example.com" });
    expect(res.body.user.id).toBe(user.id);
    const { payload } = await verify(platform, res.headers.get("set-auth-jwt")!);
    expect(payload).toMatchObject({ sub: user.id, sid: res.body.session.id });
    expect(res.headers.get("access-control-expose-headers")).toContain("set-auth-jwt");
    const anonymous = await new TestClient(platform.baseURL).get("/get-session");
    expect(anonymous.body).toBeNull();
    expect(anonymous.headers.get("set-auth-jwt")).toBeNull();
  });
});

for (const [algorithm, kty] of [
  ["ES256", "EC"],
  ["RS256", "RSA"],
] as const) {
  describe(`SESSION_JWT_ALGORITHM=${algorithm}`, () => {
    const platform = usePlatform({ serviceEnv: { session: { SESSION_JWT_ALGORITHM: algorithm } } });

    it("tokens are signed with it and verify against /jwks", async () => {
      const { client, user } = await signedUp(platform);
      const { data } = await client.token();
      const { payload, protectedHeader } = await verify(platform, data!.token);
      expect(protectedHeader.alg).toBe(algorithm);
      expect(payload.sub).toBe(user.id);
      const { data: keys } = await client.jwks();
      expect(keys!.keys.map((k) => [k.kty, k.alg])).toEqual([[kty, algorithm]]);
      expect(keys!.keys.some((k) => "d" in k || "p" in k)).toBe(false);
    });
  });
}
