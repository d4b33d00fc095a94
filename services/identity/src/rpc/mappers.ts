/** Domain records <-> contract messages. */
import type { Account, CallerSession as CallerMessage, Client, User } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import type { CallerSession, ClientInfo } from "../domain/ports.js";
import type { AccountRecord, UserRecord } from "../store/identity-store.js";

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

export function toAccountMessage(account: AccountRecord): Account {
  return {
    id: account.id,
    providerId: account.providerId,
    accountId: account.accountId,
    createdAt: account.createdAt,
    updatedAt: account.updatedAt,
    scopes: (account.scope ?? "").split(",").map((s) => s.trim()).filter(Boolean),
  };
}

export function toClient(client: Client | undefined): ClientInfo {
  return { ipAddress: client?.ipAddress, userAgent: client?.userAgent };
}

export function toCaller(caller: CallerMessage | undefined): CallerSession | undefined {
  return caller?.createdAt ? { token: caller.token, createdAt: caller.createdAt } : undefined;
}
