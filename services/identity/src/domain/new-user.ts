/** A user as it is first stored, whichever way it signed up (sign-up, a provider, a mailed link or code, an admin). */
import { newId } from "@auth-platform/runtime/random";
import type { UserRecord } from "../store/identity-store.js";

/** What the way in decides; the rest starts the same for everyone (no ban, no second factor). */
export type NewUserFields = Pick<UserRecord, "name" | "email" | "emailVerified" | "image" | "role"> & Partial<Pick<UserRecord, "username" | "displayUsername" | "extraFields">>;

export function newUser(now: Date, fields: NewUserFields): UserRecord {
  return {
    id: newId(),
    username: null,
    displayUsername: null,
    extraFields: {},
    ...fields,
    createdAt: now,
    updatedAt: now,
    banned: false,
    banReason: null,
    banExpires: null,
    twoFactorEnabled: false,
  };
}
