/**
 * CORS for trusted origins only: the web app is served from its own origin and calls the API with
 * credentials (the session cookie), so the exact origin is echoed, never `*`. Preflights are answered here,
 * before rate limiting and body parsing.
 */
import type { ServerResponse } from "node:http";
import type { NextFunction, Request, Response } from "express";
import { isTrustedOrigin, originOf } from "./origins.js";

const ALLOWED_HEADERS = "content-type, authorization, x-request-id";
const EXPOSED_HEADERS = "set-auth-token, set-auth-jwt, x-retry-after, retry-after, x-request-id";

/** Every answer varies by Origin; set first (res.vary would parse and merge what is there; nothing is, this early). */
export const varyByOrigin = (res: Pick<ServerResponse, "setHeader">): void => void res.setHeader("Vary", "Origin");

export function cors(req: Request, res: Response, next: NextFunction): void {
  const origin = req.headers.origin;
  varyByOrigin(res);
  if (origin && isTrustedOrigin(originOf(origin), req.facts.trustedOrigins)) {
    res.setHeader("Access-Control-Allow-Origin", origin);
    res.setHeader("Access-Control-Allow-Credentials", "true");
    res.setHeader("Access-Control-Expose-Headers", EXPOSED_HEADERS);
    if (req.method === "OPTIONS") {
      res.setHeader("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
      res.setHeader("Access-Control-Allow-Headers", ALLOWED_HEADERS);
      res.setHeader("Access-Control-Max-Age", "600");
      res.status(204).end();
      return;
    }
  } else if (req.method === "OPTIONS") {
    // An untrusted preflight gets no CORS headers, so the browser refuses the real request.
    res.status(204).end();
    return;
  }
  next();
}
