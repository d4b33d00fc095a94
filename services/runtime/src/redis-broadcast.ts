/**
 * A Redis pub/sub channel shared by the replicas of one service, with a registry of the members listening
 * to it (docs/adr/0056-gateway-session-cache-invalidated-by-pushes.md, "Several replicas"). Two ioredis
 * connections: one for commands, one in subscriber mode (a subscribed connection takes no other command).
 *
 * Members are a sorted set scored by when each registration lapses, on Redis's own clock (TIME), so the
 * hosts' clocks never have to agree. A publication lists the members in the same script, atomically: a member
 * that subscribed before it registered is then sure to receive every message published while it is listed.
 */
import type { Logger } from "./log.js";
import { createRedisClient, type RedisConnection } from "./redis-connection.js";

/** A listed member and how long its registration has left, as Redis counted when it answered. */
export interface BroadcastMember {
  id: string;
  remainingMs: number;
}

export interface RedisBroadcast {
  /**
   * Receives every message published from now on. `onSubscribed(true)` once the subscription holds (again),
   * `onSubscribed(false)` as soon as the connection is lost: messages published meanwhile are never delivered.
   */
  listen(onMessage: (message: string) => void, onSubscribed: (subscribed: boolean) => void): void;
  /** Publishes, and lists the members registered at that instant (atomically). */
  publish(message: string): Promise<BroadcastMember[]>;
  /** The members registered now. */
  members(): Promise<BroadcastMember[]>;
  /** Registers (or renews) a member for ttlMs from when Redis runs the command. */
  register(id: string, ttlMs: number): Promise<void>;
  unregister(id: string): Promise<void>;
  close(): Promise<void>;
}

// Lapsed members are removed as a side effect, so the set stays the size of the live replicas.
const NOW_MS = `local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
const LIVE_MEMBERS = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local found = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local out = {}
for i = 1, #found, 2 do out[#out + 1] = found[i]; out[#out + 1] = tostring(tonumber(found[i + 1]) - now) end
return out`;
const PUBLISH_SCRIPT = `${NOW_MS}\nredis.call('PUBLISH', ARGV[1], ARGV[2])${LIVE_MEMBERS}`;
const MEMBERS_SCRIPT = `${NOW_MS}${LIVE_MEMBERS}`;
const REGISTER_SCRIPT = `${NOW_MS}\nredis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])\nredis.call('PEXPIRE', KEYS[1], ARGV[2])\nreturn 1`;

type Scripts = {
  broadcastPublish(key: string, channel: string, message: string): Promise<string[]>;
  broadcastMembers(key: string): Promise<string[]>;
  broadcastRegister(key: string, id: string, ttlMs: number): Promise<number>;
};

const membersOf = (flat: string[]): BroadcastMember[] => {
  const members: BroadcastMember[] = [];
  for (let i = 0; i < flat.length; i += 2) members.push({ id: flat[i]!, remainingMs: Number(flat[i + 1]) });
  return members;
};

/** `name` under `prefix` (the process's REDIS_KEY_PREFIX) names both the channel and the member set. */
export function createRedisBroadcast(connection: RedisConnection, log: Logger, prefix: string, name: string): RedisBroadcast {
  const channel = `${prefix}${name}`;
  const membersKey = `${prefix}${name}:members`;
  const options = { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1_000 };
  const commands = createRedisClient(connection, options);
  // Subscribed again by hand after each reconnection, so the caller knows exactly when messages may have been
  // missed. On a cluster a publication reaches every node, so the subscriber listens on any one of them.
  const subscriber = createRedisClient(connection, { ...options, autoResubscribe: false, commandTimeout: undefined });
  let down = false;
  for (const redis of [commands, subscriber]) {
    redis.on("error", (error) => {
      if (!down) log.warn("redis unavailable (session event relay)", { error: error.message });
      down = true;
    });
  }
  commands.defineCommand("broadcastPublish", { numberOfKeys: 1, lua: PUBLISH_SCRIPT });
  commands.defineCommand("broadcastMembers", { numberOfKeys: 1, lua: MEMBERS_SCRIPT });
  commands.defineCommand("broadcastRegister", { numberOfKeys: 1, lua: REGISTER_SCRIPT });
  const scripts = commands as unknown as Scripts;

  return {
    listen(onMessage, onSubscribed) {
      let subscribed = false;
      const lost = () => {
        if (!subscribed) return;
        subscribed = false;
        onSubscribed(false);
      };
      const subscribe = () => {
        subscriber.subscribe(channel).then(
          () => {
            if (down) log.info("redis available again (session event relay)");
            down = false;
            subscribed = true;
            onSubscribed(true);
          },
          (error: Error) => log.warn("redis subscription failed (session event relay)", { error: error.message }),
        );
      };
      subscriber.on("message", (from: string, message: string) => {
        if (from === channel) onMessage(message);
      });
      subscriber.on("close", lost);
      subscriber.on("ready", subscribe);
      if (subscriber.status === "ready") subscribe();
    },
    async publish(message) {
      return membersOf(await scripts.broadcastPublish(membersKey, channel, message));
    },
    async members() {
      return membersOf(await scripts.broadcastMembers(membersKey));
    },
    async register(id, ttlMs) {
      await scripts.broadcastRegister(membersKey, id, Math.max(1, Math.ceil(ttlMs)));
    },
    async unregister(id) {
      await commands.zrem(membersKey, id);
    },
    async close() {
      await Promise.all([commands, subscriber].map((redis) => redis.quit().catch(() => redis.disconnect())));
    },
  };
}
