/**
 * Security events kept in Redis (gateway/src/http/security-events-redis.ts): reported while the admin
 * service is down, they outlive the gateway replica that reported them (a crash: dropped without a flush)
 * and the next replica delivers them to the real admin service once it is up; an event delivered twice is
 * stored once; a full stream or an unreachable Redis hands the reports to the memory queue; a stop ends
 * promptly, leaving what it had not delivered in Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { AdminServiceClient, type AuditEvent } from "@auth-platform/proto/gen/auth/admin/v1/admin";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import { grpcTlsFromEnv } from "@auth-platform/runtime/grpc-transport";
import { createLogger } from "@auth-platform/runtime/log";
import { newId } from "@auth-platform/runtime/random";
import { createTestDatabase, TEST_REDIS_URL, testRedisPrefix, type TestDatabase } from "../../testing/databases.js";
import { eventually } from "../../testing/eventually.js";
import { freePorts, type RunningAdmin, startAdmin, workloadEnv } from "../../testing/platform.js";
import { testCertificates } from "../../testing/certificates.js";
import { redisEventQueue, STREAM_KEY } from "../src/http/security-events-redis.js";
import { securityEventReporter, type SecurityEventReporter } from "../src/http/security-events.js";

const lines: string[] = [];
const log = createLogger("gateway", "warn", (line) => void lines.push(line));
const unavailable = () => Object.assign(new Error("unavailable"), { code: 14, details: "unavailable", metadata: { get: () => [] } });

/**
 * An admin client that passes RecordEvent on to `to` (or answers as `answer` says when there is no `to`),
 * counting what it was asked; `hold` keeps an answer back forever (a replica frozen mid-delivery).
 */
function adminClient(options: { to?: AdminServiceClient; answer?: () => Error | null; hold?: () => boolean }) {
  const received: AuditEvent[] = [];
  const client = {
    recordEvent(request: { event: AuditEvent }, metadata: unknown, callOptions: unknown, callback: (error: Error | null, response?: object) => void) {
      received.push(request.event);
      const answer = (error: Error | null, response?: object) => {
        if (!options.hold?.()) callback(error, response);
      };
      if (options.to) (options.to.recordEvent as (...args: unknown[]) => unknown).call(options.to, request, metadata, callOptions, answer);
      else setImmediate(() => answer(options.answer?.() ?? null, {}));
    },
  } as unknown as AdminServiceClient;
  return { client, received };
}

/** The streams the tests made (no TTL: deleted at the end). */
const streams = new Set<string>();

/** A gateway replica's reporter on the stream under `prefix`, its connections up (as main.ts waits for them). */
async function replica(url: string, prefix: string, admin: AdminServiceClient, options: Parameters<typeof redisEventQueue>[4] = {}): Promise<SecurityEventReporter> {
  streams.add(`${prefix}${STREAM_KEY}`);
  const queue = redisEventQueue(url, prefix, admin, log, { firstRetryMs: 20, ...options });
  await queue.ready(1_000);
  return securityEventReporter(admin, log, { queue });
}

