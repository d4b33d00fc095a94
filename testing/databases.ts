/**
 * Test stores: a fresh SQLite file per call by default, or a fresh PostgreSQL database when
 * TEST_DATABASE_URL is set (CI sets it). Redis when TEST_REDIS_URL is set, with a unique key prefix so
 * suites running side by side never see each other's keys.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { describe } from "vitest";
import { randomString, LOWER_ALPHANUMERIC } from "@auth-platform/runtime/random";

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || undefined;

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Drops them all at once: each PostgreSQL drop waits for a checkpoint, and drops run together share them. */
export async function dropDatabases(databases: readonly TestDatabase[]): Promise<void> {
  await Promise.all(databases.map((db) => db.drop()));
}

/** A new empty database. On PostgreSQL its name starts auth_test_ so leftovers are easy to find. */
export async function createTestDatabase(label: string, dialect: "default" | "sqlite" = "default"): Promise<TestDatabase> {
  if (TEST_DATABASE_URL && dialect === "default") {
    const name = `auth_test_${label}_${randomString(10, LOWER_ALPHANUMERIC)}`;
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`create database "${name}"`);
    await admin.end();
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      async drop() {
        const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await client.connect();
        await client.query(`drop database if exists "${name}" with (force)`);
        await client.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), `auth-test-${label}-`));
  return {
    url: `file:${join(dir, `${label}.db`)}`,
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A unique Redis key prefix for one platform under test. */
export function testRedisPrefix(): string {
  return `test:${randomString(8, LOWER_ALPHANUMERIC)}:`;
}

/** What the suite runs against, for its title. */
export function backendLabel(): string {
  return `${TEST_DATABASE_URL ? "postgresql" : "sqlite"} + ${TEST_REDIS_URL ? "redis" : "memory"}`;
}

/**
 * How to open one store port on each backend: in memory (when the port has a memory implementation), and
 * on a database URL (SQLite or PostgreSQL).
 */
export interface StoreBackends<S> {
  memory?: () => S | Promise<S>;
  sql: (url: string) => Promise<S>;
}

/**
 * Runs a store contract on memory (if given) and SQLite always, and on PostgreSQL when TEST_DATABASE_URL is
 * set (reported as skipped otherwise). Each SQL store the contract opens sits on a fresh database, dropped
 * when the store is closed.
 */
export function onEveryBackend<S extends { close(): Promise<void> }>(label: string, backends: StoreBackends<S>, contract: (backend: string, open: () => Promise<S>) => void): void {
  const fresh = (dialect: "default" | "sqlite") => async (): Promise<S> => {
    const db = await createTestDatabase(label, dialect);
    const store = await backends.sql(db.url);
    const close = store.close.bind(store);
    return Object.assign(store, {
      async close() {
        await close();
        await db.drop();
      },
    });
  };
  const { memory } = backends;
  if (memory) describe("memory", () => contract("memory", async () => memory()));
  describe("sqlite", () => contract("sqlite", fresh("sqlite")));
  describe.skipIf(!TEST_DATABASE_URL)("postgresql", () => contract("postgresql", fresh("default")));
}
