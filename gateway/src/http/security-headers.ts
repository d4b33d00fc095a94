/**
 * Headers of every answer under the base path. The browser gets these answers on the web app's own origin
 * (the web server, Vite and the Ingress pass the base path through), so none may become a page there: JSON
 * is never sniffed into HTML or a script, nothing in an answer may load or run (the /error page widens
 * the policy for its inline style only), no answer may be framed (clickjacking), and a redirect or the
 * /error page's link sends no Referer. When the public base URL is https, the browser is told to keep to
 * https for the host (the app's too, on one host): one year, no subdomains, which the platform does not own.
 * And nothing is stored: these answers carry sessions, tokens and users (get-session, sign-in, list-sessions),
 * and a CDN that keeps answers without Cache-Control for a default time would hand one user's session to the
 * next caller of the URL.
 */
import type { ServerResponse } from "node:http";
import type { NextFunction, Request, Response } from "express";

/** The policy of an answer that is data, not a page; routes that serve a page replace it, keeping frame-ancestors. */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Sets them on an answer: the middleware below, and the warm get-session answered before it (warm-session.ts). */
export function apiHeaders(baseUrl: string | undefined): (res: Pick<ServerResponse, "setHeader">) => void {
  const https = baseUrl?.startsWith("https:") ?? false;
  return (res) => {
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Content-Security-Policy", API_CONTENT_SECURITY_POLICY);
    res.setHeader("X-Frame-Options", "DENY");
    res.setHeader("Referrer-Policy", "no-referrer");
    if (https) res.setHeader("Strict-Transport-Security", "max-age=31536000");
  };
}

export function securityHeaders(baseUrl: string | undefined) {
  const set = apiHeaders(baseUrl);
  return (_req: Request, res: Response, next: NextFunction): void => {
    set(res);
    next();
  };
}
