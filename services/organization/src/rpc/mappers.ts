/** Organization records <-> contract messages. */
import { type Caller as CallerMessage, requireCaller } from "@auth-platform/runtime/caller";
import type { FullOrganization as FullMessage, Invitation, Member, Organization, Team, TeamMember } from "@auth-platform/proto/gen/auth/organization/v1/organization";
import type { UserInvitation } from "../domain/invitations.js";
import type { MemberWithUser } from "../domain/members.js";
import type { FullOrganization } from "../domain/organizations.js";
import type { Caller } from "../domain/ports.js";
import type { InvitationRecord, MemberRecord, OrganizationRecord, TeamMemberRecord, TeamRecord } from "../store/organization-store.js";

export function toOrganizationMessage(organization: OrganizationRecord): Organization {
  return {
    id: organization.id,
    name: organization.name,
    slug: organization.slug,
    logo: organization.logo ?? undefined,
    metadata: organization.metadata,
    createdAt: organization.createdAt,
  };
}

export function toMemberMessage(member: MemberRecord | MemberWithUser): Member {
  const user = "user" in member && member.user ? { ...member.user, image: member.user.image ?? undefined } : undefined;
  return { id: member.id, organizationId: member.organizationId, userId: member.userId, role: member.role, createdAt: member.createdAt, user };
}

export function toInvitationMessage(invitation: InvitationRecord): Invitation {
  return { ...invitation };
}

/** An invitation addressed to the caller, with its organization's name. */
export function toUserInvitationMessage(invitation: UserInvitation): Invitation {
  return { ...toInvitationMessage(invitation), organizationName: invitation.organizationName };
}

export function toFullMessage(full: FullOrganization): FullMessage {
  return {
    organization: toOrganizationMessage(full.organization),
    members: full.members.map(toMemberMessage),
    invitations: full.invitations.map(toInvitationMessage),
    memberCount: full.memberCount,
    teams: full.teams.map(toTeamMessage),
    callerAccess: full.access,
  };
}

/** The caller a request carries; every call made for a signed-in user needs one. */
export function callerOf(message: CallerMessage | undefined): Caller {
  const caller = requireCaller(message);
  return {
    userId: caller.userId,
    email: caller.email.toLowerCase(),
    emailVerified: caller.emailVerified,
    sessionId: caller.sessionId,
    activeOrganizationId: caller.activeOrganizationId || null,
    activeTeamId: caller.activeTeamId || null,
  };
}

/** The caller of a call a trusted workload may also make without one (teams). */
export function optionalCaller(message: CallerMessage | undefined): Caller | undefined {
  return message ? callerOf(message) : undefined;
}

export function toTeamMessage(team: TeamRecord): Team {
  return { id: team.id, organizationId: team.organizationId, name: team.name, createdAt: team.createdAt, updatedAt: team.updatedAt };
}

export function toTeamMemberMessage(place: TeamMemberRecord): TeamMember {
  return { id: place.id, teamId: place.teamId, userId: place.userId, createdAt: place.createdAt };
}
