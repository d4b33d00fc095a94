/**
 * The session domain's dependencies for unit tests: the memory store, a memory cache that can be made to
 * fail like an unreachable Redis, the store failing like an unreachable PostgreSQL (`store.down`), a clock the test moves (shared by the cache, the store and the lease),
 * and a fake of the identity service that serves users by id.
 */
import { cacheMac } from "@auth-platform/runtime/cache-mac";
import { createMemoryKeyValue, type KeyValue } from "@auth-platform/runtime/key-value";
import type { Logger } from "@auth-platform/runtime/log";
import type { CachedUser } from "@auth-platform/runtime/session-cache";
import { sessionHandles } from "@auth-platform/runtime/session-handles";
import { tokenVault } from "@auth-platform/runtime/session-token";
import { sessionConfig } from "../src/config.js";
import { createMemorySessionStore } from "../src/store/memory-session-store.js";
import { cacheLease, type CacheLease } from "../src/domain/cache-lease.js";
import { jwtKeyRing, jwtKeySealing } from "../src/domain/jwt-keys.js";
import type { Registry } from "../src/domain/ports.js";
import type { SessionEvent } from "../src/domain/session-events.js";
import type { UserEvent } from "../src/domain/user-events.js";

export const T0 = Date.UTC(2031, 0, 1);

/** A clock the test moves; `sleep` moves it too, so nothing waits on real time. */
export interface TestClock {
  now(): number;
  advance(ms: number): void;
  sleep(ms: number): Promise<void>;
}

export function testClock(start = T0): TestClock {
  let at = start;
  return {
    now: () => at,
    advance: (ms) => {
      at += ms;
    },
    sleep: async (ms) => {
      at += ms;
    },
  };
}

/** A memory cache that refuses every command while `down` is set, as ioredis does with Redis unreachable. */
export function faultyKeyValue(now: () => number): KeyValue & { down: boolean } {
  const inner = createMemoryKeyValue(now);
  const kv = { down: false } as KeyValue & { down: boolean };
  const guard =
    <A extends unknown[], R>(f: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (kv.down) throw new Error("Stream isn't writeable and enableOfflineQueue options is false");
      return f(...args);
    };
  return Object.assign(kv, {
    kind: "redis" as const,
    get: guard(inner.get),
    set: guard(inner.set),
    del: guard(inner.del),
    getMany: guard(inner.getMany),
    hit: guard(inner.hit),
    setIfUnchanged: guard(inner.setIfUnchanged),
    ready: inner.ready,
    close: inner.close,
  });
}

/** The error node's socket gives for a PostgreSQL server that refuses connections (how pg reports it). */
export const unreachable = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });

/** A store whose every method fails like a PostgreSQL server out of reach while `down` is set. */
export function faultyStore<S extends object>(inner: S): S & { down: boolean } {
  const store: Record<string, unknown> & { down: boolean } = { down: false };
  for (const [key, value] of Object.entries(inner)) {
    store[key] =
      typeof value === "function"
        ? async (...args: unknown[]) => {
            if (store.down) throw unreachable();
            return value.apply(inner, args);
          }
        : value;
  }
  return store as unknown as S & { down: boolean };
}

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

export interface TestRegistry extends Registry {
  cache: ReturnType<typeof faultyKeyValue>;
  store: Registry["store"] & { down: boolean };
  lease: CacheLease;
  clock: TestClock;
  /** Every event the domain published, in order. */
  events: Registry["events"] & { published: SessionEvent[] };
  /** Every user event the domain published, in order. */
  userEvents: Registry["userEvents"] & { published: UserEvent[] };
  /** Every webhook event published to the notification service, in order, and how many per call. */
  webhooks: Registry["webhooks"] & { published: Array<{ id: string; type: string; payloadJson: string }>; calls: number[] };
}

export const vault = tokenVault("session-domain-secret-0123456789-0123456789");
/** The handles the gateway opens, under the same secret. */
export const handles = sessionHandles("session-domain-secret-0123456789-0123456789");
export const mac = cacheMac("session-domain-secret-0123456789-0123456789");

/** A registry whose lease the test drives (tick) and whose waits move the test clock. */
export function testRegistry(env: Record<string, string> = {}): TestRegistry {
  const clock = testClock();
  const now = () => new Date(clock.now());
  const store = faultyStore(createMemorySessionStore(vault, { now }));
  const cache = faultyKeyValue(clock.now);
  const config = sessionConfig({ AUTH_SECRET: "session-domain-secret-0123456789-0123456789", ...env });
  const lease = cacheLease({ store, cache, log: silent, leaseMs: config.cacheLeaseMs, staleServeMs: config.cacheStaleServeSeconds * 1000, now: clock.now, sleep: clock.sleep });
  return {
    config,
    store,
    cache,
    cacheMac: mac,
    tokens: vault,
    handles,
    lease,
    clock,
    events: eventLog(),
    jwtKeys: jwtKeyRing({ store, config, sealing: jwtKeySealing("session-domain-secret-0123456789-0123456789"), now }),
    userEvents: userEventLog(),
    webhooks: webhookLog(),
    log: silent,
    now,
  };
}

/** The hub as the domain sees it, recording what was published. */
function eventLog(): TestRegistry["events"] {
  const published: SessionEvent[] = [];
  return {
    published,
    publish: async (event) => {
      published.push(event);
    },
  };
}

function webhookLog(): TestRegistry["webhooks"] {
  const published: TestRegistry["webhooks"]["published"] = [];
  const calls: number[] = [];
  return {
    published,
    calls,
    publish: async (events) => {
      calls.push(events.length);
      for (const { id, type, payloadJson } of events) published.push({ id, type, payloadJson });
    },
  };
}

let users = 0;

/** A user as identity pushes it (with CreateSession or PutUserCopy), last updated at the test clock's time. */
export function aUser(deps: TestRegistry, overrides: Partial<CachedUser> = {}): CachedUser {
  const at = new Date(deps.clock.now()).toISOString();
  users++;
  return {
    id: `user-${users}`,
    name: "Ada",
    email: `ada${users}@example.com`,
    emailVerified: true,
    image: null,
    createdAt: at,
    updatedAt: at,
    username: null,
    displayUsername: null,
    extraFields: {},
    twoFactorEnabled: false,
    role: "user",
    banned: false,
    banReason: null,
    banExpires: null,
    ...overrides,
  };
}

/**
 * Holds the next call of a store method until `release()`: `reached` resolves once a caller is inside it, so a
 * test can run a change while a read is between the cache and its fill.
 */
export function holdNext<K extends "findUser" | "extend" | "putUser" | "listPendingForgets">(deps: TestRegistry, method: K) {
  const original = deps.store[method].bind(deps.store) as (...args: unknown[]) => Promise<unknown>;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const inside = new Promise<void>((resolve) => (reached = resolve));
  (deps.store as unknown as Record<K, unknown>)[method] = async (...args: unknown[]) => {
    (deps.store as unknown as Record<K, unknown>)[method] = original;
    const result = await original(...args);
    reached();
    await released;
    return result;
  };
  return { reached: inside, release };
}

function userEventLog(): TestRegistry["userEvents"] {
  const published: UserEvent[] = [];
  return { published, publish: (events) => void published.push(...events) };
}
