/**
 * Importing a better-auth app (docs/importing-from-better-auth.md): a real better-auth 1.7 server on SQLite
 * signs users up; after the import, through our gateway, they sign in with the same passwords, the cookies
 * the old server issued are signed-in sessions, TOTP codes from the same secrets pass and a backup code
 * works once. Run again, it brings what the old app changed meanwhile; stopped half-way, it finishes when
 * run again. The target is the suite's default store (PostgreSQL under TEST_DATABASE_URL).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base32Decode, totpCode, totpStep } from "@auth-platform/identity/domain/totp";
import { openIdentityStore } from "@auth-platform/identity/store/mikro-identity-store";
import { tokenVault } from "@auth-platform/runtime/session-token";
import { openSessionStore } from "@auth-platform/session/store/mikro-session-store";
import { ENTRY_POINTS, NODE_FLAGS, ROOT } from "../../deploy/processes.js";
import { formatSummary, importBetterAuth, type KindImporter } from "../../deploy/import-better-auth/run.js";
import { betterAuthSqliteSource, type SourceUser } from "../../testing/better-auth-source.js";
import { eventually } from "../../testing/eventually.js";
import { usePlatform } from "../../testing/use-platform.js";

const OLD_SECRET = "the-old-apps-better-auth-secret-0123456789";
const platform = usePlatform({ env: { GATEWAY_IMPORTED_COOKIE_SECRET: OLD_SECRET } });

const dir = mkdtempSync(join(tmpdir(), "better-auth-source-"));
const file = join(dir, "old.db");
let bob: SourceUser;
let alice: SourceUser;

const secrets = { secret: OLD_SECRET };
const runImport = (extra: { dryRun?: boolean } = {}) => importBetterAuth({ from: file, env: platform.env, secrets, batchSize: 1, ...extra });

beforeAll(async () => {
  const source = await betterAuthSqliteSource(file, OLD_SECRET);
  bob = await source.signUp("bob@example.com", "bobs-old-password", "Bob", "bob_the_builder");
  alice = await source.signUp("alice@example.com", "alices-old-password", "Alice", "alice", { twoFactor: true });
  source.close();
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DAY = 86_400_000;
const headers = (cookie: string) => new Headers({ cookie });

/** The platform's session store, for what the API does not show (a session's row by id). */
async function withSessionStore<T>(use: (store: Awaited<ReturnType<typeof openSessionStore>>) => Promise<T>): Promise<T> {
  const store = await openSessionStore(platform.env.SESSION_DATABASE_URL!, tokenVault(platform.env.AUTH_SECRET!));
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

const totpNow = (uri: string) => totpCode(base32Decode(new URL(uri).searchParams.get("secret")!), totpStep(new Date()));

describe("import from better-auth", () => {
  it("a dry run reports what it would do and writes nothing", async () => {
    const summary = await runImport({ dryRun: true });
    expect(summary.kinds.find((k) => k.kind === "users")).toMatchObject({ read: 2, written: 2 });
    expect(formatSummary(summary)).toContain("dry run: nothing was written");
    const res = await platform.client().post("/sign-in/email", { email: bob.email, password: bob.password });
    expect(res.status).toBe(401);
  });

  it("imports users, accounts, sessions and two-factor", async () => {
    const summary = await runImport();
    const kinds = Object.fromEntries(summary.kinds.map((k) => [k.kind, k]));
    expect(kinds.users).toMatchObject({ read: 2, written: 2, skipped: {} });
    expect(kinds.accounts).toMatchObject({ read: 2, written: 2 });
    expect(kinds["two-factor"]).toMatchObject({ read: 1, written: 1 });
    expect(kinds.sessions!.written).toBeGreaterThanOrEqual(2);
  });

  it("the cookie the old server issued is a signed-in session at the gateway", async () => {
    const res = await platform.client().get("/get-session", { cookie: bob.cookie });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ user: { email: bob.email, username: bob.username, name: "Bob" } });
  });

  it("a cookie signed with another secret is not", async () => {
    const forged = bob.cookie.replace(/\.[^.]*$/, `.${encodeURIComponent("A".repeat(43))}=`);
    const res = await platform.client().get("/get-session", { cookie: forged });
    expect(res.body).toBeNull();
  });

  it("users sign in with their old password and username", async () => {
    expect((await platform.client().post("/sign-in/email", { email: bob.email, password: bob.password })).status).toBe(200);
    expect((await platform.client().post("/sign-in/username", { username: bob.username, password: bob.password })).status).toBe(200);
    expect((await platform.client().post("/sign-in/email", { email: bob.email, password: "not-the-password" })).status).toBe(401);
  });

  it("a TOTP code from the old secret completes a two-factor sign-in", async () => {
    const client = platform.client();
    const first = await client.post("/sign-in/email", { email: alice.email, password: alice.password });
    expect(first.body).toMatchObject({ twoFactorRedirect: true });
    const verified = await client.post("/two-factor/verify-totp", { code: totpNow(alice.totpUri!) });
    expect(verified.status).toBe(200);
    expect((await client.get("/get-session")).body).toMatchObject({ user: { email: alice.email, twoFactorEnabled: true } });
  });

  it("an old backup code works once", async () => {
    const code = alice.backupCodes![0]!;
    const client = platform.client();
    await client.post("/sign-in/email", { email: alice.email, password: alice.password });
    expect((await client.post("/two-factor/verify-backup-code", { code })).status).toBe(200);
    const again = platform.client();
    await again.post("/sign-in/email", { email: alice.email, password: alice.password });
    expect((await again.post("/two-factor/verify-backup-code", { code })).status).toBe(401);
  });

  it("running it again doubles nothing and brings back no used backup code", async () => {
    const summary = await runImport();
    const kinds = Object.fromEntries(summary.kinds.map((k) => [k.kind, k]));
    expect(kinds["two-factor"]).toMatchObject({ written: 0, skipped: { "two-factor: already imported": 1 } });
    const client = platform.client();
    await client.post("/sign-in/email", { email: alice.email, password: alice.password });
    expect((await client.post("/two-factor/verify-backup-code", { code: alice.backupCodes![0]! })).status).toBe(401);
    const sessions = await platform.client().get("/list-sessions", { cookie: bob.cookie });
    expect(sessions.status).toBe(200);
    // Bob's sign-up session and the two sign-ins above, once each.
    expect(sessions.body).toHaveLength(3);
  });

  it("a user whose email is taken here is skipped, with their sessions", async () => {
    const signUp = await platform.client().post("/sign-up/email", { email: "erin@example.com", password: "erins-new-password", name: "Erin here" });
    expect(signUp.status).toBe(200);
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(file);
    const at = new Date().toISOString();
    db.prepare(`insert into "user" ("id", "name", "email", "emailVerified", "createdAt", "updatedAt") values (?, ?, ?, 0, ?, ?)`).run(
      "clash-user",
      "Erin there",
      "erin@example.com",
      at,
      at,
    );
    const expires = new Date(Date.now() + 86_400_000).toISOString();
    db.prepare(`insert into "session" ("id", "token", "userId", "expiresAt", "createdAt", "updatedAt") values (?, ?, ?, ?, ?, ?)`).run(
      "clash-session",
      "clash-token-0123456789abcdef",
      "clash-user",
      expires,
      at,
      at,
    );
    db.close();
    const summary = await runImport();
    const kinds = Object.fromEntries(summary.kinds.map((k) => [k.kind, k]));
    expect(kinds.users!.skipped).toEqual({ "users: email already used by another user": 1 });
    expect(kinds.sessions!.skipped).toMatchObject({ "sessions: their user was not imported": 1 });
    const res = await platform.client().get("/get-session", { authorization: "Bearer clash-token-0123456789abcdef" });
    expect(res.body).toBeNull();
  });

  it("of two users whose emails differ only in case, in one page, the first is imported and the second skipped", async () => {
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(file);
    const at = new Date().toISOString();
    const insert = db.prepare(`insert into "user" ("id", "name", "email", "emailVerified", "createdAt", "updatedAt") values (?, ?, ?, 0, ?, ?)`);
    insert.run("case-a", "Dana", "Dana@Example.com", at, at);
    insert.run("case-b", "Dana again", "dana@example.com", at, at);
    db.close();
    const summary = await importBetterAuth({ from: file, env: platform.env, secrets, batchSize: 100 });
    const users = summary.kinds.find((k) => k.kind === "users")!;
    // The earlier test's clash with Erin, and the second Dana.
    expect(users.skipped).toEqual({ "users: email already used by another user": 2 });
    const store = await openIdentityStore(platform.env.IDENTITY_DATABASE_URL!);
    try {
      expect((await store.findUserByEmail("dana@example.com"))?.id).toBe("case-a");
    } finally {
      await store.close();
    }
  });

  it("a page that fails beside another page is written again alone, after it", async () => {
    const calls: Array<{ page: string; beside: number }> = [];
    let writing = 0;
    let secondStarted!: () => void;
    const second = new Promise<void>((resolve) => {
      secondStarted = resolve;
    });
    // The first page fails once the second is being written (as two pages claiming one unique key would).
    const users: KindImporter = {
      kind: "users",
      table: "user",
      overlap: true,
      open: async () => ({
        async write(rows) {
          calls.push({ page: String(rows[0]!.id), beside: writing++ });
          try {
            if (calls.length === 1) {
              await second;
              throw new Error("duplicate key value violates unique constraint");
            }
            if (calls.length === 2) secondStarted();
            return { written: rows.length, skipped: {} };
          } finally {
            writing--;
          }
        },
      }),
    };
    const summary = await importBetterAuth({ from: file, env: platform.env, secrets, batchSize: 1, importers: [users] });
    expect(summary.kinds[0]!.read).toBeGreaterThanOrEqual(2);
    expect(summary.kinds[0]).toMatchObject({ written: summary.kinds[0]!.read, skipped: {} });
    // Pages 1 and 2 at once; page 1 again with nothing beside it.
    expect(calls.slice(0, 3).map((c) => c.beside)).toEqual([0, 1, 0]);
    expect(calls[2]!.page).toBe(calls[0]!.page);
    expect(calls).toHaveLength(summary.kinds[0]!.read + 1);
  });

  it("a database that is not better-auth's is refused, naming what is missing", async () => {
    const other = join(dir, "other.db");
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(other);
    db.exec('create table "user" ("id" text primary key, "email" text)');
    db.close();
    await expect(importBetterAuth({ from: other, env: platform.env, secrets })).rejects.toThrow(/not a better-auth database.*table "account" is missing/);
  });
});

