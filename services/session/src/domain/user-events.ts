/**
 * What happened to a user, as the session service learns it from identity (PutUserCopy, DropUserCopy, a
 * ban's RevokeUserSessions), pushed to WatchUserEvents' watchers
 * (docs/adr/0078-internal-services-watch-revocations.md). Who and what only: a user id and a kind, never a
 * field of the user, a token or a lookup. No acks and no lease: the sessions a change ends or alters go
 * through WatchSessionEvents, which the change waits for; these tell a service to drop what it derived from
 * the user (its own copy, permissions) or to act on it.
 */
import type { CachedUser } from "@auth-platform/runtime/session-cache";

export type UserEventKind = "updated" | "banned" | "unbanned" | "role-changed" | "deleted";

export interface UserEvent {
  userId: string;
  kind: UserEventKind;
  /** Epoch ms, when this service applied the change. */
  at: number;
}

/** What a change from `before` to `after` (null: no copy) means; nothing when the copy did not change. */
export function userChanges(before: CachedUser | null, after: CachedUser | null): UserEventKind[] {
  if (!after) return before ? ["deleted"] : [];
  if (before && JSON.stringify(before) === JSON.stringify(after)) return [];
  const kinds: UserEventKind[] = [];
  if (before && before.banned !== after.banned) kinds.push(after.banned ? "banned" : "unbanned");
  else if (!before && after.banned) kinds.push("banned");
  if (before && before.role !== after.role) kinds.push("role-changed");
  return kinds.length ? kinds : ["updated"];
}

export interface UserEventHub {
  /** Sends the events to every watcher (of every replica, through the relay when there is one). */
  publish(events: UserEvent[]): void;
  /** Delivers events to this replica's watchers (the relay's side). */
  deliver(events: UserEvent[]): void;
  /** A new watcher; returns its removal. */
  watch(sink: (event: UserEvent) => void): () => void;
  readonly watching: number;
}

export function userEventHub(): UserEventHub {
  const sinks = new Set<(event: UserEvent) => void>();
  const deliver = (events: UserEvent[]) => {
    for (const event of events) for (const sink of sinks) sink(event);
  };
  return {
    publish: deliver,
    deliver,
    watch(sink) {
      sinks.add(sink);
      return () => sinks.delete(sink);
    },
    get watching() {
      return sinks.size;
    },
  };
}
