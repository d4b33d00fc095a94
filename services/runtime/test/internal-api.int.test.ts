/**
 * The internal API of the running platform (identity, session, notification over real gRPC with mutual
 * TLS): every RPC answers exactly the workloads of docs/internal-api.md's table, and nobody without a
 * certificate of the platform's CA gets through the handshake.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminServiceClient, AdminServiceService } from "@auth-platform/proto/gen/auth/admin/v1/admin";
import { ApiKeyServiceClient, ApiKeyServiceService } from "@auth-platform/proto/gen/auth/identity/v1/api_key";
import { AccountServiceClient, AccountServiceService } from "@auth-platform/proto/gen/auth/identity/v1/account";
import { MailSignInServiceClient, MailSignInServiceService } from "@auth-platform/proto/gen/auth/identity/v1/mail_sign_in";
import { AdminUserServiceClient, AdminUserServiceService } from "@auth-platform/proto/gen/auth/identity/v1/admin_user";
import { IdentityServiceClient, IdentityServiceService } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import { PasskeyServiceClient, PasskeyServiceService } from "@auth-platform/proto/gen/auth/identity/v1/passkey";
import { TwoFactorServiceClient, TwoFactorServiceService } from "@auth-platform/proto/gen/auth/identity/v1/two_factor";
import { NotificationServiceClient, NotificationServiceService, Template } from "@auth-platform/proto/gen/auth/notification/v1/notification";
import { WebhookServiceClient, WebhookServiceService } from "@auth-platform/proto/gen/auth/notification/v1/webhook";
import { OrganizationServiceClient, OrganizationServiceService } from "@auth-platform/proto/gen/auth/organization/v1/organization";
import { OAuthServiceClient, OAuthServiceService } from "@auth-platform/proto/gen/auth/oauth/v1/oauth";
import { DomainServiceClient, DomainServiceService } from "@auth-platform/proto/gen/auth/sso/v1/domain";
import { ScimServiceClient, ScimServiceService } from "@auth-platform/proto/gen/auth/sso/v1/scim";
import { SsoServiceClient, SsoServiceService } from "@auth-platform/proto/gen/auth/sso/v1/sso";
import { SessionServiceClient, SessionServiceService, type WatchSessionEventsResponse } from "@auth-platform/proto/gen/auth/session/v1/session";
import { call } from "@auth-platform/proto/rpc-client";
import { ERROR_CODE_KEY } from "@auth-platform/proto/rpc-server";
import { type Workload, WORKLOADS } from "@auth-platform/runtime/grpc-access";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import { backendLabel } from "../../../testing/databases.js";
import { eventually } from "../../../testing/eventually.js";
import { TestClient, uniqueEmail } from "../../../testing/http.js";
import { type Platform, startPlatform } from "../../../testing/platform.js";

/** docs/internal-api.md, written out again here so that a change to a service's table must change this too. */
const EXPECTED: Record<string, Record<string, readonly Workload[]>> = {
  identity: {
    SignUpEmail: ["gateway"],
    SignInEmail: ["gateway"],
    SignInUsername: ["gateway"],
    GetUser: ["internal-client", "admin"],
    GetUsers: ["organization", "admin", "sso"],
    SendVerificationEmail: ["gateway"],
    VerifyEmail: ["gateway"],
    RequestPasswordReset: ["gateway"],
    CheckResetToken: ["gateway"],
    ResetPassword: ["gateway"],
    ChangeEmail: ["gateway"],
    ChangePassword: ["gateway"],
    UpdateUser: ["gateway"],
    DeleteUser: ["gateway"],
    IsUsernameAvailable: ["gateway"],
    RecordSignInFailureBurst: ["gateway"],
  },
  // The identity process's other services (same port, same certificate name).
  twoFactor: {
    EnableTwoFactor: ["gateway"],
    DisableTwoFactor: ["gateway"],
    GetTotpUri: ["gateway"],
    GenerateBackupCodes: ["gateway"],
    VerifyTotp: ["gateway"],
    SendTwoFactorOtp: ["gateway"],
    VerifyTwoFactorOtp: ["gateway"],
    VerifyBackupCode: ["gateway"],
    ListTrustedDevices: ["gateway"],
    RevokeTrustedDevice: ["gateway"],
  },
  passkeys: {
    StartPasskeyRegistration: ["gateway"],
    FinishPasskeyRegistration: ["gateway"],
    StartPasskeyAuthentication: ["gateway"],
    SignInWithPasskey: ["gateway"],
    VerifyTwoFactorPasskey: ["gateway"],
    ListPasskeys: ["gateway"],
    RenamePasskey: ["gateway"],
    DeletePasskey: ["gateway"],
  },
  apiKeys: {
    CreateApiKey: ["gateway"],
    GetApiKey: ["gateway"],
    ListApiKeys: ["gateway"],
    UpdateApiKey: ["gateway"],
    DeleteApiKey: ["gateway"],
    DeleteExpiredApiKeys: ["gateway"],
    VerifyApiKey: ["gateway", "internal-client"],
    DeleteOrganizationApiKeys: ["organization"],
  },
  accounts: {
    ListAccounts: ["gateway"],
    UnlinkAccount: ["gateway"],
    GetProviderTokens: ["gateway"],
    GetProviderAccountInfo: ["gateway"],
    SignInWithProvider: ["oauth", "sso"],
    LinkProviderAccount: ["oauth"],
    CheckProviderLink: ["oauth"],
    LoadProviderTokens: ["oauth"],
    StoreProviderTokens: ["oauth"],
    SetPassword: ["gateway"],
  },
  adminUsers: {
    ListUsers: ["admin"],
    CreateUser: ["admin", "sso"],
    SetRole: ["admin"],
    SetUserPassword: ["admin"],
    BanUser: ["admin", "sso"],
    UnbanUser: ["admin", "sso"],
    RemoveUser: ["admin"],
    SetUserProfile: ["admin"],
  },
  mailSignIn: {
    MailSignInOptions: ["gateway"],
    RequestMagicLink: ["gateway"],
    VerifyMagicLink: ["gateway"],
    SendEmailOtp: ["gateway"],
    CheckEmailOtp: ["gateway"],
    VerifyEmailOtp: ["gateway"],
    SignInEmailOtp: ["gateway"],
    ResetPasswordEmailOtp: ["gateway"],
  },
  session: {
    CreateSession: ["identity", "admin"],
    GetSession: ["gateway", "internal-client", "admin"],
    ListSessions: ["gateway", "admin"],
    RevokeSession: ["gateway", "identity", "admin"],
    RevokeOtherSessions: ["gateway"],
    RevokeUserSessions: ["gateway", "identity", "admin"],
    PutUserCopy: ["identity"],
    DropUserCopy: ["identity"],
    ForgetUser: ["identity"],
    ListUsersMissingSnapshot: ["identity"],
    SetActiveOrganization: ["organization"],
    ClearActiveOrganization: ["organization"],
    SetActiveTeam: ["organization"],
    ClearActiveTeam: ["organization"],
    WatchSessionEvents: ["gateway", "internal-client"],
    WatchUserEvents: ["gateway", "internal-client"],
    IssueSessionToken: ["gateway"],
    GetJwks: ["gateway", "internal-client"],
  },
  notification: {
    SendEmail: ["identity", "organization"],
    ListOutbox: ["gateway"],
  },
  // The notification process's webhooks (docs/adr/0077-signed-webhooks.md).
  webhooks: {
    PublishEvents: ["identity", "session", "organization"],
    CreateWebhookEndpoint: ["admin"],
    ListWebhookEndpoints: ["admin"],
    UpdateWebhookEndpoint: ["admin"],
    DeleteWebhookEndpoint: ["admin"],
    RotateWebhookSecret: ["admin"],
    ListWebhookDeliveries: ["admin"],
    ResendWebhookDelivery: ["admin"],
    SendTestWebhookEvent: ["admin"],
  },
  organization: {
    CreateOrganization: ["gateway", "internal-client"],
    UpdateOrganization: ["gateway"],
    DeleteOrganization: ["gateway"],
    GetFullOrganization: ["gateway"],
    SetActiveOrganization: ["gateway"],
    ListOrganizations: ["gateway", "internal-client"],
    ListMembers: ["gateway"],
    GetActiveMember: ["gateway"],
    InviteMember: ["gateway"],
    GetInvitation: ["gateway"],
    ListInvitations: ["gateway"],
    ListUserInvitations: ["gateway"],
    AcceptInvitation: ["gateway"],
    RejectInvitation: ["gateway"],
    CancelInvitation: ["gateway"],
    RemoveMember: ["gateway"],
    UpdateMemberRole: ["gateway"],
    LeaveOrganization: ["gateway"],
    CheckSlug: ["gateway"],
    HasPermission: ["gateway", "identity"],
    GetMembership: ["internal-client", "sso"],
    AddMember: ["sso", "identity"],
    RemoveUserMembership: ["sso"],
    FindOrganizationId: ["sso"],
    RemoveUserMemberships: ["identity"],
    CreateTeam: ["gateway", "sso"],
    GetTeam: ["gateway"],
    ListTeams: ["gateway"],
    UpdateTeam: ["gateway", "sso"],
    RemoveTeam: ["gateway", "sso"],
    SetActiveTeam: ["gateway"],
    ListUserTeams: ["gateway"],
    ListTeamMembers: ["gateway"],
    AddTeamMember: ["gateway", "sso"],
    RemoveTeamMember: ["gateway", "sso"],
    CreateRole: ["gateway"],
    UpdateRole: ["gateway"],
    DeleteRole: ["gateway"],
    ListRoles: ["gateway"],
    GetRole: ["gateway"],
  },
  admin: {
    ListUsers: ["gateway"],
    GetUser: ["gateway"],
    CreateUser: ["gateway"],
    SetRole: ["gateway"],
    SetUserPassword: ["gateway"],
    ListUserSessions: ["gateway"],
    BanUser: ["gateway"],
    UnbanUser: ["gateway"],
    ImpersonateUser: ["gateway"],
    StopImpersonating: ["gateway"],
    RevokeUserSession: ["gateway"],
    RevokeUserSessions: ["gateway"],
    RemoveUser: ["gateway"],
    HasPermission: ["gateway"],
    CheckAdmin: ["gateway"],
    ListAuditEvents: ["gateway"],
    RecordEvent: ["gateway"],
    UpdateUser: ["gateway"],
    ListRoles: ["gateway"],
    ListWebhookEndpoints: ["gateway"],
    CreateWebhookEndpoint: ["gateway"],
    UpdateWebhookEndpoint: ["gateway"],
    DeleteWebhookEndpoint: ["gateway"],
    RotateWebhookSecret: ["gateway"],
    ListWebhookDeliveries: ["gateway"],
    ResendWebhookDelivery: ["gateway"],
    SendTestWebhookEvent: ["gateway"],
  },
  oauth: {
    ListProviders: ["gateway"],
    StartSignIn: ["gateway"],
    CompleteSignIn: ["gateway"],
    SignInWithIdToken: ["gateway"],
    RefreshProviderTokens: ["gateway"],
    GetProviderAccountInfo: ["gateway"],
  },
  sso: {
    RegisterProvider: ["gateway"],
    ListProviders: ["gateway"],
    GetProvider: ["gateway"],
    UpdateProvider: ["gateway"],
    DeleteProvider: ["gateway"],
    TestProvider: ["gateway"],
    StartSignIn: ["gateway"],
    CompleteSignIn: ["gateway"],
    AcceptSamlResponse: ["gateway"],
    CompleteSamlSignIn: ["gateway"],
    GetServiceProviderMetadata: ["gateway"],
  },
  domains: {
    ListDomains: ["gateway"],
    ClaimDomain: ["gateway"],
    VerifyDomain: ["gateway"],
    RemoveDomain: ["gateway"],
    SetDomainAutoJoin: ["gateway"],
    RequestProviderDomainVerification: ["gateway"],
    VerifyProviderDomain: ["gateway"],
    ApplyDomainAutoJoin: ["identity"],
  },
  scim: {
    GenerateScimToken: ["gateway"],
    ListScimTokens: ["gateway"],
    RevokeScimToken: ["gateway"],
    HandleScim: ["gateway"],
  },
};

