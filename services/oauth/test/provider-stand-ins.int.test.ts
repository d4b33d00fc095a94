/**
 * Every provider that is not covered by the OpenID provider suite, against a local stand-in of its token,
 * user-info, e-mail, photo, key-set and discovery endpoints (configured through the endpoint overrides, as
 * an operator would for GitHub Enterprise or a self-hosted GitLab): the authorization URL each builds, the
 * exact token request each sends (form-encoded, code, redirect_uri, client credentials in the body or as
 * HTTP Basic, code_verifier only where the provider takes PKCE), the bearer user-info call, and the profile
 * each maps (email, verified flag, name, image).
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomString } from "@auth-platform/runtime/random";
import { oauthConfig } from "../src/config.js";
import { PROVIDERS, type ProviderId } from "../src/providers/catalogue.js";
import { providerHttp } from "../src/providers/http.js";
import { keySets } from "../src/providers/key-sets.js";
import { CodeExchangeError, createProvider, ProfileError } from "../src/providers/provider.js";
import type { MappedProfile } from "../src/providers/types.js";

interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

const CLIENT_ID = "stand-in-client";
const CLIENT_SECRET = "stand-in-secret:with/odd chars";
const REDIRECT = (id: string) => `https://auth.example.com/api/auth/callback/${id}`;
const PHOTO = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);

let server: Server;
let base = "";
let signingKey: CryptoKey;
let publicJwk: JWK;
const seen: Seen[] = [];
/** What the token endpoint of a provider answers next (its id token is signed per test). */
const tokenAnswers = new Map<string, Record<string, unknown>>();
const userInfos = new Map<string, unknown>();

beforeAll(async () => {
  const pair = await generateKeyPair("RS256", { extractable: true });
  signingKey = pair.privateKey as CryptoKey;
  publicJwk = { ...(await exportJWK(pair.publicKey)), kid: "stand-in", alg: "RS256", use: "sig" };
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", base);
      const [, provider, endpoint] = url.pathname.split("/");
      seen.push({ method: req.method ?? "", path: url.pathname + url.search, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      const json = (value: unknown) => {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify(value));
      };
      if (endpoint === "token") return json(tokenAnswers.get(provider!) ?? { error: "no answer set" });
      if (endpoint === "userinfo") return json(userInfos.get(provider!));
      if (endpoint === "emails") return json(userInfos.get(`${provider}-emails`));
      if (endpoint === "jwks") return json({ keys: [publicJwk] });
      if (endpoint === "photo") {
        res.setHeader("content-type", "image/png");
        return res.end(PHOTO);
      }
      if (url.pathname === "/apple/.well-known/openid-configuration") {
        return json({
          issuer: `${base}/apple`,
          authorization_endpoint: `${base}/apple/authorize`,
          token_endpoint: `${base}/apple/token`,
          jwks_uri: `${base}/apple/jwks`,
          response_types_supported: ["code"],
          subject_types_supported: ["pairwise"],
          id_token_signing_alg_values_supported: ["RS256"],
        });
      }
      res.statusCode = 404;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function providerFor(id: ProviderId) {
  const prefix = id.toUpperCase();
  const env: Record<string, string> = {
    [`${prefix}_CLIENT_ID`]: CLIENT_ID,
    [`${prefix}_CLIENT_SECRET`]: CLIENT_SECRET,
    [`${prefix}_TOKEN_URL`]: `${base}/${id}/token`,
    [`${prefix}_USERINFO_URL`]: `${base}/${id}/userinfo`,
    [`${prefix}_EMAILS_URL`]: `${base}/${id}/emails`,
    [`${prefix}_JWKS_URL`]: `${base}/${id}/jwks`,
    [`${prefix}_PHOTO_URL`]: `${base}/${id}/photo`,
    [`${prefix}_AUTHORIZATION_URL`]: `${base}/${id}/authorize`,
  };
  if (id === "apple") env.APPLE_ISSUER = `${base}/apple`;
  const config = oauthConfig(env);
  return createProvider(id, PROVIDERS[id], config.providers[id]!, { http: providerHttp(5_000), keySets: keySets(), now: () => new Date(), timeoutMs: 5_000 });
}

async function idToken(id: string, claims: Record<string, unknown>, issuer?: string) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "RS256", kid: "stand-in" })
    .setIssuedAt()
    .setExpirationTime("10m")
    .setAudience(CLIENT_ID)
    .setIssuer(issuer ?? `${base}/${id}`)
    .sign(signingKey);
}

