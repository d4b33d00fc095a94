/**
 * Identity calls no HTTP route reaches: set-password is gRPC only (server-side), and accounts other than the
 * credential one (social links, added here straight through the store) can be unlinked.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Caller } from "@auth-platform/proto/gen/auth/common/v1/caller";
import { AccountServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/account";
import { AdminUserServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/admin_user";
import { IdentityServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import { call } from "@auth-platform/proto/rpc-client";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import { newId } from "@auth-platform/runtime/random";
import { backendLabel } from "../../../testing/databases.js";
import { TestClient, uniqueEmail } from "../../../testing/http.js";
import { type Platform, startPlatform } from "../../../testing/platform.js";
import type { IdentityStore } from "../src/store/identity-store.js";
import { openIdentityStore } from "../src/store/mikro-identity-store.js";

let platform: Platform;
let store: IdentityStore;
/** SetUserPassword is the admin service's, LoadProviderTokens oauth's (docs/internal-api.md); the other calls are the gateway's. */
let admin: AdminUserServiceClient;
let oauth: AccountServiceClient;
let identity: IdentityServiceClient;
let accounts: AccountServiceClient;

beforeAll(async () => {
  platform = await startPlatform();
  store = await openIdentityStore(platform.env.IDENTITY_DATABASE_URL!);
  admin = createGrpcClient(AdminUserServiceClient, platform.identityAddress, { tls: platform.grpcTls("admin"), serverName: "identity" });
  oauth = createGrpcClient(AccountServiceClient, platform.identityAddress, { tls: platform.grpcTls("oauth"), serverName: "identity" });
  identity = createGrpcClient(IdentityServiceClient, platform.identityAddress, { tls: platform.grpcTls("gateway"), serverName: "identity" });
  accounts = createGrpcClient(AccountServiceClient, platform.identityAddress, { tls: platform.grpcTls("gateway"), serverName: "identity" });
});
afterAll(async () => {
  admin?.close();
  oauth?.close();
  identity?.close();
  accounts?.close();
  await store?.close();
  await platform?.stop();
});

/** A user who signed up through a social provider: no credential account. */
async function socialUser(email = uniqueEmail("social")) {
  const now = new Date();
  const user = {
    id: newId(),
    name: "Social",
    email,
    emailVerified: true,
    image: null,
    createdAt: now,
    updatedAt: now,
    username: null,
    displayUsername: null,
    role: null,
    banned: false,
    banReason: null,
    banExpires: null,
    extraFields: {},
    twoFactorEnabled: false,
  };
  await store.createUserWithAccount(user, {
    id: newId(),
    accountId: `gh-${user.id}`,
    providerId: "github",
    userId: user.id,
    password: null,
    scope: "read:user,user:email",
    createdAt: now,
    updatedAt: now,
  });
  return user;
}

/** The caller the gateway names for a user acting in a session (gateway/src/http/caller.ts). */
function callerOf(user: { id: string; email: string; emailVerified: boolean }, session: { id: string; createdAt: Date | string } = { id: newId(), createdAt: new Date() }): Caller {
  return { sessionId: session.id, userId: user.id, email: user.email, emailVerified: user.emailVerified, sessionCreatedAt: new Date(session.createdAt) };
}

describe(`identity over gRPC (${backendLabel()})`, () => {
  it("lists a social account's scopes and unlinks it while another account remains", async () => {
    const user = await socialUser();
    await call(admin, admin.setUserPassword, { userId: user.id, newPassword: "social-password-1" });
    const client = new TestClient(platform.baseURL);
    await client.post("/sign-in/email", { email: user.email, password: "social-password-1" });
    const before = await client.get("/list-accounts");
    expect(before.body.map((a: { provider: string }) => a.provider).sort()).toEqual(["credential", "github"]);
    expect(before.body.find((a: { provider: string }) => a.provider === "github").scopes).toEqual(["read:user", "user:email"]);
    expect((await client.post("/unlink-account", { providerId: "github" })).body).toEqual({ status: true });
    expect((await client.get("/list-accounts")).body.map((a: { provider: string }) => a.provider)).toEqual(["credential"]);
  });

  it("deleting a user is idempotent: a retry after success changes nothing and fails cleanly", async () => {
    const email = uniqueEmail("twice");
    const client = new TestClient(platform.baseURL);
    const { body } = await client.post("/sign-up/email", { name: "Twice", email, password: "password-123" });
    const caller = callerOf(body.user, (await client.get("/get-session")).body.session);
    await call(identity, identity.deleteUser, { caller, password: "password-123" });
    await store.deleteUserAndAccounts(body.user.id);
    expect(await store.findUserById(body.user.id)).toBeNull();
    expect(await store.listAccounts(body.user.id)).toEqual([]);
    await expect(call(identity, identity.deleteUser, { caller, password: "password-123" })).rejects.toMatchObject({ code: "USER_NOT_FOUND" });
  });
});

