/**
 * A short-lived JWT for a live session (GET /token), and the key set that verifies it (GET /jwks); claims in
 * docs/http-api/jwt.md, keys in jwt-keys.ts (docs/adr/0076-session-jwts-signed-by-the-session-service.md).
 */
import { AuthError } from "@auth-platform/proto/errors";
import { SignJWT } from "jose";
import { JWT_KEY_MARGIN_SECONDS } from "../config.js";
import type { PublicJwk } from "./jwt-keys.js";
import type { Registry } from "./ports.js";
import { type CallerRef, callerSession, isBanned } from "./sessions.js";

type Deps = Pick<Registry, "config" | "store" | "jwtKeys" | "now">;

export interface SessionToken {
  token: string;
  expiresAt: Date;
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/**
 * Signs a token for the caller's session, read from the store (the truth): a revoked, expired or unknown
 * session, one of another user, or a banned or deleted user gets UNAUTHORIZED.
 */
export async function issueSessionToken(deps: Deps, caller: CallerRef): Promise<SessionToken> {
  const session = await callerSession(deps, caller, undefined);
  const now = deps.now();
  const user = await deps.store.findUser(session.userId);
  if (!user || isBanned(user, now)) throw new AuthError("UNAUTHORIZED");
  const key = await deps.jwtKeys.signingKey();
  const { jwt } = deps.config;
  const iat = seconds(now);
  // Never past what the key set keeps the key for (it would outlive its key), nor past the session.
  const exp = Math.min(iat + jwt.expiresInSeconds, seconds(key.publishedUntil) - JWT_KEY_MARGIN_SECONDS, seconds(session.expiresAt));
  const claims: Record<string, string | number | boolean> = {
    sid: session.id,
    email: user.email,
    email_verified: user.emailVerified,
  };
  if (user.role) claims.role = user.role;
  if (session.activeOrganizationId) claims.active_organization_id = session.activeOrganizationId;
  if (session.activeTeamId) claims.active_team_id = session.activeTeamId;
  if (session.authMethod) claims.auth_method = session.authMethod;
  if (session.secondFactor) claims.second_factor = session.secondFactor;
  if (session.authenticatedAt) claims.auth_time = seconds(session.authenticatedAt);
  if (session.impersonatedBy) claims.impersonated_by = session.impersonatedBy;
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: key.algorithm, kid: key.kid, typ: "JWT" })
    .setIssuer(jwt.issuer)
    .setAudience(jwt.audience)
    .setSubject(session.userId)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(key.privateKey);
  return { token, expiresAt: new Date(exp * 1000) };
}

/** The public keys, and how long a verifier may cache them. */
export async function jwks(deps: Pick<Registry, "config" | "jwtKeys">): Promise<{ keys: PublicJwk[]; maxAgeSeconds: number }> {
  return { keys: await deps.jwtKeys.publicKeys(), maxAgeSeconds: deps.config.jwt.jwksMaxAgeSeconds };
}
