/** Actions that need a recent sign-in: the caller's session must be younger than freshAge (0 disables). */
import { AuthError } from "@auth-platform/proto/errors";
import type { CallerSession } from "./ports.js";

export function requireFreshSession(caller: CallerSession | undefined, freshAgeSeconds: number, now: Date): void {
  if (freshAgeSeconds === 0) return;
  if (!caller || now.getTime() - caller.createdAt.getTime() > freshAgeSeconds * 1000) throw new AuthError("SESSION_IS_NOT_FRESH");
}
