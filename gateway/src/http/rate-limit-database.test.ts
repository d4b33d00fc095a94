/**
 * The rate-limit counters in PostgreSQL (rate-limit-database.ts), on a fresh database of TEST_DATABASE_URL's
 * server: the hit contract every counter store keeps, exact counts across stores (gateway replicas), the
 * sweep of ended windows, and the limiter failing open while the database is out of reach (a relay the test
 * cuts). Time is the test's clock, passed to the store.
 */
import type { Request, Response } from "express";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Logger } from "@auth-platform/runtime/log";
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from "../../../testing/databases.js";
import { hitContract } from "../../../testing/hit-contract.js";
import { type Relay, startRelay } from "../../../testing/tcp-relay.js";
import { type DatabaseCounters, openDatabaseCounters } from "./rate-limit-database.js";
import { counterKey, type RateLimitCounters, rateLimit } from "./rate-limit.js";

const WINDOW_MS = 10_000;
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

function recordingLogger() {
  const warnings: string[] = [];
  const log: Logger = { debug() {}, info() {}, warn: (msg) => void warnings.push(msg), error() {} };
  return { log, warnings };
}

function testClock(start = 1_700_000_000_000) {
  let now = start;
  return {
    now: () => now,
    advance: async (ms: number) => {
      now += ms;
    },
  };
}

/** Whether the rate limiter lets one request from `ip` to `path` through (3 per 10 s on /sign-in). */
function limiter(counters: RateLimitCounters, log: Logger) {
  const middleware = rateLimit({ enabled: true, default: { window: 10, max: 100 }, rules: { "/sign-in": { window: 10, max: 3 } } }, counters, () => "203.0.113.7", log);
  return async (path: string): Promise<boolean> => {
    let allowed = false;
    const res = { setHeader() {} } as unknown as Response;
    await middleware({ path } as Request, res, (error?: unknown) => {
      allowed = error === undefined;
    });
    return allowed;
  };
}

/** The database's URL with another port: the same database through a relay. */
function through(relay: Relay, url: string): string {
  const viaRelay = new URL(url);
  viaRelay.hostname = "127.0.0.1";
  viaRelay.port = String(relay.port);
  return viaRelay.toString();
}