describe("a stopped import finishes when run again", () => {
  const resumeFile = join(dir, "resume.db");
  const users: SourceUser[] = [];

  beforeAll(async () => {
    const source = await betterAuthSqliteSource(resumeFile, OLD_SECRET);
    for (let i = 0; i < 20; i++) users.push(await source.signUp(`resume-${i}@example.com`, "the-old-password-of-all", `Resume ${i}`, `resume_${i}`));
    source.close();
  }, 120_000);

  it("killed after its first page, the command run again imports everything once", async () => {
    // The command as operators run it, one row per page, killed at its first progress line (after its first page).
    const child = spawn(process.execPath, [...NODE_FLAGS["import-better-auth"], "--import", "tsx", ENTRY_POINTS["import-better-auth"], "--from", resumeFile, "--batch-size", "1"], {
      cwd: ROOT,
      env: { ...process.env, ...platform.env, BETTER_AUTH_SECRET: OLD_SECRET },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = once(child, "exit");
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk;
      if (/^import: \d+\/\d+ rows/m.test(stderr)) child.kill("SIGKILL");
    });
    const [, signal] = await exited;
    expect(signal, stderr).toBe("SIGKILL");

    // Stopped half-way: its first page (a user) is here, not every session is.
    const identity = await openIdentityStore(platform.env.IDENTITY_DATABASE_URL!);
    try {
      const here = await Promise.all(users.map((u) => identity.findUserByEmail(u.email)));
      expect(here.some((user) => user !== null)).toBe(true);
    } finally {
      await identity.close();
    }
    const sessionsHere = () => withSessionStore(async (store) => Promise.all(users.map(async (u) => (await store.listByUser(u.id)).length)));
    expect((await sessionsHere()).every((n) => n === 1)).toBe(false);

    const summary = await importBetterAuth({ from: resumeFile, env: platform.env, secrets, batchSize: 1 });
    const kinds = Object.fromEntries(summary.kinds.map((k) => [k.kind, k]));
    // Nothing removed: the sessions the other sources of this file brought are not this source's to end.
    for (const kind of ["users", "accounts", "sessions"]) expect(kinds[kind]).toMatchObject({ read: 20, written: 20, skipped: {}, removed: 0 });
    // Each user's sign-up session once; each user signs in with the old password.
    expect(await sessionsHere()).toEqual(users.map(() => 1));
    expect((await platform.client().post("/sign-in/email", { email: users[19]!.email, password: users[19]!.password })).status).toBe(200);
  }, 120_000);
});

