/**
 * A real better-auth 1.7 app on a SQLite file, used only to produce the data an import reads: users signed
 * up with passwords and usernames, two-factor enrolments, and the session cookies its server issued.
 */
import { DatabaseSync } from "node:sqlite";
import { betterAuth } from "better-auth-1.7";
import { getMigrations } from "better-auth-1.7/db/migration";
import { admin, twoFactor, username } from "better-auth-1.7/plugins";

export interface SourceUser {
  email: string;
  password: string;
  username: string;
  /** The session cookie the better-auth server set (name=value, as a browser sends it). */
  cookie: string;
  /** Two-factor users: the TOTP URI they scanned and their backup codes. */
  totpUri?: string;
  backupCodes?: string[];
}

export async function betterAuthSqliteSource(file: string, secret: string) {
  const options = {
    appName: "Old App",
    baseURL: "http://127.0.0.1:1/api/auth",
    secret,
    database: new DatabaseSync(file),
    emailAndPassword: { enabled: true },
    plugins: [username(), admin(), twoFactor({ skipVerificationOnEnable: true })],
    rateLimit: { enabled: false },
    telemetry: { enabled: false },
  };
  const { runMigrations } = await getMigrations(options);
  await runMigrations();
  const auth = betterAuth(options);
  const cookieOf = (res: Response) => {
    const line = res.headers.getSetCookie().find((c) => c.startsWith("better-auth.session_token="));
    if (!line) throw new Error(`no session cookie (status ${res.status})`);
    return line.split(";")[0]!;
  };
  return {
    async signUp(email: string, password: string, name: string, username: string, options: { twoFactor?: boolean } = {}): Promise<SourceUser> {
      const res = await auth.api.signUpEmail({ body: { email, password, name, username } as { email: string; password: string; name: string }, asResponse: true });
      let cookie = cookieOf(res);
      if (!options.twoFactor) return { email, password, username, cookie };
      const enabled = await auth.api.enableTwoFactor({ body: { password }, headers: new Headers({ cookie }), asResponse: true });
      const body = (await enabled.json()) as { totpURI: string; backupCodes: string[] };
      if (enabled.headers.getSetCookie().some((c) => c.startsWith("better-auth.session_token="))) cookie = cookieOf(enabled);
      return { email, password, username, cookie, totpUri: body.totpURI, backupCodes: body.backupCodes };
    },
    close: () => options.database.close(),
  };
}

/**
 * A real better-auth 1.1 app on PostgreSQL (the `better-auth` dev dependency, 1.1.9), with an extra user
 * field `plan`, for the same purpose.
 */
export async function betterAuthPostgresSource(url: string, secret: string) {
  const [{ betterAuth: betterAuth11 }, { getMigrations: getMigrations11 }, plugins, { default: pg }] = await Promise.all([
    import("better-auth"),
    import("better-auth/db"),
    import("better-auth/plugins"),
    import("pg"),
  ]);
  const pool = new pg.Pool({ connectionString: url });
  const options = {
    appName: "Old App",
    baseURL: "http://127.0.0.1:1/api/auth",
    secret,
    database: pool,
    emailAndPassword: { enabled: true },
    user: { additionalFields: { plan: { type: "string" as const, required: false } } },
    plugins: [plugins.username(), plugins.admin(), plugins.twoFactor({ skipVerificationOnEnable: true })],
    rateLimit: { enabled: false },
    telemetry: { enabled: false },
  };
  const { runMigrations } = await getMigrations11(options);
  await runMigrations();
  // 1.1's API types are generic over these options; only its HTTP shapes matter here.
  const auth = betterAuth11(options) as any;
  const cookieOf = (res: Response) => {
    const line = res.headers.getSetCookie().find((c) => c.startsWith("better-auth.session_token="));
    if (!line) throw new Error(`no session cookie (status ${res.status})`);
    return line.split(";")[0]!;
  };
  return {
    pool,
    async signUp(email: string, password: string, name: string, username: string, options: { twoFactor?: boolean; plan?: string } = {}): Promise<SourceUser> {
      const res: Response = await auth.api.signUpEmail({ body: { email, password, name, username, plan: options.plan }, asResponse: true });
      let cookie = cookieOf(res);
      if (!options.twoFactor) return { email, password, username, cookie };
      const enabled: Response = await auth.api.enableTwoFactor({ body: { password }, headers: new Headers({ cookie }), asResponse: true });
      const body = (await enabled.json()) as { totpURI: string; backupCodes: string[] };
      if (enabled.headers.getSetCookie().some((c) => c.startsWith("better-auth.session_token="))) cookie = cookieOf(enabled);
      return { email, password, username, cookie, totpUri: body.totpURI, backupCodes: body.backupCodes };
    },
    close: () => pool.end(),
  };
}
