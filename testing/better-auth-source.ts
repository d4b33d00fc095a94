/**
 * Real better-auth apps (1.7 on SQLite, 1.1 on PostgreSQL or SQLite), used only to produce the data an
 * import reads: users signed up with passwords and usernames, two-factor enrolments, organizations with
 * teams and invitations, and the session cookies its server issued. The one way tests make a source.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import { betterAuth as betterAuth11 } from "better-auth";
import { betterAuth } from "better-auth-1.7";
import { getMigrations as getMigrations11 } from "better-auth/db";
import { organization as organization11 } from "better-auth/plugins";
import { getMigrations } from "better-auth-1.7/db/migration";
import { admin, organization, twoFactor, username } from "better-auth-1.7/plugins";
import { createAccessControl } from "better-auth-1.7/plugins/access";
import { adminAc, defaultStatements, memberAc, ownerAc } from "better-auth-1.7/plugins/organization/access";
import type { BetterAuthOrganizationRows } from "@auth-platform/organization/import/organization-import";

export interface SourceUser {
  /** The user's id in the source (the same after the import). */
  id: string;
  email: string;
  password: string;
  username: string;
  /** The session cookie the better-auth server set (name=value, as a browser sends it). */
  cookie: string;
  /** Two-factor users: the TOTP URI they scanned and their backup codes. */
  totpUri?: string;
  backupCodes?: string[];
}

/**
 * better-auth 1.7 on a SQLite file. With `organization`, its organization plugin with teams on: `api` makes
 * organizations, teams and invitations, with a user's cookie as the caller.
 */
export async function betterAuthSqliteSource(file: string, secret: string, features: { organization?: boolean } = {}) {
  const options = {
    appName: "Old App",
    baseURL: "http://127.0.0.1:1/api/auth",
    secret,
    database: new DatabaseSync(file),
    emailAndPassword: { enabled: true },
    plugins: [
      username(),
      admin(),
      twoFactor({ skipVerificationOnEnable: true }),
      ...(features.organization ? [organization({ teams: { enabled: true }, sendInvitationEmail: async () => undefined })] : []),
    ],
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
    // Typed apart per plugin set; tests call the organization plugin's endpoints with their documented bodies.
    api: auth.api as any,
    async signUp(email: string, password: string, name: string, username: string, options: { twoFactor?: boolean } = {}): Promise<SourceUser> {
      const res = await auth.api.signUpEmail({ body: { email, password, name, username } as { email: string; password: string; name: string }, asResponse: true });
      let cookie = cookieOf(res);
      const { id } = ((await res.json()) as { user: { id: string } }).user;
      if (!options.twoFactor) return { id, email, password, username, cookie };
      const enabled = await auth.api.enableTwoFactor({ body: { password }, headers: new Headers({ cookie }), asResponse: true });
      const body = (await enabled.json()) as { totpURI: string; backupCodes: string[] };
      if (enabled.headers.getSetCookie().some((c) => c.startsWith("better-auth.session_token="))) cookie = cookieOf(enabled);
      return { id, email, password, username, cookie, totpUri: body.totpURI, backupCodes: body.backupCodes };
    },
    /** Another session of a user who signed up: the cookie of a sign-in. */
    async signIn(email: string, password: string): Promise<string> {
      return cookieOf(await auth.api.signInEmail({ body: { email, password }, asResponse: true }));
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
      const { id } = ((await res.json()) as { user: { id: string } }).user;
      if (!options.twoFactor) return { id, email, password, username, cookie };
      const enabled: Response = await auth.api.enableTwoFactor({ body: { password }, headers: new Headers({ cookie }), asResponse: true });
      const body = (await enabled.json()) as { totpURI: string; backupCodes: string[] };
      if (enabled.headers.getSetCookie().some((c) => c.startsWith("better-auth.session_token="))) cookie = cookieOf(enabled);
      return { id, email, password, username, cookie, totpUri: body.totpURI, backupCodes: body.backupCodes };
    },
    close: () => pool.end(),
  };
}

/**
 * A better-auth app's organization rows made by better-auth itself, in process, on a SQLite file: users, one
 * organization with members (one with two roles), teams and their members, a pending and a canceled
 * invitation, and (1.7) a custom role; then read back with plain SQL as the import command reads them.
 * better-auth 1.7 (teams and dynamic access control on) and 1.1 (no teams).
 */
export interface OrganizationSourceUser {
  id: string;
  email: string;
}

export interface BetterAuthOrganizationSource {
  version: "1.1" | "1.7";
  users: { owner: OrganizationSourceUser; admin: OrganizationSourceUser; member: OrganizationSourceUser };
  /** The invited address (no user yet) and its pending invitation. */
  invitee: { email: string; invitationId: string };
  organizationId: string;
  rows: BetterAuthOrganizationRows;
  /** The SQLite file (for the import command) and the users' password. */
  file: string;
  password: string;
  /** Runs SQL on the source database (to change a row between two imports). */
  run(sql: string, ...params: SQLInputValue[]): void;
  /** The rows as they are now. */
  read(): BetterAuthOrganizationRows;
  close(): void;
}

