/**
 * One gRPC client per service the gateway calls (identity's process serves four of them, on one address);
 * every call goes through call() with a deadline.
 */
import { AdminServiceClient } from "@auth-platform/proto/gen/auth/admin/v1/admin";
import { AccountServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/account";
import { IdentityServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import { MailSignInServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/mail_sign_in";
import { PasskeyServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/passkey";
import { ApiKeyServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/api_key";
import { TwoFactorServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/two_factor";
import { NotificationServiceClient } from "@auth-platform/proto/gen/auth/notification/v1/notification";
import { OrganizationServiceClient } from "@auth-platform/proto/gen/auth/organization/v1/organization";
import { OAuthServiceClient } from "@auth-platform/proto/gen/auth/oauth/v1/oauth";
import { SsoServiceClient } from "@auth-platform/proto/gen/auth/sso/v1/sso";
import { SessionServiceClient } from "@auth-platform/proto/gen/auth/session/v1/session";
import { DomainServiceClient } from "@auth-platform/proto/gen/auth/sso/v1/domain";
import { ScimServiceClient } from "@auth-platform/proto/gen/auth/sso/v1/scim";
import { createGrpcClient } from "@auth-platform/runtime/grpc-client";
import type { GrpcTls } from "@auth-platform/runtime/grpc-transport";

export interface Clients {
  identity: IdentityServiceClient;
  /** identity's TwoFactorService. */
  twoFactor: TwoFactorServiceClient;
  /** identity's AccountService (linked accounts, provider tokens). */
  accounts: AccountServiceClient;
  /** identity's MailSignInService (magic links and mailed codes). */
  mailSignIn: MailSignInServiceClient;
  /** identity's PasskeyService. */
  passkeys: PasskeyServiceClient;
  /** identity's ApiKeyService. */
  apiKeys: ApiKeyServiceClient;
  sessions: SessionServiceClient;
  notification: NotificationServiceClient;
  organization: OrganizationServiceClient;
  admin: AdminServiceClient;
  oauth: OAuthServiceClient;
  sso: SsoServiceClient;
  /** sso's DomainService (verified domains). */
  domains: DomainServiceClient;
  /** sso's ScimService (SCIM tokens and /scim/v2). */
  scim: ScimServiceClient;
  close(): void;
}

export function createClients(addresses: {
  identityServiceUrl: string;
  sessionServiceUrl: string;
  notificationServiceUrl: string;
  organizationServiceUrl: string;
  adminServiceUrl: string;
  oauthServiceUrl: string;
  ssoServiceUrl: string;
  grpcTls: GrpcTls;
}): Clients {
  const tls = addresses.grpcTls;
  const identity = createGrpcClient(IdentityServiceClient, addresses.identityServiceUrl, { tls, serverName: "identity" });
  // Same target, credentials and options: grpc-js shares the connections (its subchannel pool).
  const twoFactor = createGrpcClient(TwoFactorServiceClient, addresses.identityServiceUrl, { tls, serverName: "identity" });
  const accounts = createGrpcClient(AccountServiceClient, addresses.identityServiceUrl, { tls, serverName: "identity" });
  const mailSignIn = createGrpcClient(MailSignInServiceClient, addresses.identityServiceUrl, { tls, serverName: "identity" });
  const passkeys = createGrpcClient(PasskeyServiceClient, addresses.identityServiceUrl, { tls, serverName: "identity" });
  const apiKeys = createGrpcClient(ApiKeyServiceClient, addresses.identityServiceUrl, { tls, serverName: "identity" });
  const sessions = createGrpcClient(SessionServiceClient, addresses.sessionServiceUrl, { tls, serverName: "session" });
  const notification = createGrpcClient(NotificationServiceClient, addresses.notificationServiceUrl, { tls, serverName: "notification" });
  const organization = createGrpcClient(OrganizationServiceClient, addresses.organizationServiceUrl, { tls, serverName: "organization" });
  const admin = createGrpcClient(AdminServiceClient, addresses.adminServiceUrl, { tls, serverName: "admin" });
  const oauth = createGrpcClient(OAuthServiceClient, addresses.oauthServiceUrl, { tls, serverName: "oauth" });
  const sso = createGrpcClient(SsoServiceClient, addresses.ssoServiceUrl, { tls, serverName: "sso" });
  const domains = createGrpcClient(DomainServiceClient, addresses.ssoServiceUrl, { tls, serverName: "sso" });
  const scim = createGrpcClient(ScimServiceClient, addresses.ssoServiceUrl, { tls, serverName: "sso" });
  return {
    identity,
    twoFactor,
    accounts,
    mailSignIn,
    passkeys,
    apiKeys,
    sessions,
    notification,
    organization,
    admin,
    oauth,
    sso,
    domains,
    scim,
    close() {
      organization.close();
      admin.close();
      identity.close();
      twoFactor.close();
      accounts.close();
      mailSignIn.close();
      passkeys.close();
      apiKeys.close();
      sessions.close();
      notification.close();
      oauth.close();
      sso.close();
      domains.close();
      scim.close();
    },
  };
}
