/**
 * The JWT path of createAuthClient against a key set this test serves over real HTTP (the gateway's
 * /api/auth/jwks lands in another change): signature, expiry, and issuer and audience when configured.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuthClient, type AuthResult, createAuthClient } from "../src/index.js";

let server: Server;
let client: AuthClient;
let sign: (claims: Record<string, unknown>, options?: { exp?: string; iss?: string; aud?: string; key?: "other" }) => Promise<string>;

beforeAll(async () => {
  const keys = await generateKeyPair("EdDSA", { crv: "Ed25519" });
  const other = await generateKeyPair("EdDSA", { crv: "Ed25519" });
  const jwk = { ...(await exportJWK(keys.publicKey)), kid: "k1", alg: "EdDSA", use: "sig" };
  server = createServer((req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ keys: req.url === "/api/auth/jwks" ? [jwk] : [] }));
  }).listen(0, "127.0.0.1");
  await once(server, "listening");
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sign = (claims, options = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: "EdDSA", kid: "k1" })
      .setIssuedAt()
      .setExpirationTime(options.exp ?? "5m")
      .setIssuer(options.iss ?? origin)
      .setAudience(options.aud ?? origin)
      .sign(options.key === "other" ? other.privateKey : keys.privateKey);
  // No session cache (no stream): the session service is never dialled on this path.
  client = createAuthClient({
    sessionServiceUrl: "127.0.0.1:1",
    tls: { ca: "", cert: "", key: "" },
    cacheSize: 0,
    jwt: { jwksUrl: `${origin}/api/auth/jwks`, issuer: origin, audience: origin },
  });
});
afterAll(() => {
  client?.close();
  server?.close();
});

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

describe("createAuthClient with a JWT", () => {
  it("verifies a token signed by the key set and answers its claims", async () => {
    const token = await sign({ sub: "user-1", sid: "session-1", role: "admin" });
    const result = await client.authenticate(bearer(token));
    expect(result).toMatchObject({ kind: "jwt", claims: { sub: "user-1", sid: "session-1", role: "admin" } });
  });

  it("refuses a token signed by another key, expired, or of another issuer or audience", async () => {
    for (const token of [
      await sign({ sub: "u" }, { key: "other" }),
      await sign({ sub: "u" }, { exp: "-1m" }),
      await sign({ sub: "u" }, { iss: "https://elsewhere.example" }),
      await sign({ sub: "u" }, { aud: "https://elsewhere.example" }),
    ]) {
      expect(await client.authenticate(bearer(token))).toEqual({ kind: "unauthenticated", reason: "invalid-credential" });
    }
    const [header, payload] = (await sign({ sub: "u" })).split(".");
    const forged = `${header}.${Buffer.from(JSON.stringify({ sub: "admin", exp: 9e9 })).toString("base64url")}.${payload}`;
    expect(await client.authenticate(bearer(forged))).toMatchObject({ kind: "unauthenticated" });
  });

  it("answers no credential for a request without one", async () => {
    expect(await client.authenticate({ headers: {} })).toEqual({ kind: "unauthenticated", reason: "no-credential" });
  });

  it("puts the result on the request through the fastify hook and the express middleware, or answers 401", async () => {
    const token = await sign({ sub: "user-2" });
    const sent: Array<{ status: number; body: unknown }> = [];
    const reply = { code: (status: number) => ({ send: (body: unknown) => sent.push({ status, body }) }) };
    const request: { headers: Record<string, string>; auth?: AuthResult } = { headers: { authorization: `Bearer ${token}` } };
    await client.fastifyHook()(request, reply);
    expect(request.auth).toMatchObject({ kind: "jwt", claims: { sub: "user-2" } });
    await client.fastifyHook()({ headers: {} }, reply);
    expect(sent).toEqual([{ status: 401, body: { code: "UNAUTHORIZED", message: "Unauthorized" } }]);

    const answered = await new Promise<{ next?: true; status?: number }>((resolve) => {
      const res = { status: (status: number) => ({ json: () => resolve({ status }) }) };
      client.requireAuth()({ headers: { authorization: "Bearer a.b.c" } }, res, () => resolve({ next: true }));
    });
    expect(answered).toEqual({ status: 401 });
    const passed: { headers: Record<string, string>; auth?: AuthResult } = { headers: { authorization: `Bearer ${token}` } };
    await new Promise<void>((resolve, reject) => client.requireAuth()(passed, { status: () => ({ json: () => reject(new Error("401")) }) }, () => resolve()));
    expect(passed.auth).toMatchObject({ kind: "jwt" });
  });
});