interface Case {
  userInfo?: unknown;
  emails?: unknown;
  claims?: Record<string, unknown>;
  /** The issuer the id token names (default the stand-in's). */
  issuer?: string;
  userJson?: string;
  expected: MappedProfile;
  userInfoMethod?: "GET" | "POST";
}

const CASES: Partial<Record<ProviderId, Case>> = {
  discord: {
    userInfo: { id: "80351110224678912", username: "nelly", global_name: "Nelly", avatar: "8342729096ea3675442027381ff50dfe", email: "nelly@discord.example", verified: true },
    expected: {
      accountId: "80351110224678912",
      email: "nelly@discord.example",
      emailVerified: true,
      name: "Nelly",
      image: "https://cdn.discordapp.com/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png",
    },
  },
  facebook: {
    userInfo: { id: "10158", name: "Fay Book", email: "fay@fb.example", picture: { data: { url: "https://fb.example/p.jpg" } } },
    expected: { accountId: "10158", email: "fay@fb.example", emailVerified: false, name: "Fay Book", image: "https://fb.example/p.jpg" },
  },
  github: {
    userInfo: { id: 583231, login: "octocat", name: null, email: null, avatar_url: "https://avatars.example/u/583231" },
    emails: [
      { email: "old@gh.example", primary: false, verified: false },
      { email: "octo@gh.example", primary: true, verified: true },
    ],
    expected: { accountId: "583231", email: "octo@gh.example", emailVerified: true, name: "octocat", image: "https://avatars.example/u/583231" },
  },
  microsoft: {
    claims: { sub: "pairwise-sub", oid: "00000000-0000-0000-66f3-3332eca7ea81", email: "megan@contoso.example", name: "Megan Bowen", xms_edov: true },
    issuer: "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0",
    expected: {
      accountId: "00000000-0000-0000-66f3-3332eca7ea81",
      email: "megan@contoso.example",
      emailVerified: true,
      name: "Megan Bowen",
      image: `data:image/png;base64,${PHOTO.toString("base64")}`,
    },
  },
  spotify: {
    userInfo: { id: "wizzler", display_name: "Wizzler", email: "wiz@spotify.example", images: [{ url: "https://i.scdn.example/w.jpg", height: 300 }] },
    expected: { accountId: "wizzler", email: "wiz@spotify.example", emailVerified: false, name: "Wizzler", image: "https://i.scdn.example/w.jpg" },
  },
  twitch: {
    claims: { sub: "713936733", email: "tw@twitch.example", email_verified: true, preferred_username: "streamer", picture: "https://static-cdn.example/t.png" },
    issuer: "https://id.twitch.tv/oauth2",
    expected: { accountId: "713936733", email: "tw@twitch.example", emailVerified: true, name: "streamer", image: "https://static-cdn.example/t.png" },
  },
  twitter: {
    userInfo: { data: { id: "2244994945", name: "X Dev", username: "XDevelopers", profile_image_url: "https://pbs.example/x.jpg", confirmed_email: "dev@x.example" } },
    expected: { accountId: "2244994945", email: "dev@x.example", emailVerified: true, name: "X Dev", image: "https://pbs.example/x.jpg" },
  },
  dropbox: {
    userInfoMethod: "POST",
    userInfo: {
      account_id: "dbid:AAH4f99T0taONIb",
      email: "franz@dropbox.example",
      email_verified: true,
      name: { display_name: "Franz Ferdinand (Personal)" },
      profile_photo_url: "https://dl-web.example/p.jpg",
    },
    expected: { accountId: "dbid:AAH4f99T0taONIb", email: "franz@dropbox.example", emailVerified: true, name: "Franz Ferdinand (Personal)", image: "https://dl-web.example/p.jpg" },
  },
  linkedin: {
    userInfo: { sub: "782bbtaQ", email: "li@linkedin.example", email_verified: true, name: "Lin Kedin", picture: "https://media.licdn.example/p.jpg" },
    expected: { accountId: "782bbtaQ", email: "li@linkedin.example", emailVerified: true, name: "Lin Kedin", image: "https://media.licdn.example/p.jpg" },
  },
  gitlab: {
    userInfo: { id: 1, username: "john_smith", name: "John Smith", email: "john@gitlab.example", confirmed_at: "2012-05-23T09:05:22Z", avatar_url: "https://gitlab.example/a.png" },
    expected: { accountId: "1", email: "john@gitlab.example", emailVerified: true, name: "John Smith", image: "https://gitlab.example/a.png" },
  },
  reddit: {
    userInfo: { id: "t2_abc", name: "spez", icon_img: "https://styles.redditmedia.example/i.png?width=256&s=x", has_verified_email: true },
    expected: { accountId: "t2_abc", email: null, emailVerified: false, name: "spez", image: "https://styles.redditmedia.example/i.png" },
  },
  apple: {
    claims: { sub: "001234.abcd", email: "hide@privaterelay.appleid.example", email_verified: "true" },
    userJson: JSON.stringify({ name: { firstName: "Tim", lastName: "Apple" }, email: "hide@privaterelay.appleid.example" }),
    expected: { accountId: "001234.abcd", email: "hide@privaterelay.appleid.example", emailVerified: true, name: "Tim Apple", image: null },
  },
};