/** docs/internal-api.md's SendEmail rule, per template: the workloads whose mail it is. */
const TEMPLATE_SENDERS: ReadonlyArray<[Template, readonly Workload[]]> = [
  [Template.TEMPLATE_EMAIL_VERIFICATION, ["identity"]],
  [Template.TEMPLATE_PASSWORD_RESET, ["identity"]],
  [Template.TEMPLATE_CHANGE_EMAIL, ["identity"]],
  [Template.TEMPLATE_CHANGE_EMAIL_NEW_ADDRESS, ["identity"]],
  [Template.TEMPLATE_DELETE_ACCOUNT, ["identity"]],
  [Template.TEMPLATE_SIGN_IN_CODE, ["identity"]],
  [Template.TEMPLATE_MAGIC_LINK, ["identity"]],
  [Template.TEMPLATE_EMAIL_OTP, ["identity"]],
  [Template.TEMPLATE_ORGANIZATION_INVITATION, ["organization"]],
];
/** Every variable any template requires, so only the caller decides the outcome. */
const MAIL_VARIABLES = {
  url: "https://app.example.com/act?token=t0ken",
  name: "Ada",
  organization_name: "Engines",
  inviter_name: "Charles",
  role: "member",
  code: "482913",
  email: "ada@new.example.com",
  purpose: "sign-in",
};