const SECRET = "a-test-secret-of-better-auth-that-is-long-enough";
const PASSWORD = "correct-horse-battery";

/** What a sign-in answers: its session cookie, for the calls that need a session. */
async function sessionHeaders(response: Response): Promise<Headers> {
  if (!response.ok) throw new Error(`better-auth sign-in failed: ${response.status} ${await response.text()}`);
  const cookie = response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  return new Headers({ cookie });
}

/** better-auth 1.1 takes a Kysely SQLite database: this adapts node:sqlite's statements to it (reader, arrays of parameters). */
function kyselySqlite(db: DatabaseSync) {
  return {
    // better-auth 1.1 recognizes a SQLite database by this method.
    aggregate: () => undefined,
    close: () => db.close(),
    prepare(sql: string) {
      const statement = db.prepare(sql);
      return {
        reader: statement.columns().length > 0,
        all: (parameters: readonly SQLInputValue[]) => statement.all(...parameters),
        run: (parameters: readonly SQLInputValue[]) => statement.run(...parameters),
        iterate: (parameters: readonly SQLInputValue[]) => statement.iterate(...parameters),
      };
    },
  };
}

function readRows(db: DatabaseSync, version: "1.1" | "1.7"): BetterAuthOrganizationRows {
  const all = <T>(table: string) => db.prepare(`select * from "${table}" order by "id"`).all() as T[];
  return {
    organizations: all("organization"),
    members: all("member"),
    invitations: all("invitation"),
    ...(version === "1.7" ? { teams: all("team"), teamMembers: all("teamMember"), roles: all("organizationRole") } : {}),
  };
}

export async function betterAuthOrganizationSource(version: "1.1" | "1.7"): Promise<BetterAuthOrganizationSource> {
  const dir = mkdtempSync(join(tmpdir(), `better-auth-${version}-`));
  const db = new DatabaseSync(join(dir, "app.db"));
  const common = { baseURL: "http://localhost:3000", secret: SECRET, emailAndPassword: { enabled: true }, rateLimit: { enabled: false }, telemetry: { enabled: false } };
  const sendInvitationEmail = async () => undefined;
  // The two versions' APIs are typed apart; the calls below are the same in both.
  let api: any;
  if (version === "1.7") {
    const ac = createAccessControl({ ...defaultStatements, project: ["read", "write"] });
    // The owner holds the app's own "project" resource too, so it may give it to a custom role.
    const owner = ac.newRole({ ...ownerAc.statements, project: ["read", "write"] });
    const plugin = organization({
      ac,
      roles: { owner, admin: adminAc, member: memberAc },
      teams: { enabled: true },
      dynamicAccessControl: { enabled: true },
      sendInvitationEmail,
    });
    const options = { ...common, database: db, plugins: [plugin] };
    await (await getMigrations(options)).runMigrations();
    api = betterAuth(options).api;
  } else {
    const options = { ...common, database: kyselySqlite(db), plugins: [organization11({ sendInvitationEmail })] };
    await (await getMigrations11(options as any)).runMigrations();
    api = betterAuth11(options as any).api;
  }
  const signUp = async (name: string): Promise<OrganizationSourceUser & { headers: Headers }> => {
    const email = `${name}-${version.replace(".", "")}@example.com`;
    const { user } = await api.signUpEmail({ body: { name, email, password: PASSWORD } });
    return { id: user.id, email, headers: await sessionHeaders(await api.signInEmail({ body: { email, password: PASSWORD }, asResponse: true })) };
  };
  const owner = await signUp("owner");
  const admin = await signUp("admin");
  const member = await signUp("member");
  const org = await api.createOrganization({
    body: { name: "Analytical Engines", slug: `Engines-${version.replace(".", "")}`, metadata: { plan: "pro", seats: 12 } },
    headers: owner.headers,
  });
  const headers = owner.headers;
  await api.addMember({ body: { userId: admin.id, role: version === "1.7" ? ["admin", "member"] : "admin,member", organizationId: org.id } });
  await api.addMember({ body: { userId: member.id, role: "member", organizationId: org.id } });
  const inviteeEmail = `Invitee-${version.replace(".", "")}@Example.com`;
  if (version === "1.7") {
    const team = await api.createTeam({ body: { name: "Difference", organizationId: org.id }, headers });
    await api.addTeamMember({ body: { teamId: team.id, userId: member.id }, headers });
    await api.createOrgRole({ body: { organizationId: org.id, role: "Auditor", permission: { member: ["update"], project: ["read"] } }, headers });
  }
  const invitation = await api.createInvitation({ body: { email: inviteeEmail, role: "member", organizationId: org.id }, headers });
  const canceled = await api.createInvitation({ body: { email: `gone-${version.replace(".", "")}@example.com`, role: "admin", organizationId: org.id }, headers });
  await api.cancelInvitation({ body: { invitationId: canceled.id }, headers });
  return {
    version,
    users: { owner, admin, member },
    invitee: { email: inviteeEmail, invitationId: invitation.id },
    organizationId: org.id,
    rows: readRows(db, version),
    file: join(dir, "app.db"),
    password: PASSWORD,
    run: (sql, ...params) => void db.prepare(sql).run(...params),
    read: () => readRows(db, version),
    close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