const basicOf = (header: string | undefined) => Buffer.from((header ?? "").replace(/^Basic /, ""), "base64").toString("utf8");

describe.each(Object.entries(CASES) as Array<[ProviderId, Case]>)("%s against its stand-in endpoints", (id, c) => {
  it("builds the authorization URL, sends the token request the provider expects, calls user info with the token, maps the profile", async () => {
    const definition = PROVIDERS[id];
    const provider = providerFor(id);
    const state = randomString(32);
    const codeVerifier = randomString(128);
    const nonce = randomString(32);
    const url = new URL(await provider.authorizationUrl({ state, codeVerifier, nonce, redirectUri: REDIRECT(id), scopes: [] }));
    expect(url.href.startsWith(`${base}/${id}/authorize`)).toBe(true);
    const q = url.searchParams;
    expect(q.get("response_type")).toBe("code");
    expect(q.get("client_id")).toBe(CLIENT_ID);
    expect(q.get("redirect_uri")).toBe(REDIRECT(id));
    expect(q.get("state")).toBe(state);
    expect(q.get("scope")!.split(" ")).toEqual(definition.scopes);
    if (definition.pkce) {
      expect(q.get("code_challenge")).toBe(createHash("sha256").update(codeVerifier).digest("base64url"));
      expect(q.get("code_challenge_method")).toBe("S256");
    } else {
      expect(q.has("code_challenge")).toBe(false);
    }
    for (const [name, value] of Object.entries(definition.authorizationParams ?? {})) expect(q.get(name)).toBe(value);

    const accessToken = `at-${id}-${randomString(8)}`;
    const answer: Record<string, unknown> = { access_token: accessToken, token_type: "Bearer", expires_in: 3600, refresh_token: `rt-${id}`, scope: definition.scopes.join(" ") };
    if (c.claims) answer.id_token = await idToken(id, { ...c.claims, nonce }, c.issuer);
    tokenAnswers.set(id, answer);
    if (c.userInfo !== undefined) userInfos.set(id, c.userInfo);
    if (c.emails !== undefined) userInfos.set(`${id}-emails`, c.emails);

    const from = seen.length;
    const result = await provider.complete({ code: `code-${id}`, state, codeVerifier, nonce, redirectUri: REDIRECT(id), userJson: c.userJson });
    expect(result.profile).toEqual(c.expected);
    expect(result.tokens).toMatchObject({ accessToken, refreshToken: `rt-${id}`, scopes: definition.scopes });
    expect(result.tokens.accessTokenExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 3_500_000);

    const requests = seen.slice(from);
    const token = requests.find((r) => r.path === `/${id}/token`)!;
    expect(token.method).toBe("POST");
    expect(token.headers["content-type"]).toMatch(/^application\/x-www-form-urlencoded(;\s*charset=utf-8)?$/i);
    const form = new URLSearchParams(token.body);
    expect(form.get("grant_type")).toBe("authorization_code");
    expect(form.get("code")).toBe(`code-${id}`);
    expect(form.get("redirect_uri")).toBe(REDIRECT(id));
    expect(form.get("code_verifier")).toBe(definition.pkce ? codeVerifier : null);
    if (definition.clientAuth === "basic") {
      expect(basicOf(token.headers.authorization)).toBe(`${encodeURIComponent(CLIENT_ID)}:${encodeURIComponent(CLIENT_SECRET)}`);
      expect(form.has("client_secret")).toBe(false);
    } else {
      expect(form.get("client_id")).toBe(CLIENT_ID);
      expect(form.get("client_secret")).toBe(CLIENT_SECRET);
    }
    for (const call of requests.filter((r) => ["userinfo", "emails", "photo"].includes(r.path.split("/")[2]!))) {
      expect(call.headers.authorization, call.path).toBe(`Bearer ${accessToken}`);
      expect(call.method).toBe(call.path.includes("userinfo") ? (c.userInfoMethod ?? "GET") : "GET");
    }
    if (c.userInfo !== undefined) expect(requests.some((r) => r.path.startsWith(`/${id}/userinfo`))).toBe(true);
  });
});