describe.skipIf(!TEST_REDIS_URL)("security events kept in Redis (needs TEST_REDIS_URL)", () => {
  let env: Record<string, string>;
  let db: TestDatabase;
  let admin: RunningAdmin | undefined;
  let real: AdminServiceClient;
  let raw: Redis;
  const stopped: SecurityEventReporter[] = [];
  const url = TEST_REDIS_URL!;

  /** The admin service's records of these ids. */
  const stored = async (action: string) => (await admin!.deps.store.list({ action, limit: 100, offset: 0 })).records;
  /** How many connections to this Redis database wait in a blocking XREADGROUP (CLIENT LIST: flag b). */
  const blockedReaders = async () =>
    String(await raw.client("LIST"))
      .split("\n")
      .filter((client) => / db=(\d+) /.exec(client)?.[1] === String(raw.options.db ?? 0) && / flags=\w*b\w* /.test(client) && / cmd=xreadgroup /.test(client)).length;
  const pending = async (prefix: string) => Number(((await raw.xpending(`${prefix}${STREAM_KEY}`, "gateway")) as [number])[0]);

  beforeAll(async () => {
    const [adminPort, nobody] = await freePorts(2);
    db = await createTestDatabase("admin");
    env = {
      LOG_LEVEL: "error",
      ADMIN_PORT: String(adminPort),
      ADMIN_SERVICE_URL: `127.0.0.1:${adminPort}`,
      ADMIN_DATABASE_URL: db.url,
      IDENTITY_SERVICE_URL: `127.0.0.1:${nobody}`,
      SESSION_SERVICE_URL: `127.0.0.1:${nobody}`,
      ...(await testCertificates()),
    };
    real = createGrpcClient(AdminServiceClient, env.ADMIN_SERVICE_URL!, { tls: grpcTlsFromEnv(workloadEnv(env, "gateway")), serverName: "admin" });
    raw = new Redis(url);
  });

  afterAll(async () => {
    for (const reporter of stopped) await reporter.close();
    real?.close();
    await admin?.close();
    await raw?.del(...streams);
    raw?.disconnect();
    await db?.drop();
  });

  it("events reported while the admin service is down outlive a crashed replica: the next one delivers them once the admin service is up", async () => {
    const prefix = testRedisPrefix();
    const action = `test.crash-${newId().slice(0, 8)}`;
    const crashed = await replica(url, prefix, real);
    const ids = [newId(), newId(), newId()];
    for (const id of ids) crashed.report({ id, action, outcome: "success", targetId: "u1" });
    // The replica has read them and is retrying them against the absent admin service.
    await eventually(async () => expect(await pending(prefix)).toBe(3));
    // A crash: no flush; its connections go, what it read stays pending under its name.
    await crashed.close();

    admin = await startAdmin(env);
    const next = await replica(url, prefix, real, { claimIdleMs: 200, claimEveryMs: 100, blockMs: 200 });
    stopped.push(next);
    await eventually(async () => expect((await stored(action)).map((e) => e.id).sort()).toEqual([...ids].sort()));
    expect((await stored(action))[0]).toMatchObject({ action, outcome: "success", targetId: "u1" });
    // Removed from Redis once stored.
    await eventually(async () => {
      expect(await pending(prefix)).toBe(0);
      expect(await raw.xlen(`${prefix}${STREAM_KEY}`)).toBe(0);
    });
  });

  it("an event delivered twice (the replica froze after the admin service stored it, another took it over) is stored once", async () => {
    admin ??= await startAdmin(env);
    const prefix = testRedisPrefix();
    const action = `test.twice-${newId().slice(0, 8)}`;
    // Frozen: its RecordEvent reaches the admin service, the answer never reaches it, so it never removes the entry.
    const frozen = adminClient({ to: real, hold: () => true });
    const first = await replica(url, prefix, frozen.client);
    stopped.push(first);
    const id = newId();
    first.report({ id, action, outcome: "failure" });
    await eventually(async () => expect(await stored(action)).toHaveLength(1));
    expect(await pending(prefix)).toBe(1);

    const counted = adminClient({ to: real });
    const second = await replica(url, prefix, counted.client, { claimIdleMs: 200, claimEveryMs: 100, blockMs: 200 });
    stopped.push(second);
    await eventually(async () => expect(await pending(prefix)).toBe(0));
    expect(frozen.received.map((e) => e.id)).toEqual([id]);
    expect(counted.received.map((e) => e.id)).toEqual([id]);
    expect((await stored(action)).map((e) => e.id)).toEqual([id]);
    // The same event reported by two replicas (a burst both saw) is stored once too.
    second.report({ id: `burst-${id}`, action, outcome: "failure" });
    second.report({ id: `burst-${id}`, action, outcome: "failure" });
    await eventually(async () => expect(counted.received.filter((e) => e.id === `burst-${id}`)).toHaveLength(2));
    await eventually(async () => expect((await stored(action)).map((e) => e.id).sort()).toEqual([`burst-${id}`, id].sort()));
  });

  it("a full stream hands reports to the memory queue; all are delivered once the admin service is back", async () => {
    const prefix = testRedisPrefix();
    let down = true;
    const fake = adminClient({ answer: () => (down ? unavailable() : null) });
    const reporter = await replica(url, prefix, fake.client, { streamLimit: 2 });
    stopped.push(reporter);
    lines.length = 0;
    for (const action of ["one", "two", "three"]) reporter.report({ action, outcome: "success" });
    await eventually(async () => expect(lines.some((line) => line.includes("security events kept in memory"))).toBe(true));
    expect(await raw.xlen(`${prefix}${STREAM_KEY}`)).toBe(2);
    down = false;
    await eventually(async () => expect(new Set(fake.received.map((e) => e.action))).toEqual(new Set(["one", "two", "three"])));
    await eventually(async () => expect(await raw.xlen(`${prefix}${STREAM_KEY}`)).toBe(0));
    expect(await reporter.flush(1_000)).toBe(true);
  });

  it("a stop ends promptly, reading or retrying, and leaves what it did not deliver in Redis", async () => {
    const prefix = testRedisPrefix();
    const readersBefore = await blockedReaders();
    const idle = await replica(url, prefix, adminClient({}).client);
    await eventually(async () => expect(await raw.exists(`${prefix}${STREAM_KEY}`)).toBe(1));
    await eventually(async () => expect(await blockedReaders()).toBeGreaterThan(readersBefore)); // inside its blocking read (2 s)
    let started = Date.now();
    expect(await idle.flush(5_000)).toBe(true);
    await idle.close();
    expect(Date.now() - started).toBeLessThan(500);

    const retrying = await replica(url, prefix, adminClient({ answer: unavailable }).client);
    retrying.report({ action: "kept", outcome: "success" });
    await eventually(async () => expect(await pending(prefix)).toBe(1));
    started = Date.now();
    expect(await retrying.flush(5_000)).toBe(true);
    await retrying.close();
    expect(Date.now() - started).toBeLessThan(500);
    expect(await pending(prefix)).toBe(1);
  });
});

describe("security events with Redis unreachable", () => {
  it("go to the memory queue at once and are delivered; the report never waits", async () => {
    const [closed] = await freePorts(1);
    const fake = adminClient({});
    const reporter = await replica(`redis://127.0.0.1:${closed}`, testRedisPrefix(), fake.client);
    lines.length = 0;
    let started = Date.now();
    reporter.report({ action: "one", outcome: "success" });
    reporter.report({ action: "two", outcome: "success" });
    // Far below the 1 s a Redis command may take to fail: the report did not wait for Redis.
    expect(Date.now() - started).toBeLessThan(200);
    await eventually(async () => expect(fake.received.map((e) => e.action)).toEqual(["one", "two"]));
    expect(lines.some((line) => line.includes("security events kept in memory"))).toBe(true);
    started = Date.now();
    expect(await reporter.flush(1_000)).toBe(true);
    await reporter.close();
    expect(Date.now() - started).toBeLessThan(500);
  });
});
