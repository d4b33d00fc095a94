/**
 * The identity service on its own (testing/service-harness.ts): its real gRPC server under mutual TLS (its
 * four services on one port), its real store on a fresh database; session, notification and organization
 * are fake peers. The RPCs that act for the signed-in user take the gateway's Caller (auth.common.v1.Caller):
 * only the gateway may call them, a call that acts for nobody is refused, and a service acting on a user it
 * names has an RPC of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as grpc from "@grpc/grpc-js";
import type { Caller } from "@auth-platform/proto/gen/auth/common/v1/caller";
import { AccountServiceClient, AccountServiceService } from "@auth-platform/proto/gen/auth/identity/v1/account";
import { AdminUserServiceClient, AdminUserServiceService } from "@auth-platform/proto/gen/auth/identity/v1/admin_user";
import { IdentityServiceClient, IdentityServiceService } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import { TwoFactorServiceClient, TwoFactorServiceService } from "@auth-platform/proto/gen/auth/identity/v1/two_factor";
import { call } from "@auth-platform/proto/rpc-client";
import { type AccessTable, type Workload, WORKLOADS } from "@auth-platform/runtime/grpc-access";
import { newId } from "@auth-platform/runtime/random";
import { backendLabel } from "../../../testing/databases.js";
import { peerCodeOf, REFUSED, type ServiceUnderTest } from "../../../testing/service-harness.js";
import type { Registry } from "../src/domain/ports.js";
import { ACCOUNT_ACCESS } from "../src/rpc/account-server.js";
import { ADMIN_USER_ACCESS } from "../src/rpc/admin-user-server.js";
import { IDENTITY_ACCESS } from "../src/rpc/identity-server.js";
import { TWO_FACTOR_ACCESS } from "../src/rpc/two-factor-server.js";
import { aUser as aUserRecord } from "../src/store/identity-store.contract.js";
import { type IdentityAlone, startIdentityAlone } from "./identity-alone.js";

let identity: IdentityAlone;
let service: ServiceUnderTest<Registry>;
let gateway: IdentityServiceClient;
let accounts: AccountServiceClient;

beforeAll(async () => {
  identity = await startIdentityAlone();
  service = identity.service;
  gateway = service.clientAs(IdentityServiceClient, "gateway");
  accounts = service.clientAs(AccountServiceClient, "gateway");
});
afterAll(async () => {
  await identity?.stop();
});

/** The services of the identity process, each with its access table. */
const SERVICES = [
  { Client: IdentityServiceClient, definition: IdentityServiceService, access: IDENTITY_ACCESS },
  { Client: TwoFactorServiceClient, definition: TwoFactorServiceService, access: TWO_FACTOR_ACCESS },
  { Client: AccountServiceClient, definition: AccountServiceService, access: ACCOUNT_ACCESS },
  { Client: AdminUserServiceClient, definition: AdminUserServiceService, access: ADMIN_USER_ACCESS },
] as const;
type Service = (typeof SERVICES)[number];

type Method = Parameters<typeof call>[1];
type ClientClass = new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ClientOptions) => grpc.Client;
const clients = new Map<string, grpc.Client>();
/** Calls `key` (e.g. listAccounts) of one of the identity process's services as `workload`. */
function callAs(target: Service, workload: Workload, key: string, request: unknown): Promise<unknown> {
  const id = `${SERVICES.indexOf(target)}/${workload}`;
  let client = clients.get(id);
  if (!client) {
    client = service.clientAs(target.Client as ClientClass, workload);
    clients.set(id, client);
  }
  return call(client, (client as unknown as Record<string, Method>)[key]!, request);
}

/** The RPCs whose request carries a Caller: every identity RPC that acts for the signed-in user. */
const CALLER_RPCS = SERVICES.flatMap((service) =>
  Object.entries(service.definition)
    .filter(([, method]) => "caller" in (method.requestDeserialize(Buffer.alloc(0)) as object))
    .map(([key, method]) => ({ service, key, rpc: method.path.slice(method.path.lastIndexOf("/") + 1), access: service.access as AccessTable })),
);
/** Where a Caller is one of two ways to name who asks (a verification link or a sign-in challenge also do). */
const CALLER_OR_OTHER = new Set(["VerifyEmail", "VerifyTotp", "VerifyTwoFactorOtp", "VerifyBackupCode"]);

/** A user with a github account (no password), written straight through the store, and the gateway's caller for them. */
async function aUser(): Promise<{ caller: Caller; githubAccountId: string }> {
  const now = new Date();
  const user = aUserRecord({ name: "Ada", emailVerified: true, role: "user", createdAt: now, updatedAt: now });
  const githubAccountId = newId();
  await service.deps.store.createUserWithAccount(user, {
    id: githubAccountId,
    accountId: `gh-${user.id}`,
    providerId: "github",
    userId: user.id,
    password: null,
    scope: "read:user",
    createdAt: now,
    updatedAt: now,
  });
  return { caller: { sessionId: newId(), userId: user.id, email: user.email, emailVerified: true, role: "user", sessionCreatedAt: now }, githubAccountId };
}