describe("refresh", () => {
  it.each(["github", "twitter", "reddit", "dropbox"] as const)("%s renews with grant_type=refresh_token and the client's credentials", async (id) => {
    const provider = providerFor(id);
    tokenAnswers.set(id, { access_token: `renewed-${id}`, token_type: "Bearer", expires_in: 600 });
    const from = seen.length;
    const tokens = await provider.refresh(`rt-${id}`);
    expect(tokens).toMatchObject({ accessToken: `renewed-${id}`, refreshToken: undefined });
    const request = seen.slice(from).find((r) => r.path === `/${id}/token`)!;
    const form = new URLSearchParams(request.body);
    expect(form.get("grant_type")).toBe("refresh_token");
    expect(form.get("refresh_token")).toBe(`rt-${id}`);
    if (PROVIDERS[id].clientAuth === "basic") expect(basicOf(request.headers.authorization)).toBe(`${encodeURIComponent(CLIENT_ID)}:${encodeURIComponent(CLIENT_SECRET)}`);
    else expect(form.get("client_secret")).toBe(CLIENT_SECRET);
  });
});

describe("refusals", () => {
  it("an id token signed by another key is refused (Microsoft)", async () => {
    const provider = providerFor("microsoft");
    const other = await generateKeyPair("RS256");
    const forged = await new SignJWT({ oid: "x", email: "victim@example.com", xms_edov: true, nonce: "n" })
      .setProtectedHeader({ alg: "RS256", kid: "stand-in" })
      .setIssuedAt()
      .setExpirationTime("10m")
      .setAudience(CLIENT_ID)
      .sign(other.privateKey);
    tokenAnswers.set("microsoft", { access_token: "at", token_type: "Bearer", id_token: forged });
    const completing = provider.complete({ code: "c", state: "s", codeVerifier: randomString(128), nonce: "n", redirectUri: REDIRECT("microsoft") });
    await expect(completing).rejects.toThrow(/id token refused/);
    // Tokens were granted: the profile is what is refused (unable_to_get_user_info), not the code.
    await expect(completing).rejects.toBeInstanceOf(ProfileError);
  });

  it("an id token for another nonce is refused (Twitch)", async () => {
    const provider = providerFor("twitch");
    tokenAnswers.set("twitch", {
      access_token: "at",
      token_type: "Bearer",
      id_token: await idToken("twitch", { sub: "1", email: "a@b.example", nonce: "other" }, "https://id.twitch.tv/oauth2"),
    });
    await expect(provider.complete({ code: "c", state: "s", codeVerifier: randomString(128), nonce: "expected", redirectUri: REDIRECT("twitch") })).rejects.toThrow(
      /id token refused/,
    );
  });

  it("a token endpoint error (GitHub answers 200 with error) is a refused code, not a refused profile", async () => {
    const provider = providerFor("github");
    tokenAnswers.set("github", { error: "bad_verification_code" });
    const completing = provider.complete({ code: "c", state: "s", codeVerifier: randomString(128), nonce: "n", redirectUri: REDIRECT("github") });
    await expect(completing).rejects.toThrow(/bad_verification_code/);
    await expect(completing).rejects.toBeInstanceOf(CodeExchangeError);
  });

  it("an Apple id token older than an hour is refused for id-token sign-in", async () => {
    const provider = providerFor("apple");
    const old = await new SignJWT({ sub: "001", email: "a@b.example", email_verified: "true" })
      .setProtectedHeader({ alg: "RS256", kid: "stand-in" })
      .setIssuedAt(Math.floor(Date.now() / 1000) - 3601)
      .setExpirationTime("10m")
      .setAudience(CLIENT_ID)
      .setIssuer(`${base}/apple`)
      .sign(signingKey);
    await expect(provider.verifyIdToken!({ idToken: old })).rejects.toThrow(/id token refused/);
    const fresh = await idToken("apple", { sub: "001", email: "a@b.example", email_verified: "true" });
    expect((await provider.verifyIdToken!({ idToken: fresh })).profile).toMatchObject({ accountId: "001", emailVerified: true });
  });
});
