/**
 * better-auth 1.7, the peer `bench/peer.ts` measures, configured like this product: email and password with
 * the username, organization, admin and two-factor plugins, on SQLite (node:sqlite's DatabaseSync, a file
 * in BA_DATABASE_FILE), and with Redis as its secondaryStorage when BA_REDIS_URL is set. Rate limiting
 * and telemetry are off. Its tables come from better-auth's own migration API before it listens.
 *
 * It runs on plain node (node's own type stripping: erasable syntax only), as a better-auth app without a
 * build step runs: better-auth loads from node_modules. It is a benchmark peer, never part of the platform.
 */
import { createServer } from "node:http";
import { DatabaseSync } from "node:sqlite";
import { betterAuth } from "better-auth-1.7";
import { getMigrations } from "better-auth-1.7/db/migration";
import { toNodeHandler } from "better-auth-1.7/node";
import { admin, organization, twoFactor, username } from "better-auth-1.7/plugins";
import type { SecondaryStorage } from "better-auth-1.7/db";
import { Redis } from "ioredis";

const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const port = Number(required("PORT"));
const redisUrl = process.env.BA_REDIS_URL;

/** Redis as better-auth's secondaryStorage (sessions live there), with ioredis; keys under BA_REDIS_PREFIX. */
function redisStorage(url: string, keyPrefix: string): SecondaryStorage {
  const redis = new Redis(url, { keyPrefix });
  return {
    get: (key) => redis.get(key),
    getAndDelete: (key) => redis.getdel(key),
    set: (key, value, ttl) => (ttl ? redis.set(key, value, "EX", ttl) : redis.set(key, value)),
    delete: async (key) => void (await redis.del(key)),
    // The TTL is set on creation only, in the same transaction as the increment.
    increment: async (key, ttl) => {
      const results = await redis.multi().set(key, "0", "EX", ttl, "NX").incr(key).exec();
      return Number(results?.[1]?.[1]);
    },
  };
}

const options = {
  appName: "Bench",
  baseURL: `http://127.0.0.1:${port}`,
  secret: required("BA_SECRET"),
  database: new DatabaseSync(required("BA_DATABASE_FILE")),
  ...(redisUrl ? { secondaryStorage: redisStorage(redisUrl, required("BA_REDIS_PREFIX")) } : {}),
  emailAndPassword: { enabled: true },
  plugins: [username(), organization(), admin(), twoFactor()],
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
};

const { runMigrations } = await getMigrations(options);
await runMigrations();
const auth = betterAuth(options);
createServer(toNodeHandler(auth)).listen(port, "127.0.0.1", () => process.stdout.write(`${JSON.stringify({ level: "info", msg: "listening", port })}\n`));
