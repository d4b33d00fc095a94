/** Asks whether Redis answers, and deletes the benchmark's keys afterwards. */
import { Redis } from "ioredis";

function client(url: string): Redis {
  return new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2_000, retryStrategy: () => null });
}

export async function redisAnswers(url: string): Promise<boolean> {
  const redis = client(url);
  redis.on("error", () => {});
  try {
    await redis.connect();
    return (await redis.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/** Deletes every key under the prefix (SCAN, never KEYS) and says how many went. */
export async function deleteKeysWithPrefix(url: string, prefix: string): Promise<number> {
  const redis = client(url);
  try {
    await redis.connect();
    let deleted = 0;
    for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 500 })) {
      if ((keys as string[]).length) deleted += await redis.del(...(keys as string[]));
    }
    return deleted;
  } finally {
    redis.disconnect();
  }
}
