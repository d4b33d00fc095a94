/**
 * Importing from a better-auth 1.1 app on PostgreSQL into a platform on SQLite stores: passwords, the old
 * server's cookies, TOTP codes, a configured extra field, and a social account whose tokens better-auth
 * encrypted (account.encryptOAuthTokens) opening under our secret. Needs TEST_DATABASE_URL (the source).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { symmetricEncrypt } from "better-auth/crypto";
import { providerTokenVault } from "@auth-platform/identity/domain/provider-token-vault";
import { base32Decode, totpCode, totpStep } from "@auth-platform/identity/domain/totp";
import { openIdentityStore } from "@auth-platform/identity/store/mikro-identity-store";
import { importBetterAuth } from "../../deploy/import-better-auth/run.js";
import { betterAuthPostgresSource, type SourceUser } from "../../testing/better-auth-source.js";
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from "../../testing/databases.js";
import { usePlatform } from "../../testing/use-platform.js";

const OLD_SECRET = "the-1-1-apps-better-auth-secret-0123456789";
const dir = mkdtempSync(join(tmpdir(), "import-target-"));
const platform = usePlatform({
  env: {
    GATEWAY_IMPORTED_COOKIE_SECRET: OLD_SECRET,
    IDENTITY_DATABASE_URL: `file:${join(dir, "identity.db")}`,
    SESSION_DATABASE_URL: `file:${join(dir, "session.db")}`,
    IDENTITY_USER_FIELDS: JSON.stringify({ plan: { type: "string" } }),
  },
});

let source: TestDatabase;
let carol: SourceUser;
let dave: SourceUser;

describe.skipIf(!TEST_DATABASE_URL)("import from better-auth 1.1 on PostgreSQL into SQLite", () => {
  beforeAll(async () => {
    source = await createTestDatabase("ba_source");
    const app = await betterAuthPostgresSource(source.url, OLD_SECRET);
    carol = await app.signUp("carol@example.com", "carols-old-password", "Carol", "carol", { plan: "pro" });
    dave = await app.signUp("dave@example.com", "daves-old-password", "Dave", "dave", { twoFactor: true });
    const now = new Date();
    const { rows } = await app.pool.query<{ id: string }>(`select "id" from "user" where "email" = $1`, [carol.email]);
    await app.pool.query(
      `insert into "account" ("id", "accountId", "providerId", "userId", "accessToken", "refreshToken", "createdAt", "updatedAt") values ($1, $2, $3, $4, $5, $6, $7, $7)`,
      [
        "social-account-1",
        "github-4242",
        "github",
        rows[0]!.id,
        await symmetricEncrypt({ key: OLD_SECRET, data: "gho_the-access-token" }),
        await symmetricEncrypt({ key: OLD_SECRET, data: "ghr_the-refresh-token" }),
        now,
      ],
    );
    await app.close();
    const summary = await importBetterAuth({ from: source.url, env: platform.env, secrets: { secret: OLD_SECRET }, batchSize: 2 });
    expect(summary.kinds.find((k) => k.kind === "accounts")).toMatchObject({ read: 3, written: 3 });
  }, 90_000);
  afterAll(async () => {
    await source?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the old cookie is a session, with the extra field", async () => {
    const res = await platform.client().get("/get-session", { cookie: carol.cookie });
    expect(res.body).toMatchObject({ user: { email: carol.email, username: "carol", plan: "pro" } });
  });

  it("the old password signs in", async () => {
    expect((await platform.client().post("/sign-in/username", { username: "carol", password: carol.password })).status).toBe(200);
  });

  it("a TOTP code from the old secret passes", async () => {
    const client = platform.client();
    expect((await client.post("/sign-in/email", { email: dave.email, password: dave.password })).body).toMatchObject({ twoFactorRedirect: true });
    const code = totpCode(base32Decode(new URL(dave.totpUri!).searchParams.get("secret")!), totpStep(new Date()));
    expect((await client.post("/two-factor/verify-totp", { code })).status).toBe(200);
  });

  it("encrypted provider tokens are sealed under our secret", async () => {
    const store = await openIdentityStore(platform.env.IDENTITY_DATABASE_URL!);
    try {
      const user = await store.findUserByEmail(carol.email);
      const account = await store.findAccount(user!.id, "github");
      const vault = providerTokenVault(platform.env.AUTH_SECRET!);
      expect(vault.open(account!.accessToken!, account!.id)).toBe("gho_the-access-token");
      expect(vault.open(account!.refreshToken!, account!.id)).toBe("ghr_the-refresh-token");
    } finally {
      await store.close();
    }
  });
});
