/**
 * The two-factor cookies. Both carry a server-side token signed like the session cookie (an HMAC under the
 * server secret), so a forged value is refused before any lookup; the record behind each (challenge,
 * trusted device) lives in identity, so a stolen or replayed value is worth only what that record allows.
 */
import type { Request, Response } from "express";
import { type CookieJar, parseCookies, serialize, sign, unsign } from "./cookies.js";

/**
 * A cookie's Max-Age: exactly the lifetime identity gave the token (expiresAt - issuedAt: 600 s for a
 * challenge, 2592000 s for a trusted device), like the session cookie, so the time the call took does not
 * shave a second off. An identity of the previous release sends no issuedAt: what is left from now.
 */
function lifetimeSeconds(expiresAt: Date | undefined, issuedAt: Date | undefined): number {
  if (expiresAt && issuedAt) return Math.round((expiresAt.getTime() - issuedAt.getTime()) / 1000);
  return ((expiresAt?.getTime() ?? Date.now()) - Date.now()) / 1000;
}

/** The lifetime of a token identity issued. */
export interface IssuedToken {
  token: string;
  expiresAt?: Date | undefined;
  issuedAt?: Date | undefined;
}

function read(req: Request, name: string, secret: string): string | null {
  const value = parseCookies(req.headers.cookie).get(name);
  return value === undefined ? null : unsign(value, secret);
}

/** The challenge cookie holds the challenge token and the user it signs in (named in the audit log when an answer fails). */
export function setTwoFactorCookie(res: Response, jar: CookieJar, secret: string, challenge: IssuedToken, userId: string): void {
  const value = sign(`${challenge.token}:${userId}`, secret);
  res.append("Set-Cookie", serialize(jar.twoFactorName, value, jar, lifetimeSeconds(challenge.expiresAt, challenge.issuedAt)));
}

/** The challenge token and its user, or null when the cookie is missing or its signature does not hold. */
export function twoFactorCookie(req: Request, jar: CookieJar, secret: string): { token: string; userId: string } | null {
  const value = read(req, jar.twoFactorName, secret);
  if (value === null) return null;
  const [token = "", userId = ""] = value.split(":");
  return { token, userId };
}

export function clearTwoFactorCookie(res: Response, jar: CookieJar): void {
  res.append("Set-Cookie", serialize(jar.twoFactorName, "", jar, 0));
}

export function setTrustDeviceCookie(res: Response, jar: CookieJar, secret: string, device: IssuedToken): void {
  res.append("Set-Cookie", serialize(jar.trustDeviceName, sign(device.token, secret), jar, lifetimeSeconds(device.expiresAt, device.issuedAt)));
}

export const trustDeviceCookie = (req: Request, jar: CookieJar, secret: string) => read(req, jar.trustDeviceName, secret);

export function clearTrustDeviceCookie(res: Response, jar: CookieJar): void {
  res.append("Set-Cookie", serialize(jar.trustDeviceName, "", jar, 0));
}

/** The attempt token of a passkey ceremony (HttpOnly, signed, as long as the ceremony lives). */
export function setPasskeyCookie(res: Response, jar: CookieJar, secret: string, ceremony: IssuedToken): void {
  res.append("Set-Cookie", serialize(jar.passkeyName, sign(ceremony.token, secret), jar, lifetimeSeconds(ceremony.expiresAt, ceremony.issuedAt)));
}

export const passkeyCookie = (req: Request, jar: CookieJar, secret: string) => read(req, jar.passkeyName, secret);

export function clearPasskeyCookie(res: Response, jar: CookieJar): void {
  res.append("Set-Cookie", serialize(jar.passkeyName, "", jar, 0));
}