describe(`the identity service on its own (${backendLabel()})`, () => {
  it("the RPCs that act for the signed-in user take a Caller, and only the gateway may call them", () => {
    expect(CALLER_RPCS.map(({ rpc }) => rpc).sort()).toEqual(
      [
        "ChangeEmail",
        "ChangePassword",
        "DeleteUser",
        "DisableTwoFactor",
        "EnableTwoFactor",
        "GenerateBackupCodes",
        "GetProviderAccountInfo",
        "GetProviderTokens",
        "GetTotpUri",
        "ListAccounts",
        "ListTrustedDevices",
        "RevokeTrustedDevice",
        "SetPassword",
        "UnlinkAccount",
        "UpdateUser",
        "VerifyBackupCode",
        "VerifyEmail",
        "VerifyTotp",
        "VerifyTwoFactorOtp",
      ].sort(),
    );
    for (const { rpc, access } of CALLER_RPCS) expect(access[rpc], rpc).toEqual(["gateway"]);
  });

  it("refuses a call that acts for nobody: no caller, or one without a user or a session (UNAUTHORIZED)", async () => {
    const { caller } = await aUser();
    for (const { service: target, key, rpc } of CALLER_RPCS) {
      for (const nobody of [
        { ...caller, userId: "" },
        { ...caller, sessionId: "" },
      ]) {
        expect(await peerCodeOf(callAs(target, "gateway", key, { caller: nobody, code: "123456", token: "t", password: "password-123" })), rpc).toMatchObject({
          errorCode: "UNAUTHORIZED",
        });
      }
      if (CALLER_OR_OTHER.has(rpc)) continue;
      expect(await peerCodeOf(callAs(target, "gateway", key, { password: "password-123" })), rpc).toMatchObject({ errorCode: "UNAUTHORIZED" });
    }
    // Refused before anything was done: the user's accounts are as they were.
    expect((await service.deps.store.listAccounts(caller.userId)).map((a) => a.providerId)).toEqual(["github"]);
  });

  it("a workload other than the gateway cannot act for a user, even naming one; the gateway's caller is answered", async () => {
    const { caller, githubAccountId } = await aUser();
    for (const workload of WORKLOADS.filter((w) => w !== "gateway")) {
      for (const { service: target, key, rpc } of CALLER_RPCS) {
        expect(await peerCodeOf(callAs(target, workload, key, { caller, providerId: "github", id: githubAccountId })), `${workload} -> ${rpc}`).toEqual(REFUSED);
      }
    }
    // Nothing was unlinked or changed; the gateway, acting for the caller, reads what is there.
    const listed = await call(accounts, accounts.listAccounts, { caller });
    expect(listed.accounts).toEqual([expect.objectContaining({ id: githubAccountId, providerId: "github", scopes: ["read:user"] })]);
    expect(await service.deps.store.findUserById(caller.userId)).toMatchObject({ name: "Ada" });
  });

  it("the admin service names the user it changes through SetUserProfile, UpdateUser's use case; oauth reads tokens through LoadProviderTokens", async () => {
    const { caller, githubAccountId } = await aUser();
    const admin = service.clientAs(AdminUserServiceClient, "admin");
    const { user } = await call(admin, admin.setUserProfile, { userId: caller.userId, name: "Grace", clearImage: false, extraFields: {} });
    expect(user).toMatchObject({ id: caller.userId, name: "Grace" });
    await expect(call(admin, admin.setUserProfile, { userId: caller.userId, clearImage: false, extraFields: { email: "x@example.com" } })).rejects.toMatchObject({
      code: "EMAIL_CAN_NOT_BE_UPDATED",
    });
    await expect(call(admin, admin.setUserProfile, { userId: "no-such-user", name: "Nobody", clearImage: false, extraFields: {} })).rejects.toMatchObject({
      code: "USER_NOT_FOUND",
    });
    // The gateway's UpdateUser changes the caller, never a user it names.
    expect((await call(gateway, gateway.updateUser, { caller, name: "Ada", clearImage: false, extraFields: {} })).user).toMatchObject({ id: caller.userId, name: "Ada" });
    const asGateway = service.clientAs(AdminUserServiceClient, "gateway");
    expect(await peerCodeOf(call(asGateway, asGateway.setUserProfile, { userId: caller.userId, name: "Mallory", clearImage: false, extraFields: {} }))).toEqual(REFUSED);

    const oauth = service.clientAs(AccountServiceClient, "oauth");
    for (const selection of [{ accountId: githubAccountId }, { providerId: "github" }]) {
      expect((await call(oauth, oauth.loadProviderTokens, { userId: caller.userId, ...selection })).account).toMatchObject({ id: githubAccountId, providerId: "github" });
      expect((await call(accounts, accounts.getProviderTokens, { caller, ...selection, refresh: false })).account).toMatchObject({ id: githubAccountId });
    }
    await expect(call(oauth, oauth.loadProviderTokens, { userId: "someone-else", accountId: githubAccountId })).rejects.toMatchObject({ code: "ACCOUNT_NOT_FOUND" });
    await expect(call(oauth, oauth.loadProviderTokens, { userId: caller.userId })).rejects.toMatchObject({ code: "ACCOUNT_NOT_FOUND" });
    expect(await peerCodeOf(call(accounts, accounts.loadProviderTokens, { userId: caller.userId, accountId: githubAccountId }))).toEqual(REFUSED);
  });
});
