/**
 * The app's one client for the platform's HTTP API under its base path (/api/auth unless the server that
 * served the page says otherwise: runtime-config.ts; same origin: the Vite dev server and the production
 * web server proxy it to the gateway). Plain fetch with the session cookie; every failed call throws an
 * ApiError carrying the gateway's `{code, message}`, so a form can show the message next to the field it
 * names or at its top.
 */
import type {
  Invitation,
  Member,
  Organization,
  OrganizationAccess,
  OrganizationRole,
  Passkey,
  Session,
  Team,
  TeamMember,
  TrustedDevice,
  User,
} from "@auth-platform/contract/shapes";
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from "@simplewebauthn/browser";
import { currentLanguage, translate, translateIfKnown } from "./i18n";
import { apiBasePath } from "./runtime-config";

/** The user, session, organization, member, invitation, trusted device and passkey shapes the gateway answers. */
export type {
  Invitation,
  Member,
  Organization,
  OrganizationAccess,
  OrganizationRole,
  Passkey,
  Session,
  Team,
  TeamMember,
  TrustedDevice,
  User,
} from "@auth-platform/contract/shapes";

export interface SessionWithUser {
  session: Session;
  user: User;
}

export interface LinkedAccount {
  id: string;
  providerId: string;
  accountId: string;
  createdAt: string;
  updatedAt: string;
  scopes: string[];
}

export interface OutboxMail {
  id: string;
  to: string;
  subject: string;
  text: string;
  template: string;
  createdAt: string;
  deliveredAt: string | null;
  links: string[];
}

/** A sign-in that waits for the second factor (the two-factor cookie is set). */
export interface TwoFactorRedirect {
  twoFactorRedirect: true;
  /** "totp" (an authenticator app is set up), "otp" (a code by mail). */
  twoFactorMethods?: string[];
}

export type SignInResult = { token: string; user: User } | TwoFactorRedirect;

export const needsSecondFactor = (result: SignInResult): result is TwoFactorRedirect => "twoFactorRedirect" in result && result.twoFactorRedirect === true;

export type SecondFactorMethod = "totp" | "otp" | "backup-code";

export interface FullOrganization extends Organization {
  members: Member[];
  invitations: Invitation[];
  /** Its teams, oldest first (docs/organizations.md#teams). */
  teams: Team[];
  /** What the signed-in member may do in it (docs/organizations.md#what-the-caller-may-do). */
  access?: OrganizationAccess;
}

export interface InvitationDetail extends Invitation {
  organizationName: string;
  organizationSlug: string;
  inviterEmail: string;
}

/** GET /admin/list-users's query (better-auth adminClient's names). */
export interface UserListQuery {
  searchValue?: string;
  searchField?: "email" | "name";
  searchOperator?: "contains" | "starts_with" | "ends_with";
  filterField?: string;
  filterValue?: string;
  filterOperator?: "eq" | "ne" | "lt" | "lte" | "gt" | "gte" | "contains" | "starts_with" | "ends_with";
  sortBy?: string;
  sortDirection?: "asc" | "desc";
  limit: number;
  offset: number;
}

/** A user of the admin list: the user and when they last signed in (null: never). */
export type ListedUser = User & { lastSignInAt: string | null };

export interface AuditEvent {
  id: string;
  action: string;
  actorId: string | null;
  impersonatorId: string | null;
  targetId: string | null;
  at: string;
  ipAddress: string | null;
  userAgent: string | null;
  outcome: string;
  details: Record<string, unknown>;
}

/** A page of the audit log, with the name and email of each user it names (by id; a removed user is absent). */
export interface AuditPage {
  events: AuditEvent[];
  total: number;
  users: Record<string, { name: string; email: string }>;
}

export interface AuditQuery {
  action?: string;
  actorId?: string;
  targetId?: string;
  limit: number;
  offset: number;
}

