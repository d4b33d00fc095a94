/**
 * Every answer under the base path belongs to one caller: a session and its token (get-session, sign-in,
 * list-sessions), a user, a redirect carrying a token. None may be kept by the browser or by a shared
 * cache in front of the gateway: a CDN that stores answers without Cache-Control for a default time would
 * otherwise hand one user's get-session, token included, to whoever asks for the same URL next.
 */
import type { NextFunction, Request, Response } from "express";

export function noStore(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader("Cache-Control", "no-store");
  next();
}
