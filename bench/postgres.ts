/** PostgreSQL for the benchmarks that offer it: a fresh database per service on one server, as the chart gives each. */
import pg from "pg";

export interface FreshDatabases {
  /** `<SERVICE>_DATABASE_URL` for each service, on its own new database. */
  env: Record<string, string>;
  /** Drops them all. */
  drop(): Promise<void>;
}

/** Creates `<label>_<pid>_<service>` on `server` (a postgres:// URL) for each service, dropping a leftover of the same name first. */
export async function freshDatabases(server: string, label: string, services: readonly string[]): Promise<FreshDatabases> {
  const names = services.map((service) => `${label}_${process.pid}_${service}`);
  const run = async (statements: string[]) => {
    const client = new pg.Client({ connectionString: server });
    await client.connect();
    try {
      for (const statement of statements) await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await run(names.flatMap((name) => [`drop database if exists "${name}" with (force)`, `create database "${name}"`]));
  const env: Record<string, string> = {};
  services.forEach((service, i) => {
    const url = new URL(server);
    url.pathname = `/${names[i]}`;
    env[`${service.toUpperCase()}_DATABASE_URL`] = url.toString();
  });
  return { env, drop: () => run(names.map((name) => `drop database if exists "${name}" with (force)`)) };
}
