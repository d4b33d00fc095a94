/**
 * The security events' queue in Redis, when the gateway has one (any topology: the stream is one key): a stream (`<prefix>security-events`)
 * read by every gateway replica as one consumer group, so an event a replica queued and then crashed with
 * is delivered by another replica, or by the restarted one (docs/adr/0033-security-events-in-a-redis-stream.md).
 *
 * report -> XADD (bounded by STREAM_LIMIT; Redis unreachable or the stream full: the process memory queue
 * takes the event, as without Redis). Each replica's worker (runtime/polling-worker.ts) reads new entries
 * with XREADGROUP on a connection of its own (BLOCK: no busy poll, and the blocking read never holds the
 * connection reports are written on), delivers them in order with the memory queue's backoff, and removes
 * each (XACK and XDEL, atomically) once the admin service stored it or refused it as invalid. Entries a
 * replica read and did not finish (it crashed, or stopped mid-delivery) stay pending in the group; every
 * replica takes over, now and then, entries pending longer than CLAIM_IDLE_MS (XAUTOCLAIM). A replica
 * retrying an entry for a long time (admin service down) renews its claim on what it holds (XCLAIM), so the
 * others do not take it over. An event delivered twice (an XACK lost, an entry taken over mid-delivery) is
 * stored once: its id is chosen when reported and the admin service keeps one record per id.
 */
import { hostname } from "node:os";
import { type AdminServiceClient, AuditEvent } from "@auth-platform/proto/gen/auth/admin/v1/admin";
import type { Logger } from "@auth-platform/runtime/log";
import { type PollingWorker, type RetryLater, startPollingWorker } from "@auth-platform/runtime/polling-worker";
import { newId } from "@auth-platform/runtime/random";
import { createRedisClient, type RedisClient } from "@auth-platform/runtime/redis-client";
import type { RedisConnection } from "@auth-platform/runtime/redis-connection";
import { type EventQueue, memoryEventQueue, recordEvent, retryDelay } from "./security-events.js";

/** The stream's key under REDIS_KEY_PREFIX (as the rate limiter's `rate:` keys). */
export const STREAM_KEY = "security-events";
const GROUP = "gateway";
/** Undelivered events kept in Redis (about 0.5 KB each); past it, reports wait in process memory. */
export const STREAM_LIMIT = 10_000;
/** Entries one XREADGROUP takes (held by this replica until delivered). */
const READ_BATCH = 10;
/** Entries one XAUTOCLAIM takes over. */
const CLAIM_BATCH = 100;
/** How long a read waits for new entries; a stop does not wait for it (the connection is dropped). */
const BLOCK_MS = 2_000;
/** An entry pending this long, unrenewed, belongs to a replica that is gone: another takes it over. */
const CLAIM_IDLE_MS = 30_000;
const CLAIM_EVERY_MS = 10_000;
/** A consumer of the group with nothing pending, idle this long, is a replica that is gone: removed. */
const CONSUMER_IDLE_MS = 60 * 60_000;
/** Commands other than the blocking read (as the key-value store's). */
const COMMAND_TIMEOUT_MS = 1_000;

// XLEN then XADD in one script: nothing can fill the stream between the check and the add. A full stream
// refuses the newest event (kept in memory instead) rather than trimming the oldest undelivered ones.
const ADD_SCRIPT = `
if redis.call('XLEN', KEYS[1]) >= tonumber(ARGV[1]) then return false end
return redis.call('XADD', KEYS[1], '*', 'event', ARGV[2])`;

// XACK and XDEL together: an entry acknowledged is never left counting against the limit.
const DONE_SCRIPT = `
redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
return redis.call('XDEL', KEYS[1], ARGV[2])`;

type Entry = [id: string, fields: string[]];
interface Scripts {
  securityEventAdd(key: string, limit: number, event: string): Promise<string | null>;
  securityEventDone(key: string, group: string, id: string): Promise<number>;
}

export interface RedisEventQueueOptions {
  firstRetryMs?: number;
  streamLimit?: number;
  claimIdleMs?: number;
  claimEveryMs?: number;
  blockMs?: number;
}

