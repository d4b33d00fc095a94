/** Session JWTs: claims, refusals, the key set, rotation with overlap on the test clock, replicas that agree. */
import { describe, expect, it } from "vitest";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { aUser, type TestRegistry, testRegistry } from "../../test/test-registry.js";
import { JWT_KEY_SEAL_FORMAT, jwtKeyRing, jwtKeySealing } from "./jwt-keys.js";
import { issueSessionToken, jwks } from "./session-jwt.js";
import { createSession, revokeSession } from "./sessions.js";

const ISSUER = "https://auth.example.com/api/auth";
const DAY_MS = 86_400_000;

async function signedIn(deps: TestRegistry, overrides: Parameters<typeof aUser>[1] = {}) {
  const user = aUser(deps, overrides);
  await deps.lease.tick();
  const session = await createSession(deps, { userId: user.id, rememberMe: true, user, authMethod: "password", secondFactor: "totp" });
  return { user, session, caller: { sessionId: session.id, userId: user.id } };
}

async function verify(deps: TestRegistry, token: string) {
  const keySet = createLocalJWKSet({ keys: (await jwks(deps)).keys });
  return jwtVerify(token, keySet, { issuer: ISSUER, audience: deps.config.jwt.audience, currentDate: deps.now() });
}

describe("session JWTs", () => {
  it("a live session gets an EdDSA token with its claims, verified by the key set", async () => {
    const deps = testRegistry({ AUTH_BASE_URL: `${ISSUER}/` });
    const { user, session, caller } = await signedIn(deps, { role: "admin" });
    const issued = await issueSessionToken(deps, caller);
    const { payload, protectedHeader } = await verify(deps, issued.token);
    expect(protectedHeader).toMatchObject({ alg: "EdDSA", typ: "JWT" });
    expect(protectedHeader.kid).toEqual((await jwks(deps)).keys[0]!.kid);
    const iat = Math.floor(deps.clock.now() / 1000);
    expect(payload).toEqual({
      iss: ISSUER,
      aud: ISSUER,
      sub: user.id,
      sid: session.id,
      role: "admin",
      email: user.email,
      email_verified: true,
      auth_method: "password",
      second_factor: "totp",
      auth_time: Math.floor(session.createdAt.getTime() / 1000),
      iat,
      exp: iat + 900,
    });
    expect(issued.expiresAt.getTime()).toBe((iat + 900) * 1000);
  });

  it("a configured audience and lifetime are the token's", async () => {
    const deps = testRegistry({ AUTH_BASE_URL: ISSUER, SESSION_JWT_AUDIENCE: "api://orders", SESSION_JWT_EXPIRES_IN: "120" });
    const { caller } = await signedIn(deps);
    const { payload } = await verify(deps, (await issueSessionToken(deps, caller)).token);
    expect(payload.aud).toBe("api://orders");
    expect(payload.exp! - payload.iat!).toBe(120);
  });

  it("a revoked session, another user's caller, a banned user get UNAUTHORIZED", async () => {
    const deps = testRegistry({ AUTH_BASE_URL: ISSUER });
    const revoked = await signedIn(deps);
    await revokeSession(deps, revoked.session.token);
    await expect(issueSessionToken(deps, revoked.caller)).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    const other = await signedIn(deps);
    await expect(issueSessionToken(deps, { sessionId: other.session.id, userId: revoked.user.id })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    const banned = await signedIn(deps);
    await deps.store.putUser({ ...banned.user, banned: true, updatedAt: new Date(deps.clock.now() + 1).toISOString() });
    await expect(issueSessionToken(deps, banned.caller)).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    // An expired session: past its week.
    const expired = await signedIn(deps);
    deps.clock.advance(8 * DAY_MS);
    await expect(issueSessionToken(deps, expired.caller)).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });

  it("the key set holds public parameters only; the store holds the private key sealed", async () => {
    const deps = testRegistry();
    const { caller } = await signedIn(deps);
    await issueSessionToken(deps, caller);
    const { keys, maxAgeSeconds } = await jwks(deps);
    expect(maxAgeSeconds).toBe(300);
    expect(keys).toHaveLength(1);
    expect(Object.keys(keys[0]!).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x"]);
    const [stored] = await deps.store.listJwtKeys(deps.now());
    expect(stored!.privateKeySealed).not.toContain("PRIVATE KEY");
    expect(stored!.privateKeySealed.startsWith(`${JWT_KEY_SEAL_FORMAT}.`)).toBe(true);
  });

  for (const [algorithm, kty] of [
    ["ES256", "EC"],
    ["RS256", "RSA"],
  ] as const) {
    it(`SESSION_JWT_ALGORITHM=${algorithm} signs with ${kty} keys`, async () => {
      const deps = testRegistry({ AUTH_BASE_URL: ISSUER, SESSION_JWT_ALGORITHM: algorithm });
      const { caller } = await signedIn(deps);
      const { token } = await issueSessionToken(deps, caller);
      expect(decodeProtectedHeader(token).alg).toBe(algorithm);
      expect((await jwks(deps)).keys.map((k) => [k.kty, k.alg])).toEqual([[kty, algorithm]]);
      expect((await verify(deps, token)).payload.sub).toBe(caller.userId);
    });
  }

  it("rotation: the next key is published ahead, the old one kept until its tokens expire, then dropped", async () => {
    const deps = testRegistry({ AUTH_BASE_URL: ISSUER, SESSION_JWT_ROTATION_SECONDS: "3600", SESSION_JWT_EXPIRES_IN: "900", SESSION_JWKS_MAX_AGE: "300" });
    // A long session, so it outlives the rotations below.
    const { caller } = await signedIn(deps);
    const kidsOf = async () => (await jwks(deps)).keys.map((k) => k.kid);
    const periodMs = 3_600_000;
    // To 1 s into a period.
    deps.clock.advance(periodMs - (deps.clock.now() % periodMs) + 1000);
    const first = await issueSessionToken(deps, caller);
    const oldKid = decodeProtectedHeader(first.token).kid!;
    expect(await kidsOf()).toEqual([oldKid]);

    // 300 s (max-age) + 60 s (margin) before the period ends: the next key is listed, the old one still signs.
    deps.clock.advance(periodMs - 1000 - 360_000);
    const [, nextKid] = await kidsOf();
    expect(nextKid).toBeDefined();
    const late = await issueSessionToken(deps, caller);
    expect(decodeProtectedHeader(late.token).kid).toBe(oldKid);

    // The new period: the next key signs; the old one stays listed and its tokens verify.
    deps.clock.advance(360_001);
    const fresh = await issueSessionToken(deps, caller);
    expect(decodeProtectedHeader(fresh.token).kid).toBe(nextKid);
    expect(await kidsOf()).toEqual([oldKid, nextKid]);
    await expect(verify(deps, late.token)).resolves.toBeTruthy();

    // The last token of the old key expires 900 s into the period; with the margin the key goes at 960 s.
    deps.clock.advance(959_000);
    expect(await kidsOf()).toEqual([oldKid, nextKid]);
    deps.clock.advance(2_000);
    expect(await kidsOf()).toEqual([nextKid]);
    await expect(verify(deps, (await issueSessionToken(deps, caller)).token)).resolves.toBeTruthy();
  });

  it("replicas on one store make one key per period", async () => {
    const deps = testRegistry({ AUTH_BASE_URL: ISSUER });
    const sealing = jwtKeySealing("session-domain-secret-0123456789-0123456789");
    const replicas = Array.from({ length: 3 }, () => jwtKeyRing({ store: deps.store, config: deps.config, sealing, now: deps.now }));
    const keys = await Promise.all(replicas.map((ring) => ring.signingKey()));
    expect(new Set(keys.map((k) => k.kid)).size).toBe(1);
    expect(await deps.store.listJwtKeys(deps.now())).toHaveLength(1);
    // Thirty days on, one new key for all of them.
    deps.clock.advance(30 * DAY_MS);
    const next = await Promise.all(replicas.map((ring) => ring.signingKey()));
    expect(new Set(next.map((k) => k.kid)).size).toBe(1);
    expect(next[0]!.kid).not.toBe(keys[0]!.kid);
  });

  it("after a change of AUTH_SECRET a new key signs at once; the old one stays listed for its tokens", async () => {
    const deps = testRegistry({ AUTH_BASE_URL: ISSUER });
    const { caller } = await signedIn(deps);
    const before = decodeProtectedHeader((await issueSessionToken(deps, caller)).token).kid;
    const after = jwtKeyRing({ store: deps.store, config: deps.config, sealing: jwtKeySealing("another-secret-0123456789-0123456789-0123"), now: deps.now });
    const key = await after.signingKey();
    expect(key.kid).not.toBe(before);
    expect((await after.publicKeys()).map((k) => k.kid)).toEqual(expect.arrayContaining([before, key.kid]));
  });
});
