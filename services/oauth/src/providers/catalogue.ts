/**
 * The 13 providers (docs/social-sign-in.md): default endpoints and scopes, whether they take PKCE, and how their
 * answer maps to a profile (email, verified flag, name, image). Every endpoint can be overridden by
 * configuration (`<PROVIDER>_TOKEN_URL` ...); docs/social-sign-in.md lists them per provider.
 */
import { type Json, type ProviderHttp, flag, obj, str } from "./http.js";
import type { MappedProfile } from "./types.js";

export const PROVIDER_IDS = ["apple", "discord", "facebook", "github", "microsoft", "google", "spotify", "twitch", "twitter", "dropbox", "linkedin", "gitlab", "reddit"] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

export interface Endpoints {
  issuer?: string;
  authorization: string;
  token: string;
  userInfo?: string;
  jwks?: string;
  emails?: string;
  photo?: string;
}

export interface ProfileContext {
  accessToken: string;
  /** The id token's claims, verified (signature, audience, nonce), when the provider sent one. */
  claims: Json | null;
  http: ProviderHttp;
  endpoints: Endpoints;
  /** Apple's first sign-in posts the user's name as JSON beside the code. */
  userJson?: Json;
}

export interface ProviderDefinition {
  /** Discovery: the endpoints and key set come from `<issuer>/.well-known/openid-configuration`. */
  discovery: boolean;
  endpoints: Endpoints;
  scopes: string[];
  scopeSeparator?: " " | ",";
  pkce: boolean;
  /** How the client authenticates at the token endpoint: form fields (post) or HTTP Basic. */
  clientAuth: "post" | "basic";
  authorizationParams?: Record<string, string>;
  /** The id token from the token endpoint is verified against the key set (audience: the client id). */
  verifyIdToken: boolean;
  /** Issuers an id token may come from (checked when the id token is verified); absent: not checked. */
  idTokenIssuers?: string[];
  /** Sign-in with an id token the client obtained itself (POST /sign-in/social with idToken). */
  idTokenSignIn?: { maxAgeSeconds?: number };
  profile(ctx: ProfileContext): Promise<{ profile: MappedProfile | null; raw: Json }>;
}

const fromClaims = (claims: Json | null): { profile: MappedProfile | null; raw: Json } => {
  const c = claims ?? {};
  const sub = str(c.sub);
  return {
    raw: c,
    profile: sub
      ? { accountId: sub, email: str(c.email) ?? null, emailVerified: flag(c.email_verified), name: str(c.name) ?? str(c.preferred_username) ?? "", image: str(c.picture) ?? null }
      : null,
  };
};

/** The user-info endpoint's OpenID claims (LinkedIn, and any OIDC provider without claims in its id token). */
async function userInfoClaims(ctx: ProfileContext) {
  const info = await ctx.http.getJson(ctx.endpoints.userInfo!, ctx.accessToken);
  return fromClaims({ ...(ctx.claims ?? {}), ...info });
}

