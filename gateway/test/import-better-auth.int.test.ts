/**
 * Importing a better-auth app (docs/importing-from-better-auth.md): a real better-auth 1.7 server on SQLite
 * signs users up; after the import, through our gateway, they sign in with the same passwords, the cookies
 * the old server issued are signed-in sessions, TOTP codes from the same secrets pass and a backup code
 * works once. The target is the suite's default store (PostgreSQL under TEST_DATABASE_URL).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base32Decode, totpCode, totpStep } from "@auth-platform/identity/domain/totp";
import { formatSummary, importBetterAuth } from "../../deploy/import-better-auth/run.js";
import { betterAuthSqliteSource, type SourceUser } from "../../testing/better-auth-source.js";
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

  it("a database that is not better-auth's is refused, naming what is missing", async () => {
    const other = join(dir, "other.db");
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(other);
    db.exec('create table "user" ("id" text primary key, "email" text)');
    db.close();
    await expect(importBetterAuth({ from: other, env: platform.env, secrets })).rejects.toThrow(/not a better-auth database.*table "account" is missing/);
  });
});