/** A domain the organization claimed (docs/http-api/domains.md): its TXT record, and whether it is verified. */
export interface OrganizationDomain {
  id: string;
  organizationId: string;
  domain: string;
  status: "pending" | "verified" | "expired";
  record: { name: string; type: "TXT"; value: string };
  createdAt: string;
  /** Until when an unverified claim can be verified. */
  expiresAt: string;
  verifiedAt: string | null;
  /** The role new users with a verified address at the domain join with; null: auto-join is off. */
  autoJoinRole: string | null;
}

/** A query string of the set values only. */
const queryString = (params: object) => {
  const entries = Object.entries(params).filter(([, value]) => value !== undefined && value !== "");
  return entries.length ? `?${new URLSearchParams(entries.map(([key, value]) => [key, String(value)])).toString()}` : "";
};

/** What an error answer says beyond its code and message. */
export interface ErrorDetails {
  /** A rate-limit refusal (429): whole seconds until requests are let in again (Retry-After). */
  retryAfter?: number;
  /** BANNED_USER: when the ban ends (ISO 8601); null when it does not. */
  banExpires?: string | null;
  /** DOMAIN_VERIFICATION_FAILED: absent, mismatch or unavailable (why the TXT record was not found). */
  reason?: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetails = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/**
 * The message a person reads for any failure (a network error included), in the reader's language: the
 * catalogue's message for the error's code (the code itself never changes). In English the server's own
 * message, which is the catalogue's or a more precise one (a validation error naming its field); a code the
 * catalogue does not know keeps the server's message too.
 */
export function errorMessage(error: unknown): string {
  if (!(error instanceof ApiError)) return translate("common.unreachable");
  if (error.code === "BANNED_USER") return suspendedMessage(error.details.banExpires);
  // How long to wait, where the gateway said (the submit button counts it down: components.tsx).
  if (error.status === 429 && error.details.retryAfter) return translate("common.tooManyRequestsWait", { wait: formatWait(error.details.retryAfter) });
  if (currentLanguage() === "en") return error.message;
  return translateIfKnown(`errors.${error.code}`) ?? error.message;
}

/** A banned user's sign-in: until when, or without an end (a permanent ban, or a redirect that does not say). */
export function suspendedMessage(banExpires: string | null | undefined): string {
  const ends = banExpires ? new Date(banExpires) : undefined;
  if (!ends || Number.isNaN(ends.getTime())) return translate("common.suspended");
  const date = new Intl.DateTimeFormat(currentLanguage(), { dateStyle: "long", timeStyle: "short" }).format(ends);
  return translate("common.suspendedUntil", { date });
}

/** "12 seconds", "2 minutes", in the reader's language. */
function formatWait(seconds: number): string {
  const [value, unit] = seconds < 60 ? [seconds, "second"] : [Math.ceil(seconds / 60), "minute"];
  return new Intl.NumberFormat(currentLanguage(), { style: "unit", unit, unitDisplay: "long" }).format(value);
}

/**
 * Who is told of a rate-limit refusal, with when requests are let in again (epoch ms): the submit buttons,
 * which wait that long.
 */
const rateLimitListeners = new Set<(until: number) => void>();

export function onRateLimited(listener: (until: number) => void): () => void {
  rateLimitListeners.add(listener);
  return () => rateLimitListeners.delete(listener);
}

/** Whole seconds of a Retry-After header (the gateway's 429 and 503), undefined when absent or not a number of seconds. */
function secondsOf(header: string | null): number | undefined {
  const seconds = Number(header ?? undefined);
  return Number.isInteger(seconds) && seconds >= 1 ? seconds : undefined;
}

/**
 * The longest Retry-After the app waits out by itself. A 503 with Retry-After is a capacity refusal (password
 * hashing busy) made before anything was done, so the same request may be sent again; a longer wait is
 * shown to the person instead.
 */
const MAX_AUTOMATIC_WAIT_S = 5;
const AUTOMATIC_RETRIES = 2;

/** An API key as listed (docs/http-api/api-keys.md): never the key, only its first characters. */
export interface ApiKey {
  id: string;
  name: string | null;
  start: string | null;
  organizationId: string | null;
  enabled: boolean;
  expiresAt: string | null;
  lastRequest: string | null;
  createdAt: string;
}

/** A SCIM token as listed: never its secret. */
export interface ScimToken {
  id: string;
  name: string;
  prefix: string;
  createdBy: string;
  createdAt: string;
  lastUsedAt: string | null;
}

/** An organization's identity provider as its managers see it (docs/http-api/sso.md): never its client secret. */
export interface SsoProvider {
  providerId: string;
  type: "oidc" | "saml" | string;
  issuer: string;
  domain: string;
  organizationId: string | null;
  domainVerified: boolean;
  oidcConfig?: { discoveryEndpoint: string; clientIdLastFour: string; pkce: boolean };
  samlConfig?: { idpEntityId: string; entryPoint: string; metadataUrl?: string; spEntityId: string; acsUrl: string; spMetadataUrl: string };
  /** The redirect URI to register with an OpenID provider. */
  redirectURI: string;
  enabled: boolean;
  defaultRole: string;
}

/** POST /sso/register's body: an OpenID Connect provider (oidcConfig) or a SAML one (samlConfig). */
export interface SsoProviderInput {
  providerId: string;
  issuer: string;
  domain: string;
  organizationId: string;
  defaultRole: string;
  enabled: boolean;
  oidcConfig?: { clientId: string; clientSecret: string; discoveryEndpoint?: string; pkce: boolean };
  samlConfig?: { idpMetadata?: { metadata?: string; entityID?: string }; metadataUrl?: string; entryPoint?: string; cert?: string };
}

/** One check of "Test connection": discovery, issuer, token_endpoint, jwks_endpoint, metadata_url, certificate, sso_url. */
export interface ProviderCheck {
  name: string;
  ok: boolean;
  detail: string;
}

async function request<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    const res = await fetch(`${apiBasePath()}${path}`, {
      method,
      credentials: "same-origin",
      // The app's language, not only the browser's: the mails a call leads to are written in it.
      headers: { accept: "application/json", "accept-language": currentLanguage(), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // X-Retry-After: the only one an older gateway sends with its 429.
    const retryAfter = secondsOf(res.headers.get("retry-after") ?? res.headers.get("x-retry-after"));
    if (res.status === 503 && retryAfter !== undefined && retryAfter <= MAX_AUTOMATIC_WAIT_S && attempt < AUTOMATIC_RETRIES) {
      await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
      continue;
    }
    const text = await res.text();
    let data: unknown = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = null;
    }
    if (!res.ok) {
      const { code, message, banExpires, reason } = (data ?? {}) as { code?: string; message?: string; banExpires?: unknown; reason?: unknown };
      if (res.status === 429) {
        if (retryAfter !== undefined) for (const listener of rateLimitListeners) listener(Date.now() + retryAfter * 1000);
        throw new ApiError(429, code ?? "TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER", message ?? translate("errors.TOO_MANY_REQUESTS_PLEASE_TRY_AGAIN_LATER"), { retryAfter });
      }
      const details: ErrorDetails = {
        ...(typeof banExpires === "string" || banExpires === null ? { banExpires } : {}),
        ...(typeof reason === "string" ? { reason } : {}),
      };
      throw new ApiError(res.status, code ?? "UNKNOWN", message ?? translate("common.requestFailed", { status: res.status }), details);
    }
    return data as T;
  }
}

const get = <T>(path: string) => request<T>("GET", path);
const post = <T>(path: string, body: unknown = {}) => request<T>("POST", path, body);

export const api = {
  getSession: () => get<SessionWithUser | null>("/get-session"),
  signInEmail: (body: { email: string; password: string; rememberMe: boolean }) => post<SignInResult>("/sign-in/email", body),
  signInUsername: (body: { username: string; password: string; rememberMe: boolean }) => post<SignInResult>("/sign-in/username", body),
  signUpEmail: (body: { name: string; email: string; password: string; username?: string; callbackURL: string }) =>
    post<{ token: string | null; user: User }>("/sign-up/email", body),
  signOut: () => post<{ success: boolean }>("/sign-out"),
  isUsernameAvailable: (username: string) => post<{ available: boolean }>("/is-username-available", { username }),
  forgetPassword: (body: { email: string; redirectTo: string }) => post<{ status: boolean; message: string }>("/forget-password", body),
  resetPassword: (body: { newPassword: string; token: string }) => post<{ status: boolean }>("/reset-password", body),
  sendVerificationEmail: (body: { email: string; callbackURL: string }) => post<{ status: boolean }>("/send-verification-email", body),
  verifyEmail: (token: string) => get<{ status: boolean; user: User }>(`/verify-email?token=${encodeURIComponent(token)}`),
  updateUser: (body: { name?: string; image?: string | null }) => post<{ status: boolean }>("/update-user", body),
  changeEmail: (body: { newEmail: string; callbackURL: string }) => post<{ status: boolean }>("/change-email", body),
  changePassword: (body: { currentPassword: string; newPassword: string; revokeOtherSessions: boolean }) => post<{ token: string | null; user: User }>("/change-password", body),
  deleteUser: (body: { password?: string; callbackURL: string }) => post<{ success: boolean; message: string }>("/delete-user", body),
  listAccounts: () => get<LinkedAccount[]>("/list-accounts"),
  setPassword: (body: { newPassword: string }) => post<{ status: boolean }>("/set-password", body),
  unlinkAccount: (account: LinkedAccount) => post<{ status: boolean }>("/unlink-account", { providerId: account.providerId, accountId: account.accountId }),
  listSessions: () => get<Session[]>("/list-sessions"),
  revokeSession: (token: string) => post<{ status: boolean }>("/revoke-session", { token }),
  revokeOtherSessions: () => post<{ status: boolean }>("/revoke-other-sessions"),
  revokeSessions: () => post<{ status: boolean }>("/revoke-sessions"),
  twoFactor: {
    enable: (password: string) => post<{ totpURI: string; backupCodes: string[] }>("/two-factor/enable", { password }),
    disable: (password: string) => post<{ status: boolean }>("/two-factor/disable", { password }),
    generateBackupCodes: (password: string) => post<{ status: boolean; backupCodes: string[] }>("/two-factor/generate-backup-codes", { password }),
    sendOtp: () => post<{ status: boolean }>("/two-factor/send-otp"),
    verify: (method: SecondFactorMethod, body: { code: string; trustDevice?: boolean }) => post<{ token: string; user: User }>(`/two-factor/verify-${method}`, body),
    listTrustedDevices: () => get<{ devices: TrustedDevice[] }>("/two-factor/list-trusted-devices"),
    revokeTrustedDevice: (id: string) => post<{ status: boolean }>("/two-factor/revoke-trusted-device", { id }),
    verifyPasskey: (response: AuthenticationResponseJSON, trustDevice: boolean) => post<{ token: string; user: User }>("/two-factor/verify-passkey", { response, trustDevice }),
  },
  passkey: {
    registerOptions: () => get<PublicKeyCredentialCreationOptionsJSON>("/passkey/generate-register-options"),
    verifyRegistration: (response: RegistrationResponseJSON, name?: string) => post<Passkey>("/passkey/verify-registration", { response, ...(name ? { name } : {}) }),
    authenticateOptions: () => get<PublicKeyCredentialRequestOptionsJSON>("/passkey/generate-authenticate-options"),
    verifyAuthentication: (response: AuthenticationResponseJSON) => post<SessionWithUser>("/passkey/verify-authentication", { response }),
    list: () => get<Passkey[]>("/passkey/list-user-passkeys"),
    rename: (id: string, name: string) => post<{ passkey: Passkey }>("/passkey/update-passkey", { id, name }),
    remove: (id: string) => post<{ status: boolean }>("/passkey/delete-passkey", { id }),
  },
  apiKey: {
    /** The caller's keys, or an organization's. */
    list: (organizationId?: string) => get<{ apiKeys: ApiKey[]; total: number }>(`/api-key/list${organizationId ? `?organizationId=${encodeURIComponent(organizationId)}` : ""}`),
    /** The key itself is answered here only. */
    create: (body: { name: string; expiresIn?: number; organizationId?: string }) => post<ApiKey & { key: string }>("/api-key/create", body),
    remove: (keyId: string) => post<{ success: boolean }>("/api-key/delete", { keyId }),
  },
  organization: {
    list: () => get<Organization[]>("/organization/list"),
    create: (body: { name: string; slug: string }) => post<FullOrganization>("/organization/create", body),
    checkSlug: (slug: string) => post<{ status: boolean }>("/organization/check-slug", { slug }),
    update: (organizationId: string, data: { name?: string; slug?: string; logo?: string | null }) => post<Organization>("/organization/update", { organizationId, data }),
    delete: (organizationId: string) => post<Organization>("/organization/delete", { organizationId }),
    getFull: () => get<FullOrganization | null>("/organization/get-full-organization"),
    setActive: (organizationId: string | null) => post<FullOrganization | null>("/organization/set-active", { organizationId }),
    getActiveMember: () => get<Member>("/organization/get-active-member"),
    invite: (body: { email: string; role: string; organizationId: string; resend?: boolean }) => post<Invitation>("/organization/invite-member", body),
    cancelInvitation: (invitationId: string) => post<Invitation>("/organization/cancel-invitation", { invitationId }),
    getInvitation: (id: string) => get<InvitationDetail>(`/organization/get-invitation?id=${encodeURIComponent(id)}`),
    acceptInvitation: (invitationId: string) => post<{ invitation: Invitation; member: Member }>("/organization/accept-invitation", { invitationId }),
    /** SCIM tokens (an owner's; docs/http-api/scim.md): the secret is answered by generate alone. */
    scimTokens: (organizationId: string) => get<ScimToken[]>(`/organization/scim/list-tokens?organizationId=${encodeURIComponent(organizationId)}`),
    generateScimToken: (organizationId: string, name: string) => post<ScimToken & { token: string }>("/organization/scim/generate-token", { organizationId, name }),
    revokeScimToken: (organizationId: string, tokenId: string) => post<{ status: boolean }>("/organization/scim/revoke-token", { organizationId, tokenId }),
    /** Claimed and verified domains (an owner's or admin's; docs/http-api/domains.md). */
    listDomains: (organizationId: string) => get<OrganizationDomain[]>(`/organization/list-domains?organizationId=${encodeURIComponent(organizationId)}`),
    claimDomain: (organizationId: string, domain: string) => post<OrganizationDomain>("/organization/claim-domain", { organizationId, domain }),
    verifyDomain: (organizationId: string, domainId: string) => post<OrganizationDomain>("/organization/verify-domain", { organizationId, domainId }),
    removeDomain: (organizationId: string, domainId: string) => post<{ status: boolean }>("/organization/remove-domain", { organizationId, domainId }),
    setDomainAutoJoin: (organizationId: string, domainId: string, role: string | null) =>
      post<OrganizationDomain>("/organization/set-domain-auto-join", { organizationId, domainId, role }),
    rejectInvitation: (invitationId: string) => post<{ invitation: Invitation }>("/organization/reject-invitation", { invitationId }),
    removeMember: (memberIdOrEmail: string, organizationId: string) => post<{ member: Member }>("/organization/remove-member", { memberIdOrEmail, organizationId }),
    updateMemberRole: (memberId: string, role: string, organizationId: string) => post<Member>("/organization/update-member-role", { memberId, role, organizationId }),
    leave: (organizationId: string) => post<Member>("/organization/leave", { organizationId }),
    createTeam: (name: string, organizationId: string) => post<Team>("/organization/create-team", { name, organizationId }),
    renameTeam: (teamId: string, name: string) => post<Team>("/organization/update-team", { teamId, data: { name } }),
    removeTeam: (teamId: string) => post<{ message: string }>("/organization/remove-team", { teamId }),
    setActiveTeam: (teamId: string | null) => post<Team | null>("/organization/set-active-team", { teamId }),
    listUserTeams: (organizationId: string) => get<Team[]>(`/organization/list-user-teams?organizationId=${encodeURIComponent(organizationId)}`),
    listTeamMembers: (teamId: string) => get<TeamMember[]>(`/organization/list-team-members?teamId=${encodeURIComponent(teamId)}`),
    addTeamMember: (teamId: string, userId: string) => post<TeamMember>("/organization/add-team-member", { teamId, userId }),
    removeTeamMember: (teamId: string, userId: string) => post<{ message: string }>("/organization/remove-team-member", { teamId, userId }),
    listRoles: (organizationId: string) => get<OrganizationRole[]>(`/organization/list-roles?organizationId=${encodeURIComponent(organizationId)}`),
    createRole: (organizationId: string, role: string, permission: Record<string, string[]>) =>
      post<{ roleData: OrganizationRole }>("/organization/create-role", { organizationId, role, permission }),
    updateRole: (organizationId: string, roleId: string, data: { roleName?: string; permission?: Record<string, string[]> }) =>
      post<{ roleData: OrganizationRole }>("/organization/update-role", { organizationId, roleId, data }),
    deleteRole: (organizationId: string, roleId: string) => post<{ success: boolean }>("/organization/delete-role", { organizationId, roleId }),
  },
  /** The organization's identity providers (docs/http-api/sso.md), for its owners and admins. */
  sso: {
    providers: (organizationId: string) =>
      get<{ providers: SsoProvider[] }>(`/sso/providers?organizationId=${encodeURIComponent(organizationId)}`).then((answer) => answer.providers),
    register: (body: SsoProviderInput) => post<SsoProvider>("/sso/register", body),
    update: (body: {
      providerId: string;
      enabled?: boolean;
      issuer?: string;
      domain?: string;
      defaultRole?: string;
      oidcConfig?: Partial<NonNullable<SsoProviderInput["oidcConfig"]>>;
      samlConfig?: SsoProviderInput["samlConfig"];
    }) => post<SsoProvider>("/sso/update-provider", body),
    remove: (providerId: string) => post<{ success: boolean }>("/sso/delete-provider", { providerId }),
    test: (providerId: string) => post<{ ok: boolean; checks: ProviderCheck[] }>("/sso/test-provider", { providerId }),
  },
  admin: {
    /** Whether the signed-in user's role is an admin role (the admin service decides; false for everyone else). */
    canManageUsers: () => post<{ success: boolean }>("/admin/has-permission", { permissions: { user: ["list"] } }).then((r) => r.success),
    /** totalIsLowerBound: more users match than the admin service counts (its count limit); total is that limit. */
    listUsers: (query: UserListQuery) => get<{ users: ListedUser[]; total: number; totalIsLowerBound?: boolean }>(`/admin/list-users${queryString(query)}`),
    /** The roles admins may give, in configured order. */
    listRoles: () => get<{ roles: string[] }>("/admin/list-roles").then((answer) => answer.roles),
    /** No password: the user gets no credential account; no role: the platform's default role. */
    createUser: (body: { name: string; email: string; password?: string; role?: string }) => post<{ user: User }>("/admin/create-user", body),
    getUser: (id: string) => get<User>(`/admin/get-user?id=${encodeURIComponent(id)}`),
    listUserSessions: (userId: string) => post<{ sessions: Session[] }>("/admin/list-user-sessions", { userId }),
    revokeUserSession: (sessionToken: string) => post<{ success: boolean }>("/admin/revoke-user-session", { sessionToken }),
    revokeUserSessions: (userId: string) => post<{ success: boolean }>("/admin/revoke-user-sessions", { userId }),
    setRole: (userId: string, role: string) => post<{ user: User }>("/admin/set-role", { userId, role }),
    setUserPassword: (userId: string, newPassword: string) => post<{ status: boolean }>("/admin/set-user-password", { userId, newPassword }),
    banUser: (body: { userId: string; banReason?: string; banExpiresIn?: number }) => post<{ user: User }>("/admin/ban-user", body),
    unbanUser: (userId: string) => post<{ user: User }>("/admin/unban-user", { userId }),
    impersonateUser: (userId: string) => post<{ session: Session; user: User }>("/admin/impersonate-user", { userId }),
    stopImpersonating: () => post<{ session: Session; user: User }>("/admin/stop-impersonating"),
    removeUser: (userId: string) => post<{ success: boolean }>("/admin/remove-user", { userId }),
    listAuditEvents: (query: AuditQuery) => get<AuditPage>(`/admin/list-audit-events${queryString(query)}`),
  },
  /**
   * The social providers this platform has configured (no secrets), with the display names of its generic
   * ones. A platform without the route (404) has none to offer.
   */
  socialProviders: () =>
    get<{ providers: string[]; names?: Record<string, string> }>("/social-providers").then(
      (answer) => ({ ids: answer.providers, names: answer.names ?? {} }),
      (error: unknown) => {
        if (error instanceof ApiError && error.status === 404) return { ids: [], names: {} };
        throw error;
      },
    ),
  /** Starts a provider's sign-in (or, signed in, links it): the answer's url is the provider's page. */
  signInSocial: (body: { provider: string; callbackURL: string; errorCallbackURL?: string }) => post<{ url: string; redirect: boolean }>("/sign-in/social", body),
  /** Email-first sign-in: the organization's identity provider for the address's verified domain, if one routes it. */
  signInSso: (body: { email: string; callbackURL: string; errorCallbackURL: string }) => post<{ url: string; redirect: boolean }>("/sign-in/sso", body),
  linkSocial: (body: { provider: string; callbackURL: string; errorCallbackURL?: string }) => post<{ url: string; redirect: boolean }>("/link-social", body),
  /** Which mailed sign-in ways are on; a platform without the route (404) has neither. */
  mailSignInOptions: () =>
    get<{ magicLink: boolean; emailOtp: boolean }>("/mail-sign-in-options").catch((error: unknown) => {
      if (error instanceof ApiError && error.status === 404) return { magicLink: false, emailOtp: false };
      throw error;
    }),
  signInMagicLink: (body: { email: string; callbackURL: string; errorCallbackURL: string }) => post<{ status: boolean }>("/sign-in/magic-link", body),
  sendEmailOtp: (body: { email: string; type: "sign-in" | "email-verification" | "forget-password" }) => post<{ success: boolean }>("/email-otp/send-verification-otp", body),
  signInEmailOtp: (body: { email: string; otp: string }) => post<SignInResult>("/sign-in/email-otp", body),
  requestPasswordResetOtp: (body: { email: string }) => post<{ success: boolean }>("/email-otp/request-password-reset", body),
  resetPasswordOtp: (body: { email: string; otp: string; password: string }) => post<{ success: boolean }>("/email-otp/reset-password", body),
  devOutbox: (to?: string) => get<{ messages: OutboxMail[] }>(`/dev/outbox${to ? `?to=${encodeURIComponent(to)}` : ""}`),
};
