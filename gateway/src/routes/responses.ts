/**
 * The JSON bodies of the routes whose shape a better-auth client declares, built in one place and typed,
 * so gateway/test/better-auth-client-types.test.ts can check at compile time that each one satisfies the
 * current client's declared types (ISO date strings become Dates in the client's JSON parser).
 */
import type { Account } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import type {
  CallerAccess,
  FullOrganization,
  GetInvitationResponse,
  Invitation,
  Member,
  Organization,
  Team,
  TeamMember,
} from "@auth-platform/proto/gen/auth/organization/v1/organization";
import { publicInvitation, publicMember, publicOrganization } from "../http/public-shapes.js";
import type { PublicSession, PublicTrustedDevice, PublicUser } from "../http/public-shapes.js";

/** Said for every well-formed address, known or not, so the answer reveals no account. */
export const RESET_REQUESTED = "If an account uses this address, a password reset link has been sent to it";

const iso = (date: Date | undefined) => (date ?? new Date(0)).toISOString();

export const signUpResponse = (token: string | null, user: PublicUser) => ({ token, user });

export const signInEmailResponse = (token: string, user: PublicUser, callbackURL: string | undefined) => ({
  redirect: Boolean(callbackURL),
  token,
  url: callbackURL,
  user,
});

/** redirect (declared by the current client) is true when the call named a callbackURL, echoed as url. */
export const signInUsernameResponse = (token: string, user: PublicUser, callbackURL: string | undefined) => ({
  redirect: Boolean(callbackURL),
  token,
  url: callbackURL,
  user,
});

export const sessionResponse = (session: PublicSession, user: PublicUser) => ({ session, user });

export const updateSessionResponse = (session: PublicSession) => ({ session });

/** `provider` for 1.1 clients, `providerId` and `userId` for the current one. */
export const accountListResponse = (accounts: Account[], userId: string) =>
  accounts.map((account) => ({
    id: account.id,
    provider: account.providerId,
    providerId: account.providerId,
    accountId: account.accountId,
    userId,
    createdAt: iso(account.createdAt),
    updatedAt: iso(account.updatedAt),
    scopes: account.scopes,
  }));

export const passwordResetRequestedResponse = () => ({ status: true, message: RESET_REQUESTED });

export const usernameAvailabilityResponse = (available: boolean) => ({ available });

/** A sign-in that waits for the second factor: 1.1 reads twoFactorRedirect, the current client also the methods. */
export const twoFactorRedirectResponse = (methods: string[]) => ({ twoFactorRedirect: true as const, twoFactorMethods: methods });

/** method: declared by the current client (only TOTP enrolment is served). */
export const enableTwoFactorResponse = (totpURI: string, backupCodes: string[]) => ({ method: "totp" as const, totpURI, backupCodes });

export const totpUriResponse = (totpURI: string) => ({ totpURI });

export const backupCodesResponse = (backupCodes: string[]) => ({ status: true, backupCodes });

/** What the verify-* routes answer: the session's token (new, or the caller's own) and the user. */
export const twoFactorVerifiedResponse = (token: string, user: PublicUser) => ({ token, user });

export const statusResponse = () => ({ status: true });

export const trustedDevicesResponse = (devices: PublicTrustedDevice[]) => ({ devices });

/** What the caller may do in an organization (ours: docs/better-auth-compat.md). */
const publicAccess = (access: CallerAccess) => ({
  role: access.role,
  canUpdateOrganization: access.updateOrganization,
  canDeleteOrganization: access.deleteOrganization,
  canInvite: access.invite,
  canCancelInvitations: access.cancelInvitations,
  assignableRoles: access.assignableRoles,
  updatableMemberIds: access.updatableMemberIds,
  removableMemberIds: access.removableMemberIds,
  ownerRole: access.ownerRole,
  canManageTeams: access.manageTeams,
  roleActions: access.roleActions,
});

