/**
 * Keeps a SessionCache (session-cache.ts) in step with the session service: one WatchSessionEvents stream
 * under the internal-client certificate, each event applied and then acknowledged, a ping every quarter of
 * the lease. The lease answering ping n lasts until this process's clock when it SENT ping n, plus lease_ms;
 * the service counts from when it received the ping, never earlier, so this side never trusts longer than
 * the service waits for it. Losing the stream, or opening it again, clears the cache; it is reopened with
 * backoff. The one implementation of the protocol: the gateway's session memory is kept by it too, under its
 * own certificate (gateway/src/start.ts; docs/adr/0056-gateway-session-cache-invalidated-by-pushes.md,
 * 0078-internal-services-watch-revocations.md). It imports nothing of the gateway or the services.
 */
import { randomUUID } from "node:crypto";
import type { ClientDuplexStream } from "@grpc/grpc-js";
import type { SessionServiceClient, WatchSessionEventsRequest, WatchSessionEventsResponse } from "@auth-platform/proto/gen/auth/session/v1/session";

/** What the watcher needs of a cache (the package's SessionCache and the gateway's SessionMemory both fit). */
export interface WatchedCache {
  /** These sessions (by the platform's lookup hash) ended or changed. */
  dropSessions(lookups: readonly string[]): void;
  /** A user changed: every session of theirs held goes. */
  dropUser(userId: string): void;
  /** Entries may be trusted until this time on the watcher's monotonic clock. */
  leaseUntil(until: number): void;
  /** Drops everything and the lease: the stream was lost or opened again. */
  clear(): void;
}

/** An event as this process applied it (for metrics and tests): sessions by lookup hash, a user by id. */
export type AppliedEvent = { kind: "sessions-revoked" | "session-changed"; lookups: string[] } | { kind: "user-changed"; userId: string };

export interface SessionWatchOptions {
  client: SessionServiceClient;
  cache: WatchedCache;
  /** Told after each event is applied and before it is acknowledged. */
  onEvent?: (event: AppliedEvent) => void;
  /** Told once when the stream is lost (not again until a lease has come back); never given a token. */
  onWarning?: (message: string, fields: Record<string, unknown>) => void;
  /** The watcher's name in the service's logs (`node-` and a random id by default). */
  watcherId?: string;
  monotonic?: () => number;
}

export interface SessionWatch {
  /** Clears the cache, then half-closes the stream (the service forgets this watcher at once). */
  stop(): void;
}

/** How often to ping while the service grants no lease (it may start to after a restart). */
const IDLE_PING_MS = 5_000;
const RECONNECT_BASE_MS = 100;
const RECONNECT_MAX_MS = 2_000;

export function watchSessionEvents(options: SessionWatchOptions): SessionWatch {
  const monotonic = options.monotonic ?? (() => performance.now());
  const watcherId = options.watcherId ?? `node-${randomUUID()}`;
  let stream: ClientDuplexStream<WatchSessionEventsRequest, WatchSessionEventsResponse> | undefined;
  let pingTimer: NodeJS.Timeout | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let failures = 0;
  let stopped = false;

  const open = () => {
    reconnectTimer = undefined;
    options.cache.clear();
    const current = options.client.watchSessionEvents();
    stream = current;
    const sentAt = new Map<number, number>();
    let n = 0;
    let intervalMs = IDLE_PING_MS;
    const ping = () => {
      n += 1;
      sentAt.set(n, monotonic());
      current.write({ message: { $case: "ping", value: { n: String(n) } } });
      pingTimer = setTimeout(ping, intervalMs);
      pingTimer.unref();
    };
    current.on("data", (message: WatchSessionEventsResponse) => {
      const event = message.event;
      if (!event) return;
      if (event.$case === "lease") {
        const answered = Number(event.value.n);
        const sent = sentAt.get(answered);
        for (const number of sentAt.keys()) if (number <= answered) sentAt.delete(number);
        failures = 0;
        const next = event.value.leaseMs > 0 ? Math.max(50, Math.floor(event.value.leaseMs / 4)) : IDLE_PING_MS;
        if (next !== intervalMs) {
          intervalMs = next;
          clearTimeout(pingTimer);
          pingTimer = setTimeout(ping, intervalMs);
          pingTimer.unref();
        }
        if (sent !== undefined && event.value.leaseMs > 0) options.cache.leaseUntil(sent + event.value.leaseMs);
        return;
      }
      let applied: AppliedEvent;
      if (event.$case === "userChanged") {
        options.cache.dropUser(event.value.userId);
        applied = { kind: "user-changed", userId: event.value.userId };
      } else {
        options.cache.dropSessions(event.value.tokenLookups);
        applied = { kind: event.$case === "sessionsRevoked" ? "sessions-revoked" : "session-changed", lookups: event.value.tokenLookups };
      }
      options.onEvent?.(applied);
      current.write({ message: { $case: "ack", value: { seq: message.seq } } });
    });
    const lost = (error?: Error) => {
      if (stream !== current) return;
      stream = undefined;
      clearTimeout(pingTimer);
      options.cache.clear();
      if (stopped) return;
      failures += 1;
      const nominal = Math.min(RECONNECT_MAX_MS, RECONNECT_BASE_MS * 2 ** Math.min(failures - 1, 30));
      const delay = Math.round(nominal / 2 + Math.random() * (nominal / 2));
      if (failures === 1) options.onWarning?.("session event stream lost: the session cache is cleared until it is back", { error: error?.message, retryInMs: delay });
      reconnectTimer = setTimeout(open, delay);
      reconnectTimer.unref();
    };
    current.on("error", lost);
    current.on("end", () => lost());
    current.write({ message: { $case: "hello", value: { watcherId, acknowledges: true } } });
    ping();
  };

  open();
  return {
    stop() {
      stopped = true;
      clearTimeout(pingTimer);
      clearTimeout(reconnectTimer);
      const current = stream;
      stream = undefined;
      // Cleared first, then a half-close: the service forgets this watcher at once instead of waiting out its lease.
      options.cache.clear();
      current?.end();
    },
  };
}
