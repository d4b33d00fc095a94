/** Redirects to a resolved callback URL (callback-url.ts) with query parameters added. */
import type { Response } from "express";
import type { CallbackUrl } from "./callback-url.js";

export function redirectTo(res: Response, target: CallbackUrl, params: Record<string, string> = {}): void {
  res.redirect(302, target.location(params));
}
