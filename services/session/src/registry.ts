/**
 * Builds the session service's dependencies once: config, store, cache, clock. It calls one other service,
 * notification, to publish its webhook events (identity pushes users to it:
 * docs/adr/0021-call-graph-deadlines-and-errors.md).
 */
import { WebhookServiceClient } from "@auth-platform/proto/gen/auth/notification/v1/webhook";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import { call } from "@auth-platform/runtime/rpc";
import { cacheMac } from "@auth-platform/runtime/cache-mac";
import { openKeyValue } from "@auth-platform/runtime/key-value";
import type { Logger } from "@auth-platform/runtime/log";
import type { RedisBroadcast } from "@auth-platform/runtime/redis-broadcast";
import { sessionHandles } from "@auth-platform/runtime/session-handles";
import { redisWarnings } from "@auth-platform/runtime/redis-connection";
import { tokenVault } from "@auth-platform/runtime/session-token";
import type { SessionConfig } from "./config.js";
import { cacheLease } from "./domain/cache-lease.js";
import { jwtKeyRing, jwtKeySealing } from "./domain/jwt-keys.js";
import type { Registry } from "./domain/ports.js";
import { type SessionEventHub, sessionEventHub } from "./domain/session-events.js";
import { sessionRelay } from "./domain/session-relay.js";
import { type UserEvent, type UserEventHub, userEventHub } from "./domain/user-events.js";
import { startSessionEventWorker } from "./domain/webhook-events.js";
import { openSessionStore } from "./store/mikro-session-store.js";

export async function buildRegistry(
  config: SessionConfig,
  log: Logger,
  now: () => Date = () => new Date(),
): Promise<Registry & { events: SessionEventHub; userEvents: UserEventHub; close(): Promise<void> }> {
  if (config.secretIsDefault) log.warn("AUTH_SECRET is not set: using the generated development secret kept in AUTH_SECRET_FILE (never in production)");
  const tokens = tokenVault(config.secret);
  const store = await openSessionStore(config.databaseUrl, tokens, { now });
  for (const warning of redisWarnings(config.redis, config.production)) log.warn(warning);
  const cache = await openKeyValue(config.redis, log, config.redisKeyPrefix);
  await cache.ready();
  // With Redis several replicas may run: each change reaches the watchers of all of them through a channel
  // (domain/session-relay.ts). The broadcasts, and ioredis under them, are loaded only then.
  const redis = config.redis;
  const broadcasts = redis ? await import("@auth-platform/runtime/redis-broadcast") : undefined;
  const broadcastOn = (channel: string) => (redis ? broadcasts?.createRedisBroadcast(redis, log, config.redisKeyPrefix, channel) : undefined);
  const broadcast = broadcastOn("session-events");
  // No lease while the store is out of reach: get-session must then go through the session service's
  // bounded stale serving (cache-lease.ts), not a gateway's memory that nothing bounds.
  const hub = sessionEventHub({ leaseMs: config.cacheLeaseMs, mayGrant: () => lease.staleServingUntil() === 0 && (relay?.mayGrant() ?? true), log });
  const relay =
    broadcast &&
    sessionRelay({
      hub,
      broadcast,
      leaseMs: config.cacheLeaseMs,
      log,
      // What the event drops, as pending forgets: the next flush (any replica's) publishes them to all.
      async recordUnpublished(event) {
        const lookups = event.kind === "user-changed" ? (await store.listByUser(event.userId)).map((session) => tokens.lookup(session.token)) : event.lookups;
        await store.forgetPending(lookups);
        lease.forbidStaleServing();
      },
    });
  const userEvents = userEventRelay(broadcastOn("user-events"), log);
  // Registered before the first watcher asks for a lease (or serving without leases while Redis is away).
  await relay?.start();
  const events: SessionEventHub = { ...hub, publish: relay ? relay.publish : hub.publish };
  const lease = cacheLease({
    store,
    cache,
    log,
    leaseMs: config.cacheLeaseMs,
    staleServeMs: config.cacheStaleServeSeconds * 1000,
    // To every replica's watchers: the flushing replica may be the only one that heard of what is pending.
    publish: events.publish,
  });
  // Held (or pending revocations flushed) before the first request, so the cache is trusted from the start.
  await lease.start();
  const webhookClient = createGrpcClient(WebhookServiceClient, config.notificationServiceUrl, { tls: config.grpc.tls, serverName: "notification" });
  const webhooks: Registry["webhooks"] = {
    async publish(events) {
      await call(webhookClient, webhookClient.publishEvents, { events });
    },
  };
  const worker = startSessionEventWorker({ store, webhooks, now, log });
  return {
    config,
    store,
    cache,
    cacheMac: cacheMac(config.secret),
    tokens,
    handles: sessionHandles(config.secret),
    lease,
    events,
    jwtKeys: jwtKeyRing({ store, config, sealing: jwtKeySealing(config.secret), now }),
    userEvents: userEvents.hub,
    webhooks,
    log,
    now,
    async close() {
      await worker.stop();
      webhookClient.close();
      await userEvents.close();
      if (relay) await relay.stop();
      else hub.endAll("shutting down");
      await lease.stop();
      await cache.close();
      if (broadcast) await broadcast.close();
      await store.close();
    },
  };
}

/**
 * WatchUserEvents' hub: with Redis, every replica's changes reach every replica's watchers through a channel
 * of their own (`<prefix>user-events`), published to and delivered from Redis alike (one order); without,
 * this replica's own. No acks (docs/adr/0078-internal-services-watch-revocations.md): Redis refusing the
 * publication delivers it here only, and logs it.
 */
function userEventRelay(broadcast: RedisBroadcast | undefined, log: Logger): { hub: UserEventHub; close(): Promise<void> } {
  const hub = userEventHub();
  if (!broadcast) return { hub, close: async () => {} };
  broadcast.listen(
    (message) => {
      try {
        hub.deliver(JSON.parse(message) as UserEvent[]);
      } catch (error) {
        log.warn("user event relay: an unreadable message ignored", { error });
      }
    },
    () => undefined,
  );
  return {
    hub: {
      ...hub,
      publish(events) {
        if (!events.length) return;
        broadcast.publish(JSON.stringify(events)).catch((error: unknown) => {
          log.warn("user event relay: Redis refused the publication; this replica's watchers only", { error, count: events.length });
          hub.deliver(events);
        });
      },
      get watching() {
        return hub.watching;
      },
    },
    close: () => broadcast.close(),
  };
}
