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
import { Cluster, Redis } from "ioredis";
import { createRedisClient, redisClientOptions } from "./redis-client.js";
import type { RedisConnection } from "./redis-connection.js";

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

/** How soon a cluster's subscription is taken on the next node after its connection ended. */
const CLUSTER_RESUBSCRIBE_MS = 200;

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
  // missed. A cluster gets no such client: see listenOnCluster.
  const subscriber = commands instanceof Cluster ? undefined : createRedisClient(connection, { ...options, autoResubscribe: false, commandTimeout: undefined });
  let down = false;
  const unavailable = (error: Error) => {
    if (!down) log.warn("redis unavailable (session event relay)", { error: error.message });
    down = true;
  };
  for (const redis of [commands, subscriber]) redis?.on("error", unavailable);
  commands.defineCommand("broadcastPublish", { numberOfKeys: 1, lua: PUBLISH_SCRIPT });
  commands.defineCommand("broadcastMembers", { numberOfKeys: 1, lua: MEMBERS_SCRIPT });
  commands.defineCommand("broadcastRegister", { numberOfKeys: 1, lua: REGISTER_SCRIPT });
  const scripts = commands as unknown as Scripts;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let nodeSubscriber: Redis | undefined;

  return {
    listen(onMessage, onSubscribed) {
      let subscribed = false;
      const lost = () => {
        if (!subscribed) return;
        subscribed = false;
        onSubscribed(false);
      };
      const holds = () => {
        if (down) log.info("redis available again (session event relay)");
        down = false;
        if (subscribed || closed) return;
        subscribed = true;
        onSubscribed(true);
      };
      const receive = (from: string, message: string) => {
        if (from === channel) onMessage(message);
      };
      const failed = (error: Error) => log.warn("redis subscription failed (session event relay)", { error: error.message });

      /**
       * A publication on a cluster reaches every node, so one node's connection hears them all. ioredis's own
       * cluster subscriber moves to another node by itself when its node fails and says nothing of what was
       * published meanwhile, so the subscription here is a plain connection to one node, never reconnected:
       * when it ends the listener is told, and the next known node is subscribed to.
       */
      const listenOnCluster = (cluster: Cluster, attempt: number) => {
        if (closed) return;
        const known = cluster.nodes("all").map(({ options: node }) => ({ host: node.host!, port: node.port! }));
        const nodes = known.length ? known : (connection.cluster ?? []);
        const node = nodes[attempt % nodes.length]!;
        const client = new Redis({ ...redisClientOptions(connection), host: node.host, port: node.port, autoResubscribe: false, retryStrategy: () => null, lazyConnect: true });
        nodeSubscriber = client;
        client.on("error", unavailable);
        client.on("message", receive);
        client.once("end", () => {
          lost();
          if (!closed) retry = setTimeout(() => listenOnCluster(cluster, attempt + 1), CLUSTER_RESUBSCRIBE_MS).unref();
        });
        client
          .connect()
          .then(() => client.subscribe(channel))
          .then(holds, (error: Error) => {
            failed(error);
            client.disconnect();
          });
      };

      if (commands instanceof Cluster) return listenOnCluster(commands, 0);
      const subscribe = () => void subscriber!.subscribe(channel).then(holds, failed);
      subscriber!.on("message", receive);
      subscriber!.on("close", lost);
      subscriber!.on("ready", subscribe);
      if (subscriber!.status === "ready") subscribe();
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
      closed = true;
      clearTimeout(retry);
      nodeSubscriber?.disconnect();
      await Promise.all([commands, subscriber].map((redis) => redis?.quit().catch(() => redis.disconnect())));
    },
  };
}