describe(`bans at sign-in (${backendLabel()})`, () => {
  it("tells a banned user with the right password of the ban and its end, and clears an expired ban at the next sign-in", async () => {
    const email = uniqueEmail("banned");
    const { body } = await new TestClient(platform.baseURL).post("/sign-up/email", { name: "Ban", email, password: "password-123" });
    const ends = new Date(Date.now() + 60_000);
    await store.updateUser(body.user.id, { banned: true, banReason: "spam", banExpires: ends });
    expect(await new TestClient(platform.baseURL).post("/sign-in/email", { email, password: "password-123" })).toMatchObject({
      status: 403,
      body: { code: "BANNED_USER", banExpires: ends.toISOString() },
    });
    await store.updateUser(body.user.id, { banExpires: new Date(Date.now() - 1_000) });
    expect((await new TestClient(platform.baseURL).post("/sign-in/email", { email, password: "password-123" })).status).toBe(200);
    expect(await store.findUserById(body.user.id)).toMatchObject({ banned: false, banReason: null, banExpires: null });
  });
});

describe(`identity for the current better-auth client (${backendLabel()})`, () => {
  it("fields that are not inputs are ignored at sign-up and update-user: role stays the default, nothing extra is stored", async () => {
    const email = uniqueEmail("role");
    const client = new TestClient(platform.baseURL);
    const signUp = await client.post("/sign-up/email", { name: "Role", email, password: "password-123", role: "admin", banned: true, plan: "pro" });
    expect(signUp.status).toBe(200);
    expect(await client.post("/update-user", { role: "admin", banned: true, emailVerified: true, isAdmin: true })).toMatchObject({ status: 200, body: { status: true } });
    expect(await store.findUserById(signUp.body.user.id)).toMatchObject({ role: "user", banned: false, emailVerified: false, extraFields: {} });
  });

  it("GetProviderTokens, GetProviderAccountInfo and LoadProviderTokens: a provider account is found by id or provider; renewal and the profile are oauth's", async () => {
    const user = await socialUser();
    const caller = callerOf(user);
    const [github] = await store.listAccounts(user.id);
    // The stored tokens are answered (this account holds none); renewing and reading the profile need the
    // provider's configuration, which only the oauth service has.
    for (const selection of [{ accountId: github!.id }, { providerId: "github" }]) {
      const answer = await call(accounts, accounts.getProviderTokens, { caller, ...selection, refresh: false });
      expect(answer.account).toMatchObject({ id: github!.id, providerId: "github" });
      expect(answer.accessToken).toBeUndefined();
      await expect(call(accounts, accounts.getProviderTokens, { caller, ...selection, refresh: true })).rejects.toMatchObject({ code: "PROVIDER_NOT_FOUND" });
      await expect(call(accounts, accounts.getProviderAccountInfo, { caller, ...selection })).rejects.toMatchObject({ code: "PROVIDER_NOT_FOUND" });
      // oauth reads the same tokens for the user it names.
      const loaded = await call(oauth, oauth.loadProviderTokens, { userId: user.id, ...selection });
      expect(loaded.account).toMatchObject({ id: github!.id, providerId: "github" });
      expect(loaded.accessToken).toBeUndefined();
    }
    const someoneElse = { ...caller, userId: "someone-else" };
    for (const rpc of [accounts.getProviderTokens, accounts.getProviderAccountInfo]) {
      // Another user's account, an unknown one, or no selection at all: not found.
      await expect(call(accounts, rpc, { caller: someoneElse, accountId: github!.id, refresh: false })).rejects.toMatchObject({ code: "ACCOUNT_NOT_FOUND" });
      await expect(call(accounts, rpc, { caller, providerId: "gitlab", refresh: false })).rejects.toMatchObject({ code: "ACCOUNT_NOT_FOUND" });
      await expect(call(accounts, rpc, { caller, refresh: false })).rejects.toMatchObject({ code: "ACCOUNT_NOT_FOUND" });
    }
    await expect(call(oauth, oauth.loadProviderTokens, { userId: "someone-else", accountId: github!.id })).rejects.toMatchObject({ code: "ACCOUNT_NOT_FOUND" });
    await expect(call(oauth, oauth.loadProviderTokens, { userId: user.id, providerId: "gitlab" })).rejects.toMatchObject({ code: "ACCOUNT_NOT_FOUND" });
    await expect(call(oauth, oauth.loadProviderTokens, { userId: user.id })).rejects.toMatchObject({ code: "ACCOUNT_NOT_FOUND" });
  });

  it("unlink-account by the platform's account id (the current client's call)", async () => {
    const user = await socialUser();
    await call(admin, admin.setUserPassword, { userId: user.id, newPassword: "social-password-1" });
    const client = new TestClient(platform.baseURL);
    await client.post("/sign-in/email", { email: user.email, password: "social-password-1" });
    const github = (await client.get("/list-accounts")).body.find((a: { providerId: string }) => a.providerId === "github");
    expect(await client.post("/unlink-account", { accountId: "no-such-id" })).toMatchObject({ status: 400, body: { code: "ACCOUNT_NOT_FOUND" } });
    expect((await client.post("/unlink-account", { accountId: github.id })).body).toEqual({ status: true });
    expect((await store.listAccounts(user.id)).map((a) => a.providerId)).toEqual(["credential"]);
  });

  it("IsUsernameAvailable compares lower-cased and refuses an invalid name", async () => {
    const username = `free_${Date.now().toString(36)}`;
    expect(await call(identity, identity.isUsernameAvailable, { username })).toEqual({ available: true });
    await new TestClient(platform.baseURL).post("/sign-up/email", { name: "U", email: uniqueEmail(), password: "password-123", username });
    expect(await call(identity, identity.isUsernameAvailable, { username: username.toUpperCase() })).toEqual({ available: false });
    await expect(call(identity, identity.isUsernameAvailable, { username: "x" })).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
  });
});
