/**
 * The audit log: every admin action and every reported security event, with actor, action, target, time,
 * client IP, user agent and outcome. An admin action is recorded whether it succeeds or is refused; a
 * failure to write the record is logged and never fails the action it describes (the action has happened).
 */
import { AuthError } from "@auth-platform/proto/errors";
import { newId } from "@auth-platform/runtime/random";
import type { AuditQuery, AuditRecord } from "../store/audit-store.js";
import type { Registry, User } from "./ports.js";

type Deps = Pick<Registry, "store" | "now" | "log">;

/** Who acted, as far as known. */
export interface AuditActor {
  actorId: string | null;
  impersonatorId: string | null;
  ipAddress?: string;
  userAgent?: string;
}

export const AUDIT_PAGE_SIZE = 100;
export const AUDIT_MAX_PAGE_SIZE = 1000;

export async function record(deps: Deps, entry: Omit<AuditRecord, "id" | "at"> & { id?: string; at?: Date }): Promise<void> {
  try {
    await deps.store.append({ ...entry, id: entry.id ?? newId(), at: entry.at ?? deps.now() });
  } catch (error) {
    deps.log.error("audit record not written", { action: entry.action, error });
  }
}

/** Runs an action and records it: success, or failure with the refusal's code. */
export async function audited<T>(
  deps: Deps,
  actor: AuditActor,
  action: string,
  targetId: string | null,
  run: () => Promise<T>,
  details: Record<string, unknown> = {},
  targetOf?: (result: T) => string,
): Promise<T> {
  const base = {
    action,
    actorId: actor.actorId,
    impersonatorId: actor.impersonatorId,
    targetId: targetId || null,
    ipAddress: actor.ipAddress ?? null,
    userAgent: actor.userAgent ?? null,
  };
  try {
    const result = await run();
    await record(deps, { ...base, ...(targetOf && { targetId: targetOf(result) || null }), outcome: "success", details });
    return result;
  } catch (error) {
    const code = error instanceof AuthError ? error.code : "INTERNAL_SERVER_ERROR";
    await record(deps, { ...base, outcome: "failure", details: { ...details, error: code } });
    throw error;
  }
}

export async function listAuditEvents(deps: Pick<Registry, "store">, query: Partial<AuditQuery>): Promise<{ records: AuditRecord[]; total: number }> {
  const limit = query.limit || AUDIT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_MAX_PAGE_SIZE)
    throw new AuthError("VALIDATION_ERROR", `Invalid limit: expected an integer from 1 to ${AUDIT_MAX_PAGE_SIZE}`);
  const offset = query.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0) throw new AuthError("VALIDATION_ERROR", "Invalid offset: expected an integer of 0 or more");
  return deps.store.list({ ...query, limit, offset });
}

/** Who a user the log names is, as identity knows them now. */
export type NamedUser = Pick<User, "id" | "name" | "email">;

/**
 * The users a page of records names (actor, impersonator, target), each once, read from identity in one call
 * when the page is read: the log itself keeps ids only, so a removed user's name and email are gone from it
 * with the user (docs/adr/0054-last-sign-in-and-audit-names.md).
 */
export async function usersNamedIn(deps: Pick<Registry, "identity">, records: AuditRecord[]): Promise<NamedUser[]> {
  const ids = new Set(records.flatMap((record) => [record.actorId, record.impersonatorId, record.targetId]).filter((id) => id !== null));
  if (ids.size === 0) return [];
  const users = await deps.identity.getUsers([...ids]);
  return users.map(({ id, name, email }) => ({ id, name, email }));
}

/** Deletes records past the retention; a retention of 0 days keeps everything. */
export async function purgeExpired(deps: Pick<Registry, "config" | "store" | "now">): Promise<number> {
  const days = deps.config.auditRetentionDays;
  if (!days) return 0;
  return deps.store.deleteOlderThan(new Date(deps.now().getTime() - days * 86_400_000));
}

/** Purges once an hour (and once at start); returns a stop function. */
export function startRetention(deps: Pick<Registry, "config" | "store" | "now" | "log">): () => void {
  const run = () => {
    purgeExpired(deps).catch((error: unknown) => deps.log.warn("audit retention purge failed; will try again", { error }));
  };
  run();
  const timer = setInterval(run, 3_600_000);
  timer.unref();
  return () => clearInterval(timer);
}
