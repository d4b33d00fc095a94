/**
 * Several session replicas (with Redis): every change reaches the watchers of every replica before it answers
 * (docs/adr/0056-gateway-session-cache-invalidated-by-pushes.md, "Several replicas").
 *
 * - The replica where a change happens publishes its event on the Redis channel and, in the same script, lists
 *   the registered replicas; it waits for its own watchers (session-events.ts) and for each listed replica to
 *   report the event done, or for that replica's registration to lapse.
 * - Every replica relays the events of others to its own watchers, waits for them as for its own, then
 *   publishes "done" for the event under its registration.
 * - A replica registers only once subscribed, renews every quarter of the watcher lease, and grants a watcher
 *   lease only while that lease ends before its registration can lapse; so a replica cut off from Redis has
 *   no watcher trusting anything by the time the others stop waiting for it. Losing the subscription (events
 *   may be missed) ends every stream, and the replica registers afresh under a new id once subscribed again.
 * - Redis unreachable at publication: the change is recorded in the store as pending (recordUnpublished), so
 *   whichever replica next flushes what is pending tells every replica's watchers (cache-lease.ts), then it
 *   waits out a registration, by when every replica that could not hear it has no lease left.
 */
import { randomUUID } from "node:crypto";
import type { RedisBroadcast } from "@auth-platform/runtime/redis-broadcast";
import type { SessionEvent, SessionEventHub } from "./session-events.js";

/** Covers the difference in rate between Redis's clock and this process's. */
const CLOCK_MARGIN_MS = 50;

type Message = { kind: "event"; id: string; origin: string; event: SessionEvent } | { kind: "done"; id: string; member: string };

export interface SessionRelay {
  /** Publishes to this replica's watchers and every other replica's; resolves once all have applied it or lapsed. */
  publish(event: SessionEvent): Promise<void>;
  /** Whether this replica may grant a watcher lease now (the hub asks on each ping). */
  mayGrant(): boolean;
  /** Subscribes, then registers; resolves once registered, or after timeoutMs (Redis away: no leases until it is back). */
  start(timeoutMs?: number): Promise<void>;
  /** Grants no more leases, ends every stream, waits until the leases granted have ended, then unregisters. */
  stop(): Promise<void>;
}

export interface SessionRelayDeps {
  hub: Pick<SessionEventHub, "publish" | "endAll" | "leasesEndBy">;
  broadcast: Pick<RedisBroadcast, "listen" | "publish" | "members" | "register" | "unregister">;
  /** The watcher lease (SESSION_CACHE_LEASE_MS). */
  leaseMs: number;
  /**
   * Records an event Redis did not take as pending in the store: replicas that still hear Redis never heard
   * it, and the next flush of what is pending tells them (registry.ts: the sessions' cache entries to drop).
   */
  recordUnpublished?: (event: SessionEvent) => Promise<void>;
  /**
   * How long a registration lasts: longer than the lease (1.5 times by default). A change made while Redis is
   * away waits it out, so with the store's and Redis's own timeouts it must fit the callers' 5 s deadline.
   */
  registrationMs?: number;
  /** A monotonic clock (ms); performance.now by default. */
  now?: () => number;
  /** Calls `fn` after `ms`; returns its cancellation. setTimeout by default. */
  schedule?: (ms: number, fn: () => void) => () => void;
  log: { info(message: string, fields?: Record<string, unknown>): void; warn(message: string, fields?: Record<string, unknown>): void };
}

const defaultSchedule = (ms: number, fn: () => void) => {
  const timer = setTimeout(fn, ms);
  return () => clearTimeout(timer);
};

