/**
 * The two-factor cookies. Both carry a server-side token signed like the session cookie (an HMAC under the
 * server secret), so a forged value is refused before any lookup; the record behind each (challenge,
 * trusted device) lives in identity, so a stolen or replayed value is worth only what that record allows.
 */
import type { Request, Response } from "express";
import { type CookieJar, parseCookies, serialize, sign, unsign } from "./cookies.js";

const secondsUntil = (expiresAt: Date | undefined) => ((expiresAt?.getTime() ?? Date.now()) - Date.now()) / 1000;

function read(req: Request, name: string, secret: string): string | null {
  const value = parseCookies(req.headers.cookie).get(name);
  return value === undefined ? null : unsign(value, secret);
}

/** The challenge cookie holds the challenge token and the user it signs in (named in the audit log when an answer fails). */
export function setTwoFactorCookie(res: Response, jar: CookieJar, secret: string, token: string, expiresAt: Date | undefined, userId: string): void {
  res.append("Set-Cookie", serialize(jar.twoFactorName, sign(`${token}:${userId}`, secret), jar, secondsUntil(expiresAt)));
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

export function setTrustDeviceCookie(res: Response, jar: CookieJar, secret: string, token: string, expiresAt: Date | undefined): void {
  res.append("Set-Cookie", serialize(jar.trustDeviceName, sign(token, secret), jar, secondsUntil(expiresAt)));
}

export const trustDeviceCookie = (req: Request, jar: CookieJar, secret: string) => read(req, jar.trustDeviceName, secret);

export function clearTrustDeviceCookie(res: Response, jar: CookieJar): void {
  res.append("Set-Cookie", serialize(jar.trustDeviceName, "", jar, 0));
}
