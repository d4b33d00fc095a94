/**
 * A burst of failed sign-ins, as the gateway counted it (docs/adr/0032-security-events-reported-by-gateway.md),
 * becomes the webhook event user.sign_in_failed_burst when the email or username it names is a user's: one row
 * of the user event outbox under the gateway's id (one per account and window), published like the user's
 * other events (domain/user-events.ts). Nothing is written per failure, and the client's answer was given
 * before this runs; an identifier that names no one writes nothing.
 */
import { AuthError } from "@auth-platform/proto/errors";
import { normaliseEmail } from "./validation.js";
import type { Registry } from "./ports.js";

type Deps = Pick<Registry, "store">;

export interface SignInFailureBurst {
  eventId: string;
  identifier: string;
  failures: number;
  windowSeconds: number;
  ipAddresses: string[];
  at: Date;
}

/** The IPs a burst may name at most (the gateway keeps 20). */
const MAX_IPS = 20;

/** The user the identifier names, as sign-in finds one: an address, else a username. */
async function userNamed(deps: Deps, identifier: string) {
  const typed = identifier.trim().toLowerCase();
  if (!typed.includes("@")) return deps.store.findUserByUsername(typed);
  try {
    return await deps.store.findUserByEmail(normaliseEmail(typed));
  } catch {
    return null;
  }
}

export async function recordSignInFailureBurst(deps: Deps, burst: SignInFailureBurst): Promise<void> {
  if (!burst.eventId || burst.eventId.length > 64 || !burst.identifier || burst.identifier.length > 320 || burst.failures < 1 || burst.windowSeconds < 1)
    throw new AuthError("VALIDATION_ERROR", "a burst needs an event id, an identifier, its failures and its window");
  if (burst.ipAddresses.length > MAX_IPS || burst.ipAddresses.some((ip) => ip.length > 64)) throw new AuthError("VALIDATION_ERROR", "too many or too long ipAddresses");
  const user = await userNamed(deps, burst.identifier);
  if (!user) return;
  const data = { userId: user.id, failures: burst.failures, windowSeconds: burst.windowSeconds, ipAddresses: burst.ipAddresses };
  await deps.store.addUserEvent({ id: burst.eventId, userId: user.id, type: "user.sign_in_failed_burst", payload: { data: JSON.stringify(data) }, occurredAt: burst.at });
}
