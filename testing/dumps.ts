/**
 * What an attacker holding a backup would see: every row of a table, read with the database's own client
 * (pg, or node:sqlite for SQLite files), and every key and value under a Redis prefix, read with a plain client.
 */
import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { Redis } from "ioredis";
import { dialectOf } from "@auth-platform/runtime/store";

export async function dumpTable(url: string, table: string): Promise<Array<Record<string, unknown>>> {
  if (dialectOf(url) === "postgresql") {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(`select * from "${table}"`)).rows as Array<Record<string, unknown>>;
    } finally {
      await client.end();
    }
  }
  const db = new DatabaseSync(url.replace(/^file:/, ""), { readOnly: true });
  try {
    return db.prepare(`select * from "${table}"`).all() as Array<Record<string, unknown>>;
  } finally {
    db.close();
  }
}

/** Every string key under the prefix (prefix included) with its value. */
export async function dumpRedis(url: string, prefix: string): Promise<Array<{ key: string; value: string | null }>> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    const keys: string[] = [];
    let cursor = "0";
    do {
      const [next, batch] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== "0");
    const values = keys.length ? await redis.mget(...keys) : [];
    return keys.map((key, i) => ({ key, value: values[i] ?? null }));
  } finally {
    redis.disconnect();
  }
}

/** Every string a dump holds: column values, key names with and without the prefix, and JSON leaves. */
export function stringsIn(value: unknown, out = new Set<string>()): Set<string> {
  if (typeof value === "string") {
    out.add(value);
    for (const part of value.split(/[:.]/)) if (part) out.add(part);
    if (/^[[{]/.test(value)) {
      try {
        stringsIn(JSON.parse(value), out);
      } catch {
        // Not JSON after all: the string itself is already in.
      }
    }
  } else if (Array.isArray(value)) {
    for (const item of value) stringsIn(item, out);
  } else if (value && typeof value === "object") {
    for (const item of Object.values(value)) stringsIn(item, out);
  }
  return out;
}
