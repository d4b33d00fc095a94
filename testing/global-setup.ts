/** Says once, at the top of the run, which backends the suites run against and what is skipped. */
export default function setup(): void {
  const pg = process.env.TEST_DATABASE_URL;
  const redis = process.env.TEST_REDIS_URL;
  console.log(
    [
      `Stores: ${pg ? "PostgreSQL (TEST_DATABASE_URL)" : "SQLite files"}; cache and counters: ${redis ? "Redis (TEST_REDIS_URL)" : "memory"}.`,
      pg ? "" : "TEST_DATABASE_URL is not set: the PostgreSQL-only suites are skipped.",
      redis ? "" : "TEST_REDIS_URL is not set: the Redis-only suites (shared cache, replicas) are skipped.",
    ]
      .filter(Boolean)
      .join("\n"),
  );
}
