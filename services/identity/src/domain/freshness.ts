/** Actions that need a recent sign-in: the caller's session must be younger than freshAge (0 disables). */
import { AuthError } from "@auth-platform/proto/errors";
import type { CallerFacts } from "./ports.js";

/** A caller whose session's creation is unknown is not fresh. */
export function requireFreshSession(caller: CallerFacts | undefined, freshAgeSeconds: number, now: Date): void {
  if (freshAgeSeconds === 0) return;
  const createdAt = caller?.sessionCreatedAt;
  if (!createdAt || now.getTime() - createdAt.getTime() > freshAgeSeconds * 1000) throw new AuthError("SESSION_IS_NOT_FRESH");
}
