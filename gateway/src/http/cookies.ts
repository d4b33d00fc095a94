/**
 * Session cookies. The cookie carries `token.signature`, the signature an HMAC-SHA256 of the token under
 * the server secret, so a cookie that was not issued here is refused before any lookup. httpOnly (no script
 * reads it), SameSite=Lax (not sent on cross-site POSTs), Secure and __Secure- named behind https.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Request, Response } from "express";

export function sign(value: string, secret: string): string {
  return `${value}.${createHmac("sha256", secret).update(value).digest("base64url")}`;
}

/** The signed value, or null when the signature does not match. */
export function unsign(signed: string, secret: string): string | null {
  const dot = signed.lastIndexOf(".");
  if (dot <= 0) return null;
  const value = signed.slice(0, dot);
  const given = Buffer.from(signed.slice(dot + 1));
  const expected = Buffer.from(createHmac("sha256", secret).update(value).digest("base64url"));
  // Constant-time, so the signature cannot be guessed byte by byte from response timing.
  return given.length === expected.length && timingSafeEqual(given, expected) ? value : null;
}

/**
 * The token of a cookie a better-auth server signed with `secret`, or null. Its signature is the same
 * HMAC-SHA256 of the token as ours, in standard base64 with padding (44 characters) rather than base64url:
 * kept apart from unsign so that our own cookies have one encoding only
 * (docs/adr/0079-importing-a-better-auth-database.md).
 */
export function unsignImported(signed: string, secret: string): string | null {
  const dot = signed.lastIndexOf(".");
  if (dot <= 0) return null;
  const value = signed.slice(0, dot);
  const given = Buffer.from(signed.slice(dot + 1));
  const expected = Buffer.from(createHmac("sha256", secret).update(value).digest("base64"));
  return given.length === expected.length && timingSafeEqual(given, expected) ? value : null;
}

export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (!name || cookies.has(name)) continue;
    try {
      cookies.set(name, decodeURIComponent(part.slice(eq + 1).trim()));
    } catch {
      // A malformed escape: ignore this cookie rather than fail the request.
    }
  }
  return cookies;
}

export interface CookieJar {
  sessionName: string;
  dontRememberName: string;
  /** The pending two-factor challenge (10 minutes). */
  twoFactorName: string;
  /** The trusted-device token (30 days). */
  trustDeviceName: string;
  /** The attempt token of a passkey ceremony (5 minutes). */
  passkeyName: string;
  secure: boolean;
}

export function cookieJar(prefix: string, secure: boolean): CookieJar {
  const p = secure ? `__Secure-${prefix}` : prefix;
  return {
    sessionName: `${p}.session_token`,
    dontRememberName: `${p}.dont_remember`,
    twoFactorName: `${p}.two_factor`,
    trustDeviceName: `${p}.trust_device`,
    passkeyName: `${p}.passkey`,
    secure,
  };
}

export function serialize(name: string, value: string, jar: CookieJar, maxAgeSeconds?: number): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, "Path=/", "HttpOnly", "SameSite=Lax"];
  if (maxAgeSeconds !== undefined) parts.push(`Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`);
  if (jar.secure) parts.push("Secure");
  return parts.join("; ");
}

/** When a session was issued (or last extended) and when it expires. */
export interface SessionLifetime {
  updatedAt: Date;
  expiresAt: Date;
}

/**
 * Sets the session cookie. A remembered session's cookie lives exactly the session's lifetime (the
 * configured expiry, 604800 s by default), counted from when the session was issued or extended rather
 * than from now, so the time the call took does not shave a second off; a dont-remember session gets a
 * browser-session cookie and the dont-remember marker, kept across refreshes.
 */
export function setSessionCookie(res: Response, jar: CookieJar, secret: string, token: string, session: SessionLifetime, dontRemember: boolean): void {
  const maxAge = dontRemember ? undefined : Math.round((session.expiresAt.getTime() - session.updatedAt.getTime()) / 1000);
  res.append("Set-Cookie", serialize(jar.sessionName, sign(token, secret), jar, maxAge));
  if (dontRemember) res.append("Set-Cookie", serialize(jar.dontRememberName, sign("true", secret), jar));
}

export function clearSessionCookies(res: Response, jar: CookieJar): void {
  res.append("Set-Cookie", serialize(jar.sessionName, "", jar, 0));
  clearDontRemember(res, jar);
}

export function clearDontRemember(res: Response, jar: CookieJar): void {
  res.append("Set-Cookie", serialize(jar.dontRememberName, "", jar, 0));
}

export function hasDontRemember(req: Request, jar: CookieJar, secret: string): boolean {
  const value = parseCookies(req.headers.cookie).get(jar.dontRememberName);
  return value !== undefined && unsign(value, secret) === "true";
}

/** Sets a signed browser-session cookie (no Max-Age) with the session cookie's attributes. */
export function setSignedCookie(res: Response, jar: CookieJar, name: string, value: string, secret: string): void {
  res.append("Set-Cookie", serialize(name, sign(value, secret), jar));
}

export function clearCookie(res: Response, jar: CookieJar, name: string): void {
  res.append("Set-Cookie", serialize(name, "", jar, 0));
}

/** The value of a signed cookie, or null when it is absent or its signature does not hold. */
export function signedCookie(req: Request, name: string, secret: string): string | null {
  const value = parseCookies(req.headers.cookie).get(name);
  return value === undefined ? null : unsign(value, secret);
}

/**
 * The social sign-in state cookie: binds a provider callback to the browser that started the sign-in, so
 * a callback URL made by someone else (login CSRF: an attacker's own code and state) is refused. It holds
 * the state signed; ten minutes, like the state.
 */
export const stateCookieName = (jar: CookieJar) => jar.sessionName.replace(/session_token$/, "oauth_state");

export function setStateCookie(res: Response, jar: CookieJar, secret: string, state: string): void {
  res.append("Set-Cookie", serialize(stateCookieName(jar), sign(state, secret), jar, 600));
}

export function clearStateCookie(res: Response, jar: CookieJar): void {
  res.append("Set-Cookie", serialize(stateCookieName(jar), "", jar, 0));
}

/** The state the request's (signed) state cookie holds, or null. */
export function stateFromCookie(req: Request, jar: CookieJar, secret: string): string | null {
  const cookie = parseCookies(req.headers.cookie).get(stateCookieName(jar));
  return cookie ? unsign(cookie, secret) : null;
}

/** Whether the request carries the state cookie of this state. */
export function hasStateCookie(req: Request, jar: CookieJar, secret: string, state: string): boolean {
  const value = stateFromCookie(req, jar, secret);
  if (value === null) return false;
  const a = Buffer.from(value);
  const b = Buffer.from(state);
  return a.length === b.length && timingSafeEqual(a, b);
}
