/**
 * Builds the session service's dependencies once: config, store, cache, clock. It calls no other service
 * (identity pushes users to it: docs/adr/0021-call-graph-deadlines-and-errors.md).
 */
import { cacheMac } from "@auth-platform/runtime/cache-mac";
import { createKeyValue } from "@auth-platform/runtime/key-value";
import type { Logger } from "@auth-platform/runtime/log";
import { sessionHandles } from "@auth-platform/runtime/session-handles";
import { redisWarnings } from "@auth-platform/runtime/redis-connection";
import { tokenVault } from "@auth-platform/runtime/session-token";
import type { SessionConfig } from "./config.js";
import { cacheLease } from "./domain/cache-lease.js";
import type { Registry } from "./domain/ports.js";
import { type SessionEventHub, sessionEventHub } from "./domain/session-events.js";
import { openSessionStore } from "./store/mikro-session-store.js";

export async function buildRegistry(
  config: SessionConfig,
  log: Logger,
  now: () => Date = () => new Date(),
): Promise<Registry & { events: SessionEventHub; close(): Promise<void> }> {
  if (config.secretIsDefault) log.warn("AUTH_SECRET is not set: using the generated development secret kept in AUTH_SECRET_FILE (never in production)");
  const tokens = tokenVault(config.secret);
  const store = await openSessionStore(config.databaseUrl, tokens, { now });
  for (const warning of redisWarnings(config.redis, config.production)) log.warn(warning);
  const cache = createKeyValue(config.redis, log, config.redisKeyPrefix);
  await cache.ready();
  const lease = cacheLease({ store, cache, log, leaseMs: config.cacheLeaseMs, staleServeMs: config.cacheStaleServeSeconds * 1000 });
  // Held (or pending revocations flushed) before the first request, so the cache is trusted from the start.
  await lease.start();
  // With Redis several replicas may run, and a change on one does not reach the watchers of another yet:
  // no lease is granted, so gateways keep reading the shared cache (docs/adr/0056-gateway-session-cache-invalidated-by-pushes.md).
  const events = sessionEventHub({ leaseMs: config.redis ? 0 : config.cacheLeaseMs, log });
  return {
    config,
    store,
    cache,
    cacheMac: cacheMac(config.secret),
    tokens,
    handles: sessionHandles(config.secret),
    lease,
    events,
    log,
    now,
    async close() {
      events.close();
      await lease.stop();
      await cache.close();
      await store.close();
    },
  };
}