describe("a run again after the old app kept serving brings what changed", () => {
  const deltaFile = join(dir, "delta.db");
  let dan: SourceUser;
  let eve: SourceUser;
  let danAgain: string;
  const runDelta = () => importBetterAuth({ from: deltaFile, env: platform.env, secrets, batchSize: 1 });

  beforeAll(async () => {
    const source = await betterAuthSqliteSource(deltaFile, OLD_SECRET);
    dan = await source.signUp("dan@example.com", "dans-old-password", "Dan", "dan");
    eve = await source.signUp("eve@example.com", "eves-old-password", "Eve", "eve");
    danAgain = await source.signIn(dan.email, dan.password);
    source.close();
    await runDelta();
  }, 60_000);

  it("a newer user and a later expiry come over; a session ended on either side stays ended", async () => {
    // Here: Dan signs out of his second session.
    expect((await platform.client().post("/sign-out", {}, { cookie: danAgain })).status).toBe(200);
    // There, two days on: Dan renames himself (his session is extended as he uses it), Eve signs out.
    platform.clock.advance(2 * DAY);
    // Eve already uses the gateway too: it holds her session in its memory.
    for (let i = 0; i < 2; i++) expect((await platform.client().get("/get-session", { cookie: eve.cookie })).body.user.email).toBe(eve.email);
    const oldApp = await betterAuthSqliteSource(deltaFile, OLD_SECRET);
    await oldApp.api.updateUser({ body: { name: "Daniel" }, headers: headers(dan.cookie) });
    const { session: extended } = await oldApp.api.getSession({ headers: headers(dan.cookie) });
    await oldApp.api.signOut({ headers: headers(eve.cookie) });
    oldApp.close();
    const before = await withSessionStore((store) => store.findById(extended.id));
    expect(new Date(extended.expiresAt).getTime()).toBeGreaterThan(before!.expiresAt.getTime());

    const summary = await runDelta();
    const kinds = Object.fromEntries(summary.kinds.map((k) => [k.kind, k]));
    expect(kinds.users).toMatchObject({ read: 2, written: 2 });
    expect(kinds.sessions).toMatchObject({ read: 2, written: 1, skipped: { "sessions: ended here since an earlier import": 1 }, removed: 1 });
    expect(formatSummary(summary)).toContain("sessions: 2 read, 1 written, 1 skipped, 1 removed (no longer in the source)");

    const after = await withSessionStore((store) => store.findById(extended.id));
    expect(after!.expiresAt.getTime()).toBe(new Date(extended.expiresAt).getTime());
    const identity = await openIdentityStore(platform.env.IDENTITY_DATABASE_URL!);
    try {
      expect(await identity.findUserByEmail(dan.email)).toMatchObject({ name: "Daniel" });
    } finally {
      await identity.close();
    }
    expect((await platform.client().get("/get-session", { cookie: dan.cookie })).body).toMatchObject({ user: { name: "Daniel" } });
    // Her sign-out there reaches the gateway's memory at the session service's next lease check.
    await eventually(async () => expect((await platform.client().get("/get-session", { cookie: eve.cookie })).body).toBeNull());
    expect((await platform.client().get("/get-session", { cookie: danAgain })).body).toBeNull();
  });
});
