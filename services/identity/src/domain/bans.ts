/** Bans at the moment a session is created (docs/adr/0036-bans-and-impersonation.md). */
import { AuthError, type ErrorCode } from "@auth-platform/proto/errors";
import type { UserRecord } from "../store/identity-store.js";
import type { Registry } from "./ports.js";

type Deps = Pick<Registry, "store" | "now">;

/**
 * The user as a session may be created for, once they proved who they are: an expired ban is lifted, a live
 * one refused with BANNED_USER and its end (docs/adr/0052-a-banned-user-is-told-after-the-proof.md), a user
 * gone meanwhile with the sign-in method's own `refusal`. The user is read again: the record given was read
 * before the proof (a scrypt, a provider round trip), and a ban stored meanwhile has already ended every
 * session it could find, so this one must see it.
 */
export async function admitUser(deps: Deps, user: UserRecord, refusal: ErrorCode): Promise<UserRecord> {
  const latest = await deps.store.findUserById(user.id);
  if (!latest) throw new AuthError(refusal);
  const current = await clearExpiredBan(deps, latest);
  if (current.banned) throw bannedUser(current);
  return current;
}

/**
 * The answer to a banned user's proven sign-in: only someone who proved who they are (the password, the
 * provider, the second factor) learns of the ban, so it tells no one else whether an address has an account.
 */
export function bannedUser(user: Pick<UserRecord, "banExpires">): AuthError {
  return new AuthError("BANNED_USER", undefined, { fields: { banExpires: user.banExpires?.toISOString() ?? null } });
}

/** The user as now stored, an expired ban lifted; null when the user is gone or banned. */
export async function admissibleUser(deps: Deps, userId: string): Promise<UserRecord | null> {
  const latest = await deps.store.findUserById(userId);
  if (!latest) return null;
  const current = await clearExpiredBan(deps, latest);
  return current.banned ? null : current;
}

/** Whether the user's ban holds at `now` (one whose expiry has passed only waits to be lifted). */
export function banHolds(user: Pick<UserRecord, "banned" | "banExpires">, now: Date): boolean {
  return user.banned && !(user.banExpires && user.banExpires <= now);
}

/** A ban whose expiry has passed is lifted at the next session creation. */
export async function clearExpiredBan(deps: Deps, user: UserRecord): Promise<UserRecord> {
  if (!user.banned || !user.banExpires || user.banExpires > deps.now()) return user;
  return (await deps.store.updateUser(user.id, { banned: false, banReason: null, banExpires: null })) ?? user;
}