/** An organization with its members (and invitations): create, get-full-organization, set-active. */
export const fullOrganizationResponse = (full: FullOrganization) => ({
  ...publicOrganization(full.organization!),
  members: full.members.map(publicMember),
  invitations: full.invitations.map(publicInvitation),
  // better-auth 1.7 with teams enabled.
  teams: full.teams.map(publicTeam),
  // Ours: what the caller may do in it (the web app offers only those controls).
  ...(full.callerAccess && { access: publicAccess(full.callerAccess) }),
});

/** A team as better-auth 1.7's organization plugin answers it. */
export const publicTeam = (team: Team) => ({
  id: team.id,
  name: team.name,
  organizationId: team.organizationId,
  createdAt: team.createdAt!.toISOString(),
  updatedAt: team.updatedAt!.toISOString(),
});

export const publicTeamMember = (place: TeamMember) => ({ id: place.id, teamId: place.teamId, userId: place.userId, createdAt: place.createdAt!.toISOString() });

export const organizationResponse = (organization: Organization) => publicOrganization(organization);

export const organizationListResponse = (organizations: Organization[]) => organizations.map(publicOrganization);

export const memberResponse = (member: Member) => publicMember(member);

export const memberListResponse = (members: Member[], total: number) => ({ members: members.map(publicMember), total });

/** The removed member with its user (the current client declares `member.user`; 1.1 reads the member's own fields). */
export const removedMemberResponse = (member: Member) => ({ member: publicMember(member) });

export const invitationResponse = (invitation: Invitation) => publicInvitation(invitation);

export const invitationListResponse = (invitations: Invitation[]) => invitations.map(publicInvitation);

/** list-user-invitations: each of the caller's invitations with its organization's name (the current client reads it). */
export const userInvitationListResponse = (invitations: Invitation[]) =>
  invitations.map((invitation) => ({ ...publicInvitation(invitation), organizationName: invitation.organizationName ?? "" }));

/** get-invitation: the invitation with what its page shows. */
export const invitationDetailResponse = (found: GetInvitationResponse) => ({
  ...publicInvitation(found.invitation!),
  organizationName: found.organizationName,
  organizationSlug: found.organizationSlug,
  inviterEmail: found.inviterEmail,
});

export const acceptedInvitationResponse = (invitation: Invitation, member: Member) => ({ invitation: publicInvitation(invitation), member: publicMember(member) });

export const rejectedInvitationResponse = (invitation: Invitation) => ({ invitation: publicInvitation(invitation), member: null });

export const slugAvailableResponse = () => ({ status: true });

/** has-permission of the organization and admin areas: `{ error: null, success }`. */
export const permissionResponse = (success: boolean) => ({ error: null, success });

export const memberRoleResponse = (role: string) => ({ role });

// ---- admin (adminClient of better-auth 1.1 and 1.7) ----

export const adminUserResponse = (user: PublicUser) => ({ user });

/** limit and offset echo the request (the current client declares them). */
/** totalIsLowerBound (ours, not better-auth's) only when more users match than the count limit: total is that limit. */
/** A user of the admin list: the user, and when they last signed in (ours; null when never). */
export type ListedUser = PublicUser & { lastSignInAt: string | null };

export const listUsersResponse = (users: ListedUser[], total: number, totalIsLowerBound: boolean, limit: number | undefined, offset: number | undefined) => ({
  users,
  total,
  ...(totalIsLowerBound && { totalIsLowerBound: true as const }),
  limit,
  offset,
});

export const listUserSessionsResponse = (sessions: PublicSession[]) => ({ sessions });

export const impersonationResponse = (session: PublicSession, user: PublicUser) => ({ session, user });

export const adminSuccessResponse = () => ({ success: true });

export const setUserPasswordResponse = () => ({ status: true });

/** POST /sign-in/social and /link-social: the provider's URL; redirect tells the client to go there. */
export const socialRedirectResponse = (url: string, redirect: boolean) => ({ url, redirect });

/** GET /social-providers (our own route): the configured providers' ids, and the generic ones' display names. */
export const socialProvidersResponse = (providers: string[], names: Record<string, string>) => ({ providers, names });

/** POST /sign-in/social with an id token: signed in directly. */
export const socialTokenResponse = (token: string, user: PublicUser, callbackURL?: string) => ({ redirect: false, token, url: callbackURL, user });
