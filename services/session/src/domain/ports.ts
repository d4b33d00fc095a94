/** What the session domain needs from outside itself. */
import type { CacheMac } from "@auth-platform/runtime/cache-mac";
import type { KeyValue } from "@auth-platform/runtime/key-value";
import type { Logger } from "@auth-platform/runtime/log";
import type { SessionHandles } from "@auth-platform/runtime/session-handles";
import type { TokenVault } from "@auth-platform/runtime/session-token";
import type { SessionConfig } from "../config.js";
import type { SessionStore } from "../store/session-store.js";
import type { CacheLease } from "./cache-lease.js";
import type { JwtKeyRing } from "./jwt-keys.js";
import type { SessionEventHub } from "./session-events.js";
import type { UserEventHub } from "./user-events.js";

export interface Registry {
  config: SessionConfig;
  store: SessionStore;
  cache: KeyValue;
  /** Signs the cache entries this service writes and checks those it reads (AUTH_SECRET-derived key). */
  cacheMac: CacheMac;
  /** Keyed hash (cache and store lookups) and sealing of tokens, from AUTH_SECRET. */
  tokens: TokenVault;
  /** The handles a listing shows instead of tokens to a caller that must not hold them (an impersonation session). */
  handles: Pick<SessionHandles, "handleOf">;
  /**
   * The cache lease this replica keeps; a revocation or forget Redis could not take waits it out. It also
   * says how long cached sessions may be served while the store is out of reach.
   */
  lease: Pick<CacheLease, "waitOut" | "staleServingUntil" | "forbidStaleServing">;
  /** The watchers of this replica's changes (the gateways' caches): every change publishes to them before it answers. */
  events: Pick<SessionEventHub, "publish">;
  /** The keys that sign session JWTs (jwt-keys.ts); their private halves never leave it. */
  jwtKeys: JwtKeyRing;
  /** The watchers of what happens to users (WatchUserEvents), on every replica. */
  userEvents: Pick<UserEventHub, "publish">;
  /** The notification service's webhooks (PublishEvents), idempotent by event id (docs/adr/0077-signed-webhooks.md). */
  webhooks: { publish(events: Array<{ id: string; type: string; occurredAt: Date; payloadJson: string }>): Promise<void> };
  now: () => Date;
  log: Logger;
}