const SERVICES = {
  identity: { Client: IdentityServiceClient, definition: IdentityServiceService as unknown as grpc.ServiceDefinition, address: (p: Platform) => p.env.IDENTITY_SERVICE_URL! },
  twoFactor: {
    Client: TwoFactorServiceClient,
    definition: TwoFactorServiceService as unknown as grpc.ServiceDefinition,
    address: (p: Platform) => p.env.IDENTITY_SERVICE_URL!,
  },
  passkeys: {
    Client: PasskeyServiceClient,
    definition: PasskeyServiceService as unknown as grpc.ServiceDefinition,
    address: (p: Platform) => p.env.IDENTITY_SERVICE_URL!,
  },
  apiKeys: {
    Client: ApiKeyServiceClient,
    definition: ApiKeyServiceService as unknown as grpc.ServiceDefinition,
    address: (p: Platform) => p.env.IDENTITY_SERVICE_URL!,
  },
  accounts: {
    Client: AccountServiceClient,
    definition: AccountServiceService as unknown as grpc.ServiceDefinition,
    address: (p: Platform) => p.env.IDENTITY_SERVICE_URL!,
  },
  mailSignIn: {
    Client: MailSignInServiceClient,
    definition: MailSignInServiceService as unknown as grpc.ServiceDefinition,
    address: (p: Platform) => p.env.IDENTITY_SERVICE_URL!,
  },
  adminUsers: {
    Client: AdminUserServiceClient,
    definition: AdminUserServiceService as unknown as grpc.ServiceDefinition,
    address: (p: Platform) => p.env.IDENTITY_SERVICE_URL!,
  },
  session: { Client: SessionServiceClient, definition: SessionServiceService as unknown as grpc.ServiceDefinition, address: (p: Platform) => p.env.SESSION_SERVICE_URL! },
  notification: {
    Client: NotificationServiceClient,
    definition: NotificationServiceService as unknown as grpc.ServiceDefinition,
    address: (p: Platform) => p.env.NOTIFICATION_SERVICE_URL!,
  },
  webhooks: {
    Client: WebhookServiceClient,
    definition: WebhookServiceService as unknown as grpc.ServiceDefinition,
    address: (p: Platform) => p.env.NOTIFICATION_SERVICE_URL!,
  },
  organization: {
    Client: OrganizationServiceClient,
    definition: OrganizationServiceService as unknown as grpc.ServiceDefinition,
    address: (p: Platform) => p.env.ORGANIZATION_SERVICE_URL!,
  },
  admin: { Client: AdminServiceClient, definition: AdminServiceService as unknown as grpc.ServiceDefinition, address: (p: Platform) => p.env.ADMIN_SERVICE_URL! },
  oauth: { Client: OAuthServiceClient, definition: OAuthServiceService as unknown as grpc.ServiceDefinition, address: (p: Platform) => p.env.OAUTH_SERVICE_URL! },
  sso: { Client: SsoServiceClient, definition: SsoServiceService as unknown as grpc.ServiceDefinition, address: (p: Platform) => p.env.SSO_SERVICE_URL! },
  domains: { Client: DomainServiceClient, definition: DomainServiceService as unknown as grpc.ServiceDefinition, address: (p: Platform) => p.env.SSO_SERVICE_URL! },
  scim: { Client: ScimServiceClient, definition: ScimServiceService as unknown as grpc.ServiceDefinition, address: (p: Platform) => p.env.SSO_SERVICE_URL! },
} as const;
type Service = keyof typeof SERVICES;
/** The services served by another's process, by the name in that process's certificate. */
const SERVED_BY: Partial<Record<Service, string>> = {
  twoFactor: "identity",
  passkeys: "identity",
  apiKeys: "identity",
  accounts: "identity",
  adminUsers: "identity",
  mailSignIn: "identity",
  domains: "sso",
  scim: "sso",
  webhooks: "notification",
};
const serverNameOf = (service: Service) => SERVED_BY[service] ?? service;

