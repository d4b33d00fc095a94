/** The development mailbox: kept messages, newest first. Only while the development outbox is the transport. */
import { AuthError } from "@auth-platform/proto/errors";
import type { OutboxRecord } from "../store/notification-store.js";
import type { Registry } from "./ports.js";

type Deps = Pick<Registry, "store" | "transport">;

export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 200;

export async function listOutbox(deps: Deps, input: { to?: string; limit?: number }): Promise<OutboxRecord[]> {
  // Why: with real SMTP the outbox holds live reset and sign-in links; it is never readable then.
  if (deps.transport.kind !== "development-outbox") throw new AuthError("NOT_FOUND");
  const limit = Math.min(Math.max(input.limit || DEFAULT_LIST_LIMIT, 1), MAX_LIST_LIMIT);
  return deps.store.list({ recipient: input.to?.trim().toLowerCase() || undefined, limit });
}
