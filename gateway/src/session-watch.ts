/**
 * Keeps the gateway's session memory (http/session-memory.ts) in step with the session service: one
 * WatchSessionEvents stream, each event applied and then acknowledged, a ping every quarter of the lease.
 * The lease answering ping n lasts until this process's own clock when it SENT ping n, plus lease_ms: the
 * session service counts from when it received that ping, never earlier, so this side never trusts longer
 * than the service waits for it (docs/adr/0056-gateway-session-cache-invalidated-by-pushes.md). The stream
 * lost, or opened again, clears the memory; it is opened again with backoff.
 */
import { randomUUID } from "node:crypto";
import type { ClientDuplexStream } from "@grpc/grpc-js";
import type { SessionServiceClient, WatchSessionEventsRequest, WatchSessionEventsResponse } from "@auth-platform/proto/gen/auth/session/v1/session";
import { retryDelay } from "@auth-platform/runtime/backoff";
import type { Logger } from "@auth-platform/runtime/log";
import { authEvents } from "@auth-platform/runtime/metrics";
import { type SessionMemory, sessionMemory } from "./http/session-memory.js";

/** How often to ping while the service grants no lease (it may start to after a restart). */
const IDLE_PING_MS = 5_000;
const RECONNECT = { baseMs: 100, maxMs: 2_000 };

export interface SessionWatch {
  stop(): void;
}

/** The session memory GATEWAY_SESSION_CACHE_SIZE asks for, kept by its watch (undefined for 0). */
export function startSessionMemory(maxEntries: number, client: SessionServiceClient, log: Logger): { memory: SessionMemory; watch: SessionWatch } | undefined {
  if (maxEntries <= 0) return undefined;
  const memory = sessionMemory({ maxEntries, onLookup: authEvents.gatewaySessionCacheLookup });
  return { memory, watch: watchSessionEvents({ client, memory, log }) };
}

export function watchSessionEvents(deps: { client: SessionServiceClient; memory: SessionMemory; log: Logger; monotonic?: () => number }): SessionWatch {
  const monotonic = deps.monotonic ?? (() => performance.now());
  const watcherId = randomUUID();
  let stream: ClientDuplexStream<WatchSessionEventsRequest, WatchSessionEventsResponse> | undefined;
  let pingTimer: NodeJS.Timeout | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let failures = 0;
  let stopped = false;

  const open = () => {
    reconnectTimer = undefined;
    deps.memory.clear();
    const current = deps.client.watchSessionEvents();
    stream = current;
    // When each ping was sent, by number: the lease answering it counts from there.
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
        const nextInterval = event.value.leaseMs > 0 ? Math.max(50, Math.floor(event.value.leaseMs / 4)) : IDLE_PING_MS;
        if (nextInterval !== intervalMs) {
          intervalMs = nextInterval;
          clearTimeout(pingTimer);
          pingTimer = setTimeout(ping, intervalMs);
          pingTimer.unref();
        }
        if (sent !== undefined && event.value.leaseMs > 0) deps.memory.leaseUntil(sent + event.value.leaseMs);
        return;
      }
      if (event.$case === "sessionsRevoked" || event.$case === "sessionChanged") deps.memory.dropSessions(event.value.tokenLookups);
      else if (event.$case === "userChanged") deps.memory.dropUser(event.value.userId);
      current.write({ message: { $case: "ack", value: { seq: message.seq } } });
    });
    const lost = (error?: Error) => {
      if (stream !== current) return;
      stream = undefined;
      clearTimeout(pingTimer);
      deps.memory.clear();
      if (stopped) return;
      failures += 1;
      const delay = retryDelay(failures, RECONNECT);
      if (failures === 1) deps.log.warn("session event stream lost: the session memory is cleared until it is back", { error: error?.message, retryInMs: delay });
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
      deps.memory.clear();
      current?.end();
    },
  };
}