export function sessionRelay(deps: SessionRelayDeps): SessionRelay {
  const now = deps.now ?? (() => performance.now());
  const schedule = deps.schedule ?? defaultSchedule;
  const registrationMs = deps.registrationMs ?? 1.5 * deps.leaseMs;
  const sleep = (ms: number) => new Promise<void>((resolve) => schedule(Math.max(0, ms), resolve));
  // Names this process as the origin of its events (its registration id changes after a lost subscription).
  const origin = randomUUID();
  let member: string | undefined;
  /** When the last renewal that succeeded was SENT: Redis counts the registration from later. */
  let renewedAt = Number.NEGATIVE_INFINITY;
  let renewing = false;
  let stopped = false;
  let cancelRenewal = () => {};
  let registered = () => {};
  /** The events this process published, by id: told of each replica that reports one done. */
  const awaiting = new Map<string, (member: string) => void>();

  const renew = async () => {
    const id = member;
    if (!id || renewing || stopped) return;
    renewing = true;
    const sentAt = now();
    try {
      await deps.broadcast.register(id, registrationMs);
      if (member === id) renewedAt = Math.max(renewedAt, sentAt);
      registered();
    } catch (error) {
      // The next renewal retries; leases stop being granted once this one's margin is used up.
      if (now() - renewedAt > deps.leaseMs / 4 + 1) deps.log.warn("session replica registration not renewed: no watcher leases until it is", { error });
    } finally {
      renewing = false;
    }
  };
  const renewEvery = () => {
    // A quarter: a lease is granted only while the last renewal is under half a lease old (mayGrant), so a
    // renewal may be a quarter of a lease late (a busy event loop, a slow Redis) before grants pause.
    cancelRenewal = schedule(Math.max(50, Math.floor(deps.leaseMs / 4)), () => {
      void renew();
      renewEvery();
    });
  };

  const send = (message: Message) => deps.broadcast.publish(JSON.stringify(message));

  const relay = async (id: string, event: SessionEvent) => {
    const as = member;
    await deps.hub.publish(event);
    // Reported even if the subscription has gone since: the watchers of that registration have applied it or lapsed.
    if (as) await send({ kind: "done", id, member: as }).catch((error) => deps.log.warn("session event relayed but not reported done", { error }));
  };

  const onMessage = (raw: string) => {
    let message: Message;
    try {
      message = JSON.parse(raw) as Message;
    } catch {
      return;
    }
    if (message.kind === "done") awaiting.get(message.id)?.(message.member);
    else if (message.kind === "event" && message.origin !== origin) void relay(message.id, message.event);
  };

  const onSubscribed = (subscribed: boolean) => {
    if (subscribed) {
      if (stopped) return;
      member = randomUUID();
      renewedAt = Number.NEGATIVE_INFINITY;
      void renew();
      deps.log.info("session event relay subscribed: registered as a replica", { member });
      return;
    }
    // Events published from now until a new subscription are never delivered: every watcher starts again
    // empty, and the old registration lapses (the others wait for it until then).
    member = undefined;
    renewedAt = Number.NEGATIVE_INFINITY;
    deps.log.warn("session event relay lost its Redis subscription: watcher streams ended until it is back");
    deps.hub.endAll("the session event relay lost its subscription");
  };

  /** Waits for each listed replica to report done, or for its registration to lapse (looked at again then). */
  const awaitReplicas = async (id: string, listed: { id: string; remainingMs: number }[], listedAt: number, done: Set<string>, changed: { wake: () => void }) => {
    const lapses = new Map(listed.map((m) => [m.id, listedAt + m.remainingMs + CLOCK_MARGIN_MS]));
    for (;;) {
      for (const replica of done) lapses.delete(replica);
      if (!lapses.size) return;
      const next = Math.min(...lapses.values());
      if (now() < next) {
        await new Promise<void>((resolve) => {
          const cancel = schedule(next - now(), resolve);
          changed.wake = () => {
            cancel();
            resolve();
          };
        });
        continue;
      }
      // A registration seen lapsing may have been renewed since: that replica is live and still relaying.
      let members: { id: string; remainingMs: number }[];
      try {
        members = await deps.broadcast.members();
      } catch (error) {
        // Every listed replica heard the event (subscribed before registering); a live one relays it within a lease.
        deps.log.warn("session event relay: cannot look at the registry again; waiting out one lease", { error, event: id });
        await sleep(deps.leaseMs + CLOCK_MARGIN_MS);
        return;
      }
      const at = now();
      for (const [replica, lapse] of lapses) {
        if (lapse > at) continue;
        const still = members.find((m) => m.id === replica);
        if (still && still.remainingMs > 0) lapses.set(replica, at + still.remainingMs + CLOCK_MARGIN_MS);
        else lapses.delete(replica);
      }
    }
  };

  const publishToReplicas = async (event: SessionEvent) => {
    const id = randomUUID();
    const done = new Set<string>();
    const changed = { wake: () => {} };
    awaiting.set(id, (replica) => {
      done.add(replica);
      changed.wake();
    });
    try {
      let listed: { id: string; remainingMs: number }[];
      try {
        listed = await send({ kind: "event", id, origin, event });
      } catch (error) {
        deps.log.warn("session event not published (Redis unavailable): recorded as pending, waiting out the replicas' registration", { error, kind: event.kind });
        await Promise.all([
          deps.recordUnpublished?.(event).catch((cause: unknown) => deps.log.warn("unpublished session event not recorded either", { error: cause, kind: event.kind })),
          sleep(registrationMs + CLOCK_MARGIN_MS),
        ]);
        return;
      }
      const self = member;
      await awaitReplicas(
        id,
        listed.filter((m) => m.id !== self),
        now(),
        done,
        changed,
      );
    } finally {
      awaiting.delete(id);
    }
  };

  return {
    async publish(event) {
      await Promise.all([deps.hub.publish(event), publishToReplicas(event)]);
    },
    mayGrant() {
      // A lease granted now ends (as the hub counts it) by now + leaseMs: before the registration can lapse.
      return member !== undefined && !stopped && now() + deps.leaseMs <= renewedAt + registrationMs - CLOCK_MARGIN_MS;
    },
    start(timeoutMs = 5_000) {
      const done = new Promise<void>((resolve) => {
        const cancel = schedule(timeoutMs, resolve);
        registered = () => {
          cancel();
          resolve();
        };
      });
      deps.broadcast.listen(onMessage, onSubscribed);
      renewEvery();
      return done;
    },
    async stop() {
      stopped = true;
      cancelRenewal();
      deps.hub.endAll("shutting down");
      // Until then a partitioned watcher may still trust what it holds: the others keep waiting for this registration.
      await sleep(deps.hub.leasesEndBy() - now());
      const id = member;
      member = undefined;
      if (id) await deps.broadcast.unregister(id).catch(() => undefined);
    },
  };
}