type Outcome = { code: grpc.status; errorCode?: string };
type RawMethod = (req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: (e: grpc.ServiceError | null) => void) => void;

let platform: Platform;
const logs: Array<Record<string, unknown>> = [];
const clients = new Map<string, grpc.Client>();

function client(service: Service, workload: Workload): grpc.Client {
  const key = `${service}/${workload}`;
  let found = clients.get(key);
  if (!found) {
    const { Client, address } = SERVICES[service];
    found = createGrpcClient(Client as unknown as typeof grpc.Client, address(platform), { tls: platform.grpcTls(workload), serverName: serverNameOf(service) });
    clients.set(key, found);
  }
  return found;
}

/**
 * Calls `rpc` with `request` over the message's defaults (an empty request when none is given) and returns
 * the raw gRPC status; a bidirectional stream is opened and closed at once (no message).
 */
function rawCall(target: grpc.Client, service: Service, rpc: string, request?: object): Promise<Outcome> {
  const [key, method] = Object.entries(SERVICES[service].definition).find(([, m]) => m.path.endsWith(`/${rpc}`))!;
  if (method.requestStream) {
    const open = (target as unknown as Record<string, (metadata: grpc.Metadata, options: grpc.CallOptions) => grpc.ClientDuplexStream<unknown, unknown>>)[key]!;
    const stream = open.call(target, new grpc.Metadata(), { deadline: Date.now() + 5_000 });
    stream.on("error", () => undefined);
    stream.end();
    return new Promise((resolve) =>
      stream.on("status", (status: grpc.StatusObject) => resolve({ code: status.code, errorCode: status.metadata.get(ERROR_CODE_KEY)[0] as string | undefined })),
    );
  }
  if (method.responseStream) {
    // A server stream: opened, answered with its headers (allowed) or its status (refused), then cancelled.
    const open = (target as unknown as Record<string, (request: unknown, metadata: grpc.Metadata, options: grpc.CallOptions) => grpc.ClientReadableStream<unknown>>)[key]!;
    const stream = open.call(target, { ...method.requestDeserialize(Buffer.alloc(0)), ...request }, new grpc.Metadata(), { deadline: Date.now() + 5_000 });
    stream.on("error", () => undefined);
    return new Promise((resolve) => {
      stream.once("metadata", () => {
        resolve({ code: grpc.status.OK });
        stream.cancel();
      });
      stream.on("status", (status: grpc.StatusObject) => resolve({ code: status.code, errorCode: status.metadata.get(ERROR_CODE_KEY)[0] as string | undefined }));
    });
  }
  const fn = (target as unknown as Record<string, RawMethod>)[key]!;
  return new Promise((resolve) =>
    fn.call(target, { ...method.requestDeserialize(Buffer.alloc(0)), ...request }, new grpc.Metadata(), { deadline: Date.now() + 5_000 }, (error) =>
      resolve({ code: error?.code ?? grpc.status.OK, errorCode: error?.metadata?.get(ERROR_CODE_KEY)[0] as string | undefined }),
    ),
  );
}