describe.skipIf(!TEST_DATABASE_URL)("rate-limit counters in PostgreSQL", () => {
  let db: TestDatabase;
  let raw: pg.Client;
  const opened: DatabaseCounters[] = [];
  const open = async (options: Partial<Parameters<typeof openDatabaseCounters>[0]> = {}) => {
    const counters = await openDatabaseCounters({ url: db.url, log: quiet, ...options });
    opened.push(counters);
    return counters;
  };
  const rows = async () => (await raw.query<{ key: string; count: number }>(`select "key", "count" from "rateLimit" order by "key"`)).rows;

  beforeAll(async () => {
    db = await createTestDatabase("ratelimit");
    raw = new pg.Client({ connectionString: db.url });
    await raw.connect();
  });
  afterAll(async () => {
    await Promise.all(opened.map((counters) => counters.close()));
    await raw?.end();
    await db?.drop();
  });

  describe("the hit contract", () => {
    const clock = testClock();
    let counters: DatabaseCounters;
    beforeAll(async () => {
      counters = await open({ now: clock.now });
      expect(await counters.ready()).toBe(true);
    });
    hitContract(() => ({ counters, advance: clock.advance }), WINDOW_MS);
  });

  it("counts one key exactly when two gateways hit it together", async () => {
    const clock = testClock();
    const [a, b] = [await open({ now: clock.now }), await open({ now: clock.now })];
    const key = counterKey("198.51.100.1", "/sign-in/email");
    const hits = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).hit(key, WINDOW_MS)));
    expect(hits.map((h) => h.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(hits.every((h) => h.resetMs === WINDOW_MS)).toBe(true);
  });

  it("replicas starting together create the table once, all of them ready", async () => {
    const fresh = await createTestDatabase("ratelimit_start");
    const starting = await Promise.all(Array.from({ length: 4 }, () => openDatabaseCounters({ url: fresh.url, log: quiet })));
    try {
      expect(await Promise.all(starting.map((counters) => counters.ready()))).toEqual([true, true, true, true]);
      expect((await starting[0]!.hit("rate:k", WINDOW_MS)).count).toBe(1);
    } finally {
      await Promise.all(starting.map((counters) => counters.close()));
      await fresh.drop();
    }
  });

  it("the sweep deletes the rows whose window has ended, and only those, in bounded deletes", async () => {
    await raw.query(`delete from "rateLimit"`);
    const clock = testClock();
    // Two rows per delete: five ended rows take three deletes.
    const counters = await open({ now: clock.now, sweepBatch: 2 });
    for (const key of ["ended-1", "ended-2", "ended-3", "ended-4"]) await counters.hit(key, WINDOW_MS);
    await counters.hit("ended-long", 2 * WINDOW_MS);
    await clock.advance(WINDOW_MS - 1);
    await counters.hit("ended-1", WINDOW_MS);
    await counters.hit("current", WINDOW_MS);
    expect(await counters.deleteEnded()).toBe(0);

    await clock.advance(1);
    expect(await counters.deleteEnded()).toBe(4);
    expect(await rows()).toEqual([
      { key: "current", count: 1 },
      { key: "ended-long", count: 1 },
    ]);
    await clock.advance(WINDOW_MS);
    expect(await counters.deleteEnded()).toBe(2);
    expect(await rows()).toEqual([]);
    // A key swept away counts from 1 again.
    expect((await counters.hit("ended-1", WINDOW_MS)).count).toBe(1);
  });

  it("keeps no path in the table: a reset token in the path never reaches it", async () => {
    const counters = await open();
    const token = "ResetTokenThatMustNotBeKept5678";
    expect(await limiter(counters, quiet)(`/reset-password/${token}`)).toBe(true);
    const all = JSON.stringify((await raw.query(`select * from "rateLimit"`)).rows);
    expect(all).toContain("203.0.113.7");
    expect(all.toLowerCase()).not.toContain(token.toLowerCase());
  });

  it("creates the table again on the next hit when it was dropped while running", async () => {
    const counters = await open();
    await counters.hit("before-drop", WINDOW_MS);
    await raw.query(`drop table "rateLimit"`);
    await expect(counters.hit("after-drop", WINDOW_MS)).rejects.toThrow(/rateLimit/);
    expect((await counters.hit("after-drop", WINDOW_MS)).count).toBe(1);
  });

  describe("while the database is out of reach", () => {
    let relay: Relay;
    beforeAll(async () => {
      relay = await startRelay(Number(new URL(db.url).port || 5432));
    });
    afterEach(() => relay.restore());
    afterAll(async () => {
      await relay.close();
    });

    it("the limiter fails open with a warning, and counts on from where it was once the database is back", async () => {
      const { log, warnings } = recordingLogger();
      const counters = await open({ url: through(relay, db.url), log });
      const send = limiter(counters, log);
      expect(await send("/sign-in/email")).toBe(true);
      expect(await send("/sign-in/email")).toBe(true);

      relay.cut();
      for (let i = 0; i < 4; i++) expect(await send("/sign-in/email")).toBe(true);
      expect(warnings).toEqual(Array.from({ length: 4 }, () => "rate limit store unavailable; request allowed"));

      relay.restore();
      expect(await send("/sign-in/email")).toBe(true);
      expect(await send("/sign-in/email")).toBe(false);
    });

    it("unreachable at start: ready() says so, requests are allowed, and the table is made once it is reachable", async () => {
      const fresh = await createTestDatabase("ratelimit_late");
      const { log, warnings } = recordingLogger();
      relay.cut();
      const counters = await openDatabaseCounters({ url: through(relay, fresh.url), log });
      try {
        expect(await counters.ready(2_000)).toBe(false);
        expect(warnings).toEqual(["rate-limit database not reachable at start; requests are allowed until it is"]);
        const send = limiter(counters, log);
        expect(await send("/sign-in/email")).toBe(true);

        relay.restore();
        for (let i = 0; i < 3; i++) expect(await send("/sign-in/email")).toBe(true);
        expect(await send("/sign-in/email")).toBe(false);
      } finally {
        await counters.close();
        await fresh.drop();
      }
    });

    it("a database that stops answering holds a hit about 1.5 s at most, then the request is allowed", async () => {
      const { log, warnings } = recordingLogger();
      const counters = await open({ url: through(relay, db.url), log });
      const send = limiter(counters, log);
      expect(await send("/sign-up/email")).toBe(true);
      relay.partition();
      const started = Date.now();
      expect(await send("/sign-up/email")).toBe(true);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(warnings).toEqual(["rate limit store unavailable; request allowed"]);
    });
  });
});