export interface RedisEventQueue extends EventQueue {
  /**
   * Resolves once both connections are up, or after timeoutMs (Redis down: reports go to memory until it is
   * back). Awaited at boot, as the key-value store's: a report made before then would go to memory.
   */
  ready(timeoutMs?: number): Promise<boolean>;
}

export function redisEventQueue(
  connection: RedisConnection | string,
  prefix: string,
  admin: AdminServiceClient,
  log: Logger,
  options: RedisEventQueueOptions = {},
): RedisEventQueue {
  const key = `${prefix}${STREAM_KEY}`;
  const firstRetryMs = options.firstRetryMs; // undefined: the memory queue's (retryDelay's default)
  const streamLimit = options.streamLimit ?? STREAM_LIMIT;
  const claimIdleMs = options.claimIdleMs ?? CLAIM_IDLE_MS;
  const claimEveryMs = options.claimEveryMs ?? CLAIM_EVERY_MS;
  const blockMs = options.blockMs ?? BLOCK_MS;
  /** This replica in the group: unique per process, readable in XINFO. */
  const consumer = `${hostname()}-${process.pid}-${newId().slice(0, 8)}`;
  const memory = memoryEventQueue(admin, log, { firstRetryMs });
  // No keyPrefix: ioredis does not prefix the key of XGROUP and XINFO, so every command names `key` in full.
  // Offline commands fail at once (a report then goes to memory) instead of waiting for a reconnection.
  const commands = createRedisClient(connection, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: COMMAND_TIMEOUT_MS });
  const reader = createRedisClient(connection, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: blockMs + COMMAND_TIMEOUT_MS });
  // The key-value store's connection already logs Redis going away and coming back.
  commands.on("error", () => undefined);
  reader.on("error", () => undefined);
  commands.defineCommand("securityEventAdd", { numberOfKeys: 1, lua: ADD_SCRIPT });
  commands.defineCommand("securityEventDone", { numberOfKeys: 1, lua: DONE_SCRIPT });
  const scripts = commands as unknown as Scripts;

  let stopped = false;
  const ready = (redis: RedisClient) => (redis.status === "ready" ? Promise.resolve() : new Promise<void>((resolve) => redis.once("ready", () => resolve())));
  /** XADDs not answered yet: a stop waits for them (each ends in Redis or in the memory queue). */
  const adding = new Set<Promise<void>>();
  /** One warning per stretch of reports Redis did not take. */
  let inMemory = false;

  function push(event: AuditEvent): void {
    const added = scripts
      .securityEventAdd(key, streamLimit, JSON.stringify(AuditEvent.toJSON(event)))
      .then((id) => {
        if (!id) throw new Error(`the stream holds ${streamLimit} undelivered events`);
        inMemory = false;
      })
      .catch((error: unknown) => {
        if (!inMemory) log.warn("security events kept in memory: Redis did not take them", { action: event.action, error });
        inMemory = true;
        memory.push(event);
      })
      .finally(() => adding.delete(added));
    adding.add(added);
  }

  /** Creates the stream and the group when missing (a first gateway, or Redis emptied). */
  async function createGroup(): Promise<void> {
    try {
      await commands.xgroup("CREATE", key, GROUP, "0", "MKSTREAM");
    } catch (error) {
      if (!String(error).includes("BUSYGROUP")) throw error;
    }
  }

  const parse = (fields: string[]): AuditEvent | undefined => {
    const at = fields.indexOf("event");
    try {
      return at >= 0 && at % 2 === 0 ? AuditEvent.fromJSON(JSON.parse(fields[at + 1]!)) : undefined;
    } catch {
      return undefined;
    }
  };

  let cursor = "0-0";
  /** Takes over entries pending longer than claimIdleMs (a gone replica's), and removes gone consumers. */
  async function claim(): Promise<Entry[]> {
    const [next, entries] = (await commands.xautoclaim(key, GROUP, consumer, claimIdleMs, cursor, "COUNT", CLAIM_BATCH)) as [string, Array<Entry | null>];
    cursor = next;
    const consumers = (await commands.xinfo("CONSUMERS", key, GROUP)) as unknown[][];
    for (const fields of consumers) {
      const info = Object.fromEntries(Array.from({ length: fields.length / 2 }, (_, j) => [fields[2 * j], fields[2 * j + 1]]));
      if (info.name !== consumer && info.pending === 0 && Number(info.idle) > CONSUMER_IDLE_MS) await commands.xgroup("DELCONSUMER", key, GROUP, String(info.name));
    }
    // Redis 6.2 answers a deleted entry as null (7 lists it apart).
    return entries.filter((entry): entry is Entry => entry !== null);
  }

  async function read(): Promise<Entry[]> {
    const answer = (await reader.xreadgroup("GROUP", GROUP, consumer, "COUNT", READ_BATCH, "BLOCK", blockMs, "STREAMS", key, ">")) as Array<[string, Entry[]]> | null;
    return answer?.[0]?.[1] ?? [];
  }

  /** Entries this replica read or took over and has not delivered yet, in order; the first has failed `attempt` times. */
  let held: Entry[] = [];
  let attempt = 0;
  let grouped = false;
  let nextClaim = 0;
  /** Redis failures since a pass last delivered all it held. */
  let failures = 0;

  /**
   * One pass of this replica's worker: claim now and then, or read; deliver what it holds in order, each
   * entry removed once the admin service stored it (or refused it). An entry that fails is retried with
   * backoff, first in the next pass. A Redis error leaves what it holds pending (taken over once idle) and
   * pauses the worker (with backoff); so does a stop, for another replica.
   */
  async function pass(): Promise<number | RetryLater> {
    try {
      if (!grouped) await createGroup();
      grouped = true;
      // Still ours while retried: renewed, or another replica would take them over as a gone one's.
      if (held.length && attempt > 0) await commands.xclaim(key, GROUP, consumer, 0, ...held.map(([id]) => id), "JUSTID");
      if (!held.length && Date.now() >= nextClaim) {
        nextClaim = Date.now() + claimEveryMs;
        held = await claim();
      }
      if (!held.length) held = await read();
      while (held.length && !stopped) {
        const [id, fields] = held[0]!;
        const event = parse(fields);
        if (!event) log.warn("security event dropped: unreadable stream entry", { id });
        else {
          try {
            await recordEvent(admin, log, event);
          } catch (error) {
            if (++attempt === 1) log.warn("security event not delivered yet; retrying", { action: event.action, error });
            return { retryInMs: retryDelay(attempt, firstRetryMs) };
          }
        }
        await scripts.securityEventDone(key, GROUP, id);
        held.shift();
        attempt = 0;
      }
      failures = 0;
      return 0;
    } catch (error) {
      held = [];
      attempt = 0;
      if (stopped) return 0;
      // The stream was removed (Redis emptied, or restarted without persistence): created again.
      if (String(error).includes("NOGROUP")) grouped = false;
      if (failures++ === 0) log.warn("security event stream unavailable; retrying", { error });
      return { retryInMs: retryDelay(failures, firstRetryMs) };
    }
  }

  let worker: PollingWorker | undefined;
  // Redis down at boot: nothing to read until it is up (reports meanwhile go to memory). Passes run back to
  // back: the blocking read is the wait.
  void Promise.all([ready(commands), ready(reader)]).then(() => {
    if (!stopped) worker = startPollingWorker({ name: "security event stream", pass, batchSize: 1, pollIntervalMs: 0, log });
  });

  /** Stops the worker; resolves once its pass in progress has ended. */
  function stop(): Promise<void> {
    stopped = true;
    // The blocking read ends now; entries it was being given stay pending for another replica.
    reader.disconnect();
    return worker?.stop() ?? Promise.resolve();
  }

  return {
    push,
    async ready(timeoutMs = 5_000) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
      const up = await Promise.race([Promise.all([ready(commands), ready(reader)]).then(() => true), timedOut]);
      clearTimeout(timer);
      return up;
    },
    async flush(timeoutMs) {
      const started = Date.now();
      const ended = stop();
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
      // The delivery under way finishes (and is removed); the reports being written end in Redis or in memory.
      await Promise.race([Promise.all([ended, ...adding]), timedOut]);
      clearTimeout(timer);
      // What Redis holds is not lost; only what the memory queue could not deliver would be.
      return memory.flush(Math.max(0, timeoutMs - (Date.now() - started)));
    },
    async close() {
      // Not waiting for a delivery under way: a crash's stop, or one after flush.
      void stop();
      await commands.quit().catch(() => commands.disconnect());
    },
  };
}
