/** Domain records <-> contract messages. */
import type { User } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import type { UserRecord } from "../store/identity-store.js";

export function toUserMessage(user: UserRecord): User {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    emailVerified: user.emailVerified,
    image: user.image ?? undefined,
    createdAt: user.createdAt,
    updatedAt: user.updatedAt,
    username: user.username ?? undefined,
    displayUsername: user.displayUsername ?? undefined,
    role: user.role ?? undefined,
    banned: user.banned,
    banReason: user.banReason ?? undefined,
    banExpires: user.banExpires ?? undefined,
    extraFieldsJson: JSON.stringify(user.extraFields),
  };
}

/** Parses a JSON object sent by the gateway; anything else is bad input. */
export function parseJsonObject(json: string): Record<string, unknown> {
  if (!json) return {};
  const value: unknown = JSON.parse(json);
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new SyntaxError("not an object");
  return value as Record<string, unknown>;
}