export const PROVIDERS: Record<ProviderId, ProviderDefinition> = {
  apple: {
    discovery: true,
    endpoints: {
      issuer: "https://appleid.apple.com",
      authorization: "https://appleid.apple.com/auth/authorize",
      token: "https://appleid.apple.com/auth/token",
      jwks: "https://appleid.apple.com/auth/keys",
    },
    scopes: ["email", "name"],
    pkce: false,
    clientAuth: "post",
    // Apple posts the callback (form_post) when name or email is asked for.
    authorizationParams: { response_mode: "form_post" },
    verifyIdToken: true,
    idTokenIssuers: ["https://appleid.apple.com"],
    idTokenSignIn: { maxAgeSeconds: 3600 },
    async profile(ctx) {
      const result = fromClaims(ctx.claims);
      const name = obj(ctx.userJson?.name);
      // A blank part is no name (the address stands in for a missing one).
      const full = [str(name.firstName)?.trim(), str(name.lastName)?.trim()].filter(Boolean).join(" ");
      if (result.profile) result.profile.name = full || result.profile.name || (result.profile.email ?? "");
      return result;
    },
  },
  discord: {
    discovery: false,
    endpoints: { authorization: "https://discord.com/oauth2/authorize", token: "https://discord.com/api/oauth2/token", userInfo: "https://discord.com/api/users/@me" },
    scopes: ["identify", "email"],
    pkce: false,
    clientAuth: "post",
    authorizationParams: { prompt: "none" },
    verifyIdToken: false,
    async profile(ctx) {
      const raw = await ctx.http.getJson(ctx.endpoints.userInfo!, ctx.accessToken);
      const id = str(raw.id);
      if (!id) return { profile: null, raw };
      const avatar = str(raw.avatar);
      const image = avatar
        ? `https://cdn.discordapp.com/avatars/${id}/${avatar}.${avatar.startsWith("a_") ? "gif" : "png"}`
        : `https://cdn.discordapp.com/embed/avatars/${/^\d+$/.test(id) ? Number((BigInt(id) >> 22n) % 6n) : 0}.png`;
      return { raw, profile: { accountId: id, email: str(raw.email) ?? null, emailVerified: flag(raw.verified), name: str(raw.global_name) ?? str(raw.username) ?? "", image } };
    },
  },
  facebook: {
    discovery: false,
    endpoints: {
      authorization: "https://www.facebook.com/v21.0/dialog/oauth",
      token: "https://graph.facebook.com/v21.0/oauth/access_token",
      userInfo: "https://graph.facebook.com/me?fields=id,name,email,picture",
    },
    scopes: ["email", "public_profile"],
    pkce: false,
    clientAuth: "post",
    verifyIdToken: false,
    async profile(ctx) {
      const raw = await ctx.http.getJson(ctx.endpoints.userInfo!, ctx.accessToken);
      const id = str(raw.id);
      // Facebook says nothing about whether the address is verified.
      return {
        raw,
        profile: id ? { accountId: id, email: str(raw.email) ?? null, emailVerified: false, name: str(raw.name) ?? "", image: str(obj(obj(raw.picture).data).url) ?? null } : null,
      };
    },
  },
  github: {
    discovery: false,
    endpoints: {
      authorization: "https://github.com/login/oauth/authorize",
      token: "https://github.com/login/oauth/access_token",
      userInfo: "https://api.github.com/user",
      emails: "https://api.github.com/user/emails",
    },
    scopes: ["read:user", "user:email"],
    pkce: true,
    clientAuth: "post",
    verifyIdToken: false,
    async profile(ctx) {
      const raw = await ctx.http.getJson(ctx.endpoints.userInfo!, ctx.accessToken);
      const id = str(raw.id);
      if (!id) return { profile: null, raw };
      // The address on the profile is the public one; its verified flag is only in the emails list.
      const emails = ((await ctx.http.getJson(ctx.endpoints.emails!, ctx.accessToken)).items ?? []) as Json[];
      const publicEmail = str(raw.email)?.toLowerCase();
      const chosen = emails.find((e) => publicEmail && str(e.email)?.toLowerCase() === publicEmail) ?? emails.find((e) => flag(e.primary)) ?? emails[0];
      const email = str(chosen?.email) ?? str(raw.email) ?? null;
      return { raw, profile: { accountId: id, email, emailVerified: flag(chosen?.verified), name: str(raw.name) ?? str(raw.login) ?? "", image: str(raw.avatar_url) ?? null } };
    },
  },
  microsoft: {
    // The "common" tenant's id tokens carry each tenant's own issuer: the key set and audience are checked,
    // not the issuer.
    discovery: false,
    endpoints: {
      authorization: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
      token: "https://login.microsoftonline.com/common/oauth2/v2.0/token",
      jwks: "https://login.microsoftonline.com/common/discovery/v2.0/keys",
      photo: "https://graph.microsoft.com/v1.0/me/photos/48x48/$value",
    },
    scopes: ["openid", "profile", "email", "User.Read", "offline_access"],
    pkce: true,
    clientAuth: "post",
    verifyIdToken: true,
    async profile(ctx) {
      const c = ctx.claims ?? {};
      const sub = str(c.oid) ?? str(c.sub);
      if (!sub) return { profile: null, raw: c };
      // Entra ID does not vouch for the email claim; xms_edov (email domain owner verified) does.
      const emailVerified = flag(c.xms_edov) || flag(c.email_verified);
      const photo = ctx.endpoints.photo ? await ctx.http.getBytes(ctx.endpoints.photo, ctx.accessToken).catch(() => null) : null;
      const image = photo ? `data:${photo.contentType};base64,${photo.bytes.toString("base64")}` : null;
      return { raw: c, profile: { accountId: sub, email: str(c.email) ?? str(c.preferred_username) ?? null, emailVerified, name: str(c.name) ?? "", image } };
    },
  },
  google: {
    discovery: true,
    endpoints: {
      issuer: "https://accounts.google.com",
      authorization: "https://accounts.google.com/o/oauth2/v2/auth",
      token: "https://oauth2.googleapis.com/token",
      jwks: "https://www.googleapis.com/oauth2/v3/certs",
    },
    scopes: ["openid", "email", "profile"],
    pkce: true,
    clientAuth: "post",
    verifyIdToken: true,
    idTokenIssuers: ["https://accounts.google.com", "accounts.google.com"],
    idTokenSignIn: {},
    async profile(ctx) {
      return fromClaims(ctx.claims);
    },
  },
  spotify: {
    discovery: false,
    endpoints: { authorization: "https://accounts.spotify.com/authorize", token: "https://accounts.spotify.com/api/token", userInfo: "https://api.spotify.com/v1/me" },
    scopes: ["user-read-email"],
    pkce: true,
    clientAuth: "post",
    verifyIdToken: false,
    async profile(ctx) {
      const raw = await ctx.http.getJson(ctx.endpoints.userInfo!, ctx.accessToken);
      const id = str(raw.id);
      const images = Array.isArray(raw.images) ? (raw.images as Json[]) : [];
      return {
        raw,
        profile: id ? { accountId: id, email: str(raw.email) ?? null, emailVerified: false, name: str(raw.display_name) ?? "", image: str(images[0]?.url) ?? null } : null,
      };
    },
  },
  twitch: {
    discovery: false,
    endpoints: {
      authorization: "https://id.twitch.tv/oauth2/authorize",
      token: "https://id.twitch.tv/oauth2/token",
      jwks: "https://id.twitch.tv/oauth2/keys",
    },
    scopes: ["openid", "user:read:email"],
    pkce: false,
    clientAuth: "post",
    // Twitch puts the email and picture in the id token only when asked for them as claims.
    authorizationParams: { claims: JSON.stringify({ id_token: { email: null, email_verified: null, preferred_username: null, picture: null } }) },
    verifyIdToken: true,
    idTokenIssuers: ["https://id.twitch.tv/oauth2"],
    async profile(ctx) {
      return fromClaims(ctx.claims);
    },
  },
  twitter: {
    discovery: false,
    endpoints: {
      authorization: "https://x.com/i/oauth2/authorize",
      token: "https://api.x.com/2/oauth2/token",
      userInfo: "https://api.x.com/2/users/me?user.fields=profile_image_url,confirmed_email",
    },
    scopes: ["users.read", "tweet.read", "offline.access", "users.email"],
    pkce: true,
    clientAuth: "basic",
    verifyIdToken: false,
    async profile(ctx) {
      const raw = await ctx.http.getJson(ctx.endpoints.userInfo!, ctx.accessToken);
      const data = obj(raw.data);
      const id = str(data.id);
      const email = str(data.confirmed_email) ?? null;
      // X answers confirmed_email only for an address the user confirmed.
      return {
        raw,
        profile: id ? { accountId: id, email, emailVerified: email !== null, name: str(data.name) ?? str(data.username) ?? "", image: str(data.profile_image_url) ?? null } : null,
      };
    },
  },
  dropbox: {
    discovery: false,
    endpoints: {
      authorization: "https://www.dropbox.com/oauth2/authorize",
      token: "https://api.dropboxapi.com/oauth2/token",
      userInfo: "https://api.dropboxapi.com/2/users/get_current_account",
    },
    scopes: ["account_info.read"],
    pkce: true,
    clientAuth: "post",
    authorizationParams: { token_access_type: "offline" },
    verifyIdToken: false,
    async profile(ctx) {
      // Dropbox's RPC endpoints are POSTs without a body.
      const raw = await ctx.http.getJson(ctx.endpoints.userInfo!, ctx.accessToken, { method: "POST" });
      const id = str(raw.account_id);
      return {
        raw,
        profile: id
          ? {
              accountId: id,
              email: str(raw.email) ?? null,
              emailVerified: flag(raw.email_verified),
              name: str(obj(raw.name).display_name) ?? "",
              image: str(raw.profile_photo_url) ?? null,
            }
          : null,
      };
    },
  },
  linkedin: {
    discovery: false,
    endpoints: {
      authorization: "https://www.linkedin.com/oauth/v2/authorization",
      token: "https://www.linkedin.com/oauth/v2/accessToken",
      userInfo: "https://api.linkedin.com/v2/userinfo",
    },
    scopes: ["openid", "profile", "email"],
    pkce: false,
    clientAuth: "post",
    verifyIdToken: false,
    profile: userInfoClaims,
  },
  gitlab: {
    discovery: false,
    endpoints: { authorization: "https://gitlab.com/oauth/authorize", token: "https://gitlab.com/oauth/token", userInfo: "https://gitlab.com/api/v4/user" },
    scopes: ["read_user"],
    pkce: true,
    clientAuth: "post",
    verifyIdToken: false,
    async profile(ctx) {
      const raw = await ctx.http.getJson(ctx.endpoints.userInfo!, ctx.accessToken);
      const id = str(raw.id);
      // GitLab's primary email is confirmed once confirmed_at is set.
      return {
        raw,
        profile: id
          ? {
              accountId: id,
              email: str(raw.email) ?? null,
              emailVerified: str(raw.confirmed_at) !== undefined,
              name: str(raw.name) ?? str(raw.username) ?? "",
              image: str(raw.avatar_url) ?? null,
            }
          : null,
      };
    },
  },
  reddit: {
    discovery: false,
    endpoints: { authorization: "https://www.reddit.com/api/v1/authorize", token: "https://www.reddit.com/api/v1/access_token", userInfo: "https://oauth.reddit.com/api/v1/me" },
    scopes: ["identity"],
    pkce: false,
    clientAuth: "basic",
    authorizationParams: { duration: "permanent" },
    verifyIdToken: false,
    async profile(ctx) {
      const raw = await ctx.http.getJson(ctx.endpoints.userInfo!, ctx.accessToken);
      const id = str(raw.id);
      // Reddit discloses no email address: sign-in answers email_not_found unless one is added by a later API.
      return {
        raw,
        profile: id
          ? {
              accountId: id,
              email: str(raw.email) ?? null,
              emailVerified: flag(raw.has_verified_email) && str(raw.email) !== undefined,
              name: str(raw.name) ?? "",
              image: str(raw.icon_img)?.split("?")[0] ?? null,
            }
          : null,
      };
    },
  },
};