const DENIED = { code: grpc.status.PERMISSION_DENIED, errorCode: "CALLER_NOT_ALLOWED" };

beforeAll(async () => {
  // Warnings collected: a refusal is logged ("call refused").
  platform = await startPlatform({ env: { LOG_LEVEL: "warn" }, logs: (entry) => logs.push(entry) });
});
afterAll(async () => {
  for (const c of clients.values()) c.close();
  await platform?.stop();
});

describe(`the internal API under mutual TLS (${backendLabel()})`, () => {
  it("each service's table is the documented one: every workload is answered or refused as listed", async () => {
    for (const [service, table] of Object.entries(EXPECTED) as Array<[Service, Record<string, readonly Workload[]>]>) {
      const rpcs = Object.values(SERVICES[service].definition).map((m) => m.path.slice(m.path.lastIndexOf("/") + 1));
      expect(new Set(rpcs), `${service}'s RPCs`).toEqual(new Set(Object.keys(table)));
      for (const rpc of rpcs) {
        for (const workload of WORKLOADS) {
          const outcome = await rawCall(client(service, workload), service, rpc);
          if (table[rpc]!.includes(workload)) {
            // Allowed: the handler ran (an empty request may still be invalid, not found, ...).
            expect(outcome.code, `${workload} -> ${service}.${rpc}`).not.toBe(grpc.status.UNAVAILABLE);
            expect(["CALLER_NOT_ALLOWED", "CALLER_NOT_IDENTIFIED"], `${workload} -> ${service}.${rpc}`).not.toContain(outcome.errorCode);
          } else {
            expect(outcome, `${workload} -> ${service}.${rpc}`).toEqual(DENIED);
          }
        }
      }
    }
  });

  it("only identity and admin may create a session: the gateway's certificate is refused, identity's gets a working session", async () => {
    const signedUp = await new TestClient(platform.baseURL).post("/sign-up/email", { name: "Internal", email: uniqueEmail("internal"), password: "password-123" });
    expect(signedUp.status).toBe(200);
    const userId = signedUp.body.user.id as string;

    expect(await rawCall(client("session", "gateway"), "session", "CreateSession", { userId, ipAddress: "", userAgent: "", rememberMe: true, expiresInSeconds: 0 })).toEqual(
      DENIED,
    );

    const sessions = client("session", "identity") as SessionServiceClient;
    const { session } = await call(sessions, sessions.createSession, { userId, ipAddress: "", userAgent: "", rememberMe: true, expiresInSeconds: 0 });
    expect(session?.userId).toBe(userId);

    // internal-client, our users' own services: validate that session, read its user, and nothing else.
    const validator = client("session", "internal-client") as SessionServiceClient;
    const found = await call(validator, validator.getSession, { token: session!.token, disableRefresh: true });
    expect(found.session?.userId).toBe(userId);
    // A typed user, usable without parsing anything.
    expect(found.user).toMatchObject({ id: userId, email: signedUp.body.user.email, name: "Internal", emailVerified: false, extraFields: {} });
    expect(found.user?.createdAt).toBeInstanceOf(Date);
    const users = client("identity", "internal-client") as IdentityServiceClient;
    expect((await call(users, users.getUser, { id: userId })).user?.email).toBe(signedUp.body.user.email);
    const caller = { sessionId: session!.id, userId, email: signedUp.body.user.email, emailVerified: false, sessionCreatedAt: session!.createdAt };
    expect(await rawCall(client("identity", "internal-client"), "identity", "UpdateUser", { caller, name: "Mallory" })).toEqual(DENIED);
    expect(await rawCall(client("adminUsers", "internal-client"), "adminUsers", "SetUserProfile", { userId, name: "Mallory" })).toEqual(DENIED);
    expect(await rawCall(client("session", "internal-client"), "session", "ListSessions", { userId })).toEqual(DENIED);
    expect(await rawCall(client("notification", "internal-client"), "notification", "ListOutbox", { to: signedUp.body.user.email, limit: 0 })).toEqual(DENIED);
  });

  it("an RPC that acts for a signed-in user refuses the gateway's call that names no caller (docs/internal-api.md, the caller)", async () => {
    const acting: Array<[Service, string, Record<string, unknown>]> = [
      ["oauth", "RefreshProviderTokens", { providerId: "github" }],
      ["oauth", "GetProviderAccountInfo", { providerId: "github" }],
      ["oauth", "StartSignIn", { providerId: "github", callbackUrl: "https://app.example/", linkFor: { sessionId: "", userId: "", email: "", emailVerified: false } }],
      ["organization", "ListMembers", {}],
      ["sso", "ListProviders", {}],
      ["domains", "ListDomains", { organizationId: "org" }],
      ["admin", "ListUsers", {}],
      ["session", "RevokeOtherSessions", {}],
      ["session", "IssueSessionToken", {}],
      ["identity", "ChangeEmail", { newEmail: "x@example.com" }],
    ];
    for (const [service, method, request] of acting) {
      expect(await rawCall(client(service, "gateway"), service, method, request), `${service}.${method}`).toMatchObject({ errorCode: "UNAUTHORIZED" });
    }
  });

  it("only identity hands the session service a copy of a user with RevokeUserSessions: a planted copy is refused, the plain call is not", async () => {
    const browser = new TestClient(platform.baseURL);
    const signedUp = await browser.post("/sign-up/email", { name: "Copy", email: uniqueEmail("copy"), password: "password-123" });
    const userId = signedUp.body.user.id as string;
    const reader = client("session", "admin") as SessionServiceClient;
    const token = signedUp.body.token as string;
    const { user } = await call(reader, reader.getSession, { token, disableRefresh: true });
    // A copy newer than the kept one, naming the user an admin: believed, it would make them one.
    const planted = { ...user!, role: "admin", updatedAt: new Date(Date.now() + 60_000) };
    for (const workload of ["gateway", "admin"] as const) {
      expect(await rawCall(client("session", workload), "session", "RevokeUserSessions", { userId, user: planted }), workload).toEqual(DENIED);
      expect(logs).toContainEqual(
        expect.objectContaining({ msg: "call refused", method: "auth.session.v1.SessionService/RevokeUserSessions", caller: workload, code: "CALLER_NOT_ALLOWED", field: "user" }),
      );
    }
    // Refused before anything happened: the session lives on, with the user as identity last said.
    expect((await call(reader, reader.getSession, { token, disableRefresh: true })).user).toMatchObject({ id: userId, role: "user" });
    expect((await browser.get("/get-session")).body.user).toMatchObject({ id: userId, role: "user" });
    // The gateway's own call (/revoke-sessions) carries no copy and still ends the sessions.
    expect(await rawCall(client("session", "gateway"), "session", "RevokeUserSessions", { userId })).toEqual({ code: grpc.status.OK, errorCode: undefined });
    expect((await browser.get("/get-session")).body).toBeNull();
  });

  it("only sso asks a provider sign-in to make the user a member of an organization: oauth is refused before anything happens", async () => {
    const profile = { providerId: "google", accountId: `acct-${Date.now().toString(36)}`, email: uniqueEmail("joiner"), emailVerified: true, name: "Joiner", scopes: [] };
    const request = { profile, trusted: false, disableImplicitLinking: false, client: {}, sso: false, joinOrganization: { organizationId: "any-org", role: "owner" } };
    expect(await rawCall(client("accounts", "oauth"), "accounts", "SignInWithProvider", request)).toEqual(DENIED);
    expect(logs).toContainEqual(
      expect.objectContaining({
        msg: "call refused",
        method: "auth.identity.v1.AccountService/SignInWithProvider",
        caller: "oauth",
        code: "CALLER_NOT_ALLOWED",
        field: "joinOrganization",
      }),
    );
    // Refused before the user was made.
    const users = client("identity", "organization") as IdentityServiceClient;
    expect((await call(users, users.getUsers, { ids: [], emails: [profile.email] })).users).toEqual([]);
  });

  it("our users' services ask the organization service whether a user is a member, and with which role", async () => {
    const browser = new TestClient(platform.baseURL);
    const signedUp = await browser.post("/sign-up/email", { name: "Member", email: uniqueEmail("member"), password: "password-123" });
    const created = await browser.post("/organization/create", { name: "Internal", slug: `internal-${Date.now().toString(36)}` });
    expect(created.status).toBe(200);
    const membership = client("organization", "internal-client") as OrganizationServiceClient;
    const found = await call(membership, membership.getMembership, { userId: signedUp.body.user.id, organizationId: created.body.id });
    expect(found.member).toMatchObject({ userId: signedUp.body.user.id, organizationId: created.body.id, role: "owner" });
    expect((await call(membership, membership.getMembership, { userId: "someone-else", organizationId: created.body.id })).member).toBeUndefined();
    // Removing memberships is identity's (user deletion) and the admin area's, never a client's.
    expect(await rawCall(client("organization", "internal-client"), "organization", "RemoveUserMemberships", { userId: signedUp.body.user.id })).toEqual(DENIED);
  });

  it("SendEmail sends each template only for the workloads whose mail it is; a refused one queues nothing", async () => {
    const outbox = platform.services.notification.deps.store;
    expect(TEMPLATE_SENDERS.map(([template]) => template).sort()).toEqual(
      Object.values(Template)
        .filter((t) => typeof t === "number" && t > 0)
        .sort(),
    );
    for (const [template, senders] of TEMPLATE_SENDERS) {
      for (const workload of EXPECTED.notification!.SendEmail!) {
        const to = uniqueEmail(`mail-${workload}`);
        const outcome = await rawCall(client("notification", workload), "notification", "SendEmail", { to, template, variables: MAIL_VARIABLES, idempotencyKey: "" });
        const queued = await outbox.list({ recipient: to, limit: 10 });
        if (senders.includes(workload)) {
          expect(outcome, `${workload} sends ${Template[template]}`).toEqual({ code: grpc.status.OK, errorCode: undefined });
          expect(queued, `${workload} sends ${Template[template]}`).toHaveLength(1);
        } else {
          expect(outcome, `${workload} sends ${Template[template]}`).toEqual(DENIED);
          expect(queued, `${workload} sends ${Template[template]}`).toEqual([]);
        }
      }
    }
  });

  it("the organization workload cannot mail a password reset of its own; its invitations and identity's resets go out", async () => {
    const outbox = platform.services.notification.deps.store;
    const mail = client("notification", "organization") as NotificationServiceClient;
    const victim = uniqueEmail("victim");
    const phishing = { to: victim, template: Template.TEMPLATE_PASSWORD_RESET, variables: { url: "https://evil.example/reset" }, idempotencyKey: "" };
    expect(await rawCall(mail, "notification", "SendEmail", phishing)).toEqual(DENIED);
    expect(await outbox.list({ recipient: victim, limit: 10 })).toEqual([]);
    // Refused as a sender whatever else is wrong with the request: the address is not checked first.
    expect(await rawCall(mail, "notification", "SendEmail", { ...phishing, to: "not an address" })).toEqual(DENIED);
    expect(logs).toContainEqual(
      expect.objectContaining({
        msg: "call refused",
        method: "auth.notification.v1.NotificationService/SendEmail",
        caller: "organization",
        code: "CALLER_NOT_ALLOWED",
        template: "password-reset",
      }),
    );

    const invitee = uniqueEmail("invitee");
    const invitation = { to: invitee, template: Template.TEMPLATE_ORGANIZATION_INVITATION, variables: MAIL_VARIABLES, idempotencyKey: "" };
    const { messageId } = await call(mail, mail.sendEmail, invitation);
    expect(await outbox.list({ recipient: invitee, limit: 10 })).toMatchObject([{ id: messageId, template: "organization-invitation" }]);

    const account = client("notification", "identity") as NotificationServiceClient;
    const reset = { to: victim, template: Template.TEMPLATE_PASSWORD_RESET, variables: { url: "https://app.example.com/reset?token=real" }, idempotencyKey: "" };
    const sent = await call(account, account.sendEmail, reset);
    expect(await outbox.list({ recipient: victim, limit: 10 })).toMatchObject([{ id: sent.messageId, template: "password-reset" }]);
  });

  it("the development outbox is read by the gateway only", async () => {
    const gateway = client("notification", "gateway") as NotificationServiceClient;
    await expect(call(gateway, gateway.listOutbox, { limit: 1 })).resolves.toHaveProperty("messages");
    for (const workload of WORKLOADS.filter((w) => w !== "gateway")) {
      expect(await rawCall(client("notification", workload), "notification", "ListOutbox"), workload).toEqual(DENIED);
    }
  });

  it("an internal service watches sessions like a gateway: a sign-out answers once its ack came, or once its lease ran out", async () => {
    const watcher = client("session", "internal-client") as SessionServiceClient;
    /** A watcher under the internal-client certificate that acknowledges, holding one lease. */
    const watch = async () => {
      const stream = watcher.watchSessionEvents();
      const events: WatchSessionEventsResponse[] = [];
      stream.on("data", (message: WatchSessionEventsResponse) => events.push(message));
      stream.on("error", () => undefined);
      const ended = new Promise<grpc.StatusObject>((resolve) => stream.on("status", resolve));
      stream.write({ message: { $case: "hello", value: { watcherId: "internal-test", acknowledges: true } } });
      const pingSentAt = performance.now();
      stream.write({ message: { $case: "ping", value: { n: "1" } } });
      const lease = await eventually(async () => {
        const found = events.find((e) => e.event?.$case === "lease");
        expect(found).toBeDefined();
        return found!.event as { $case: "lease"; value: { leaseMs: number } };
      });
      expect(lease.value.leaseMs).toBeGreaterThan(0);
      return { stream, events, ended, pingSentAt, leaseMs: lease.value.leaseMs };
    };
    const signedIn = async () => {
      const browser = new TestClient(platform.baseURL);
      const signUp = await browser.post("/sign-up/email", { name: "Watched", email: uniqueEmail("watched"), password: "password-123" });
      expect(signUp.status).toBe(200);
      // GetSession names the token's lookup hash, the name events use (the watcher holds no AUTH_SECRET).
      const { tokenLookup } = await call(watcher, watcher.getSession, { token: signUp.body.token, disableRefresh: true });
      expect(tokenLookup).toMatch(/^[\w-]{43}$/);
      expect(tokenLookup).not.toContain(signUp.body.token);
      return { browser, lookup: tokenLookup! };
    };
    const revoked = (events: WatchSessionEventsResponse[], lookup: string) =>
      events.find((e) => e.event?.$case === "sessionsRevoked" && e.event.value.tokenLookups.includes(lookup));

    // Acknowledging: the sign-out waits for the ack, and answers as soon as it comes.
    const acking = await watch();
    const first = await signedIn();
    let answered = false;
    const signOut = first.browser.post("/sign-out", {}).then((response) => {
      answered = true;
      return response;
    });
    const event = await eventually(async () => {
      const found = revoked(acking.events, first.lookup);
      expect(found).toBeDefined();
      return found!;
    });
    // A round trip to the session service later, the sign-out still waits for this watcher.
    await call(watcher, watcher.getSession, { token: "not-a-session", disableRefresh: true });
    expect(answered).toBe(false);
    acking.stream.write({ message: { $case: "ack", value: { seq: event.seq } } });
    expect((await signOut).status).toBe(200);
    expect(performance.now() - acking.pingSentAt).toBeLessThan(acking.leaseMs);
    acking.stream.end();
    await acking.ended;

    // Silent: the sign-out waits out its lease, and the service ends the stream of a watcher that never acked.
    const silent = await watch();
    const second = await signedIn();
    expect((await second.browser.post("/sign-out", {})).status).toBe(200);
    expect(performance.now() - silent.pingSentAt).toBeGreaterThanOrEqual(silent.leaseMs);
    expect(revoked(silent.events, second.lookup)).toBeDefined();
    expect((await silent.ended).code).toBe(grpc.status.OK);
  });

  it("every service refuses a caller without a certificate, in plaintext or TLS", async () => {
    const tls = platform.grpcTls("gateway");
    if (tls.kind !== "mtls") throw new Error("the platform runs with mutual TLS");
    // Trusting the platform's CA, so only the missing client certificate is wrong.
    const ca = readFileSync(join(tls.dir, "ca.crt"));
    for (const service of Object.keys(SERVICES) as Service[]) {
      for (const credentials of [grpc.credentials.createInsecure(), grpc.credentials.createSsl(ca)]) {
        const { Client, address } = SERVICES[service];
        const anonymous = new (Client as unknown as typeof grpc.Client)(address(platform), credentials, { "grpc.ssl_target_name_override": serverNameOf(service) });
        try {
          const rpc = Object.keys(EXPECTED[service]!)[0]!;
          expect((await rawCall(anonymous, service, rpc)).code, service).toBe(grpc.status.UNAVAILABLE);
        } finally {
          anonymous.close();
        }
      }
    }
  });
});
