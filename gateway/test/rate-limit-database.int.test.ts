/**
 * Two gateway processes with no Redis, their rate-limit counters in one PostgreSQL database
 * (RATE_LIMIT_STORAGE=database): a client's requests spread over both are limited at the rule's max in total,
 * as one gateway would limit them. GET /ok needs no service, so only the gateways run.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StartedProcess, startProcess } from "../../deploy/processes.js";
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from "../../testing/databases.js";
import { TestClient } from "../../testing/http.js";
import { freePorts } from "../../testing/platform.js";

const MAX = 5;
const TOO_MANY = { code: "TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER", message: "Too many requests. Please try again later." };

const processes: StartedProcess[] = [];
let database: TestDatabase;
let gateways: string[] = [];

describe.skipIf(!TEST_DATABASE_URL)("two gateways sharing rate-limit counters in PostgreSQL (needs TEST_DATABASE_URL)", () => {
  beforeAll(async () => {
    database = await createTestDatabase("gateway_counters");
    const ports = await freePorts(2);
    const env = {
      LOG_LEVEL: "info", // startProcess waits for the "listening" line
      AUTH_SECRET: "test-secret-0123456789-0123456789-0123456789",
      // No Redis, whatever the test's own environment holds: the database is the only shared store.
      REDIS_URL: undefined,
      RATE_LIMIT_ENABLED: "true",
      RATE_LIMIT_STORAGE: "database",
      RATE_LIMIT_DATABASE_URL: database.url,
      RATE_LIMIT_RULES: JSON.stringify({ "/ok": { window: 60, max: MAX } }),
    };
    processes.push(...(await Promise.all(ports.map((port, i) => startProcess("gateway", { env: { ...env, PORT: String(port) }, label: `gateway-${"ab"[i]}` })))));
    gateways = ports.map((port) => `http://127.0.0.1:${port}/api/auth`);
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop("SIGKILL")));
    await database?.drop();
  });

  it("requests taking turns between the gateways are limited at the rule's max in total", async () => {
    const headers = { "x-forwarded-for": "10.20.0.1" };
    const statuses: number[] = [];
    for (let i = 0; i < MAX + 3; i++) statuses.push((await new TestClient(gateways[i % 2]!, headers).get("/ok")).status);
    expect(statuses).toEqual([...Array.from({ length: MAX }, () => 200), 429, 429, 429]);
    const refused = await new TestClient(gateways[0]!, headers).get("/ok");
    expect(refused.body).toEqual(TOO_MANY);
    expect(Number(refused.headers.get("x-retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get("x-retry-after"))).toBeLessThanOrEqual(60);
    // Another client has its own count on both.
    expect((await new TestClient(gateways[1]!, { "x-forwarded-for": "10.20.0.2" }).get("/ok")).status).toBe(200);
  });

  it("of 40 requests sent at once over both gateways, exactly max get through", async () => {
    const headers = { "x-forwarded-for": "10.20.0.3" };
    const responses = await Promise.all(Array.from({ length: 40 }, (_, i) => new TestClient(gateways[i % 2]!, headers).get("/ok")));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(MAX);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(40 - MAX);
  });

  it("the counters are the database's rows, one per client and path", async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ key: string; count: number }>(`select "key", "count" from "rateLimit" where "key" like 'rate:10.20.0.3|%'`);
      expect(rows).toEqual([{ key: expect.stringMatching(/^rate:10\.20\.0\.3\|[\w-]{43}$/), count: 40 }]);
    } finally {
      await client.end();
    }
  });
});
