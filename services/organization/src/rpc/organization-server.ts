/** OrganizationService over gRPC: decode, call one use case, encode. */
import { type OrganizationServiceServer, OrganizationServiceService } from "@auth-platform/proto/gen/auth/organization/v1/organization";
import { AuthError } from "@auth-platform/proto/errors";
import type { RpcServer } from "@auth-platform/proto/rpc-server";
import type { AccessTable } from "@auth-platform/runtime/grpc-access";
import { languageOr } from "@auth-platform/runtime/language";
import type { ServiceBinding } from "@auth-platform/runtime/grpc-server";
import { foldSlug } from "../domain/access.js";
import * as invitations from "../domain/invitations.js";
import * as members from "../domain/members.js";
import * as organizations from "../domain/organizations.js";
import * as teams from "../domain/teams.js";
import type { Registry } from "../domain/ports.js";
import {
  callerOf,
  optionalCaller,
  toFullMessage,
  toInvitationMessage,
  toMemberMessage,
  toOrganizationMessage,
  toTeamMemberMessage,
  toTeamMessage,
  toUserInvitationMessage,
} from "./mappers.js";
import { ROLE_ACCESS, roleHandlers } from "./role-handlers.js";
import * as valid from "./validation.js";

const GATEWAY = ["gateway"] as const;

/** Who may call what (docs/internal-api.md). */
export const ORGANIZATION_ACCESS: AccessTable = {
  // Without a caller, user_id names the creator: server-side creation by our users' services.
  CreateOrganization: ["gateway", "internal-client"],
  UpdateOrganization: GATEWAY,
  DeleteOrganization: GATEWAY,
  GetFullOrganization: GATEWAY,
  SetActiveOrganization: GATEWAY,
  ListOrganizations: ["gateway", "internal-client"],
  ListMembers: GATEWAY,
  GetActiveMember: GATEWAY,
  InviteMember: GATEWAY,
  GetInvitation: GATEWAY,
  ListInvitations: GATEWAY,
  ListUserInvitations: GATEWAY,
  AcceptInvitation: GATEWAY,
  RejectInvitation: GATEWAY,
  CancelInvitation: GATEWAY,
  RemoveMember: GATEWAY,
  UpdateMemberRole: GATEWAY,
  LeaveOrganization: GATEWAY,
  CheckSlug: GATEWAY,
  // identity asks it for the caller's apiKey actions in an organization (docs/adr/0075-api-keys.md).
  HasPermission: ["gateway", "identity"],
  // "Is user U a member of O, with which role": our users' own services, and sso (who may manage an
  // organization's identity providers, docs/adr/0067-the-sso-service.md).
  GetMembership: ["internal-client", "sso"],
  // Deleting a user (delete-user, or the admin area's remove-user, both in identity) removes their memberships.
  RemoveUserMemberships: ["identity"],
  // Teams: the gateway for signed-in members; sso for SCIM groups, which are teams
  // (docs/adr/0070-scim-provisioning.md).
  CreateTeam: ["gateway", "sso"],
  GetTeam: GATEWAY,
  ListTeams: GATEWAY,
  UpdateTeam: ["gateway", "sso"],
  RemoveTeam: ["gateway", "sso"],
  SetActiveTeam: GATEWAY,
  ListUserTeams: GATEWAY,
  ListTeamMembers: GATEWAY,
  AddTeamMember: ["gateway", "sso"],
  RemoveTeamMember: ["gateway", "sso"],
  ...ROLE_ACCESS,
  // A single sign-on or a SCIM provisioning adds and removes members of the provider's organization
  // (docs/adr/0067-the-sso-service.md).
  AddMember: ["sso", "identity"],
  RemoveUserMembership: ["sso"],
  FindOrganizationId: ["sso"],
};

export function organizationService(registry: Registry, rpc: RpcServer): ServiceBinding {
  const implementation: OrganizationServiceServer = {
    createOrganization: rpc.unary("CreateOrganization", async (req) => {
      const caller = req.caller ? callerOf(req.caller) : undefined;
      if (!caller && !req.userId) throw new AuthError("UNAUTHORIZED");
      const full = await organizations.createOrganization(registry, {
        caller,
        userId: req.userId ? valid.id("userId", req.userId) : undefined,
        name: valid.name(req.name),
        slug: valid.slug(req.slug),
        logo: valid.logo(req.logo),
        metadata: valid.metadata(req.metadata),
        keepActiveOrganization: req.keepActiveOrganization,
      });
      return { organization: toFullMessage(full) };
    }),
    updateOrganization: rpc.unary("UpdateOrganization", async (req) => {
      const organization = await organizations.updateOrganization(registry, callerOf(req.caller), {
        organizationId: valid.optionalId("organizationId", req.organizationId),
        patch: {
          name: req.name === undefined ? undefined : valid.name(req.name),
          slug: req.slug === undefined ? undefined : valid.slug(req.slug),
          // An empty logo clears it.
          logo: req.logo === undefined ? undefined : valid.logo(req.logo) || null,
          metadata: req.setMetadata ? valid.metadata(req.metadata) : undefined,
        },
      });
      return { organization: toOrganizationMessage(organization) };
    }),
    deleteOrganization: rpc.unary("DeleteOrganization", async (req) => {
      const organization = await organizations.deleteOrganization(registry, callerOf(req.caller), valid.id("organizationId", req.organizationId));
      return { organization: toOrganizationMessage(organization) };
    }),
    getFullOrganization: rpc.unary("GetFullOrganization", async (req) => {
      if (req.membersLimit < 0) throw new AuthError("VALIDATION_ERROR", "membersLimit must not be negative");
      const full = await organizations.getFullOrganization(registry, callerOf(req.caller), {
        organizationId: req.organizationId,
        organizationSlug: req.organizationSlug,
        membersLimit: req.membersLimit,
      });
      return { organization: full ? toFullMessage(full) : undefined };
    }),
    setActiveOrganization: rpc.unary("SetActiveOrganization", async (req) => {
      const full = await organizations.setActiveOrganization(registry, callerOf(req.caller), {
        organizationId: req.organizationId,
        organizationSlug: req.organizationSlug,
        unset: req.unset,
      });
      return { organization: full ? toFullMessage(full) : undefined };
    }),
    listOrganizations: rpc.unary("ListOrganizations", async (req) => ({
      organizations: (await organizations.listOrganizations(registry, valid.id("userId", req.userId))).map(toOrganizationMessage),
    })),
    listMembers: rpc.unary("ListMembers", async (req) => {
      if (req.limit < 0 || req.offset < 0) throw new AuthError("VALIDATION_ERROR", "limit and offset must not be negative");
      const page = await members.listMembers(registry, callerOf(req.caller), {
        organizationId: req.organizationId,
        organizationSlug: req.organizationSlug,
        limit: req.limit,
        offset: req.offset,
        ...valid.memberQuery(req),
      });
      return { members: page.members.map(toMemberMessage), total: page.total };
    }),
    getActiveMember: rpc.unary("GetActiveMember", async (req) => {
      const member = await members.getActiveMember(registry, callerOf(req.caller), { organizationId: req.organizationId, organizationSlug: req.organizationSlug });
      return { member: toMemberMessage(member) };
    }),
    inviteMember: rpc.unary("InviteMember", async (req) => {
      const invitation = await invitations.inviteMember(registry, callerOf(req.caller), {
        email: valid.emailAddress(req.email),
        role: valid.role(req.role),
        organizationId: valid.optionalId("organizationId", req.organizationId),
        resend: req.resend,
        language: languageOr(req.language),
      });
      return { invitation: toInvitationMessage(invitation) };
    }),
    getInvitation: rpc.unary("GetInvitation", async (req) => {
      const found = await invitations.getInvitation(registry, callerOf(req.caller), valid.id("invitationId", req.invitationId));
      return { ...found, invitation: toInvitationMessage(found.invitation) };
    }),
    listInvitations: rpc.unary("ListInvitations", async (req) => ({
      invitations: (await invitations.listInvitations(registry, callerOf(req.caller), valid.optionalId("organizationId", req.organizationId))).map(toInvitationMessage),
    })),
    listUserInvitations: rpc.unary("ListUserInvitations", async (req) => ({
      invitations: (await invitations.listUserInvitations(registry, callerOf(req.caller))).map(toUserInvitationMessage),
    })),
    acceptInvitation: rpc.unary("AcceptInvitation", async (req) => {
      const accepted = await invitations.acceptInvitation(registry, callerOf(req.caller), valid.id("invitationId", req.invitationId));
      return { invitation: toInvitationMessage(accepted.invitation), member: toMemberMessage(accepted.member) };
    }),
    rejectInvitation: rpc.unary("RejectInvitation", async (req) => ({
      invitation: toInvitationMessage(await invitations.rejectInvitation(registry, callerOf(req.caller), valid.id("invitationId", req.invitationId))),
    })),
    cancelInvitation: rpc.unary("CancelInvitation", async (req) => ({
      invitation: toInvitationMessage(await invitations.cancelInvitation(registry, callerOf(req.caller), valid.id("invitationId", req.invitationId))),
    })),
    removeMember: rpc.unary("RemoveMember", async (req) => {
      if (!req.memberIdOrEmail || req.memberIdOrEmail.length > 320) throw new AuthError("VALIDATION_ERROR", "memberIdOrEmail is required");
      const member = await members.removeMember(registry, callerOf(req.caller), {
        memberIdOrEmail: req.memberIdOrEmail,
        organizationId: valid.optionalId("organizationId", req.organizationId),
      });
      return { member: toMemberMessage(member) };
    }),
    updateMemberRole: rpc.unary("UpdateMemberRole", async (req) => {
      const member = await members.updateMemberRole(registry, callerOf(req.caller), {
        memberId: valid.id("memberId", req.memberId),
        role: valid.role(req.role),
        organizationId: valid.optionalId("organizationId", req.organizationId),
      });
      return { member: toMemberMessage(member) };
    }),
    leaveOrganization: rpc.unary("LeaveOrganization", async (req) => ({
      member: toMemberMessage(await members.leaveOrganization(registry, callerOf(req.caller), valid.id("organizationId", req.organizationId))),
    })),
    checkSlug: rpc.unary("CheckSlug", async (req) => {
      await organizations.checkSlug(registry, valid.slug(req.slug));
      return {};
    }),
    hasPermission: rpc.unary("HasPermission", async (req) => {
      const permissions = Object.fromEntries(Object.entries(req.permissions).map(([resource, { actions }]) => [resource, actions]));
      if (!Object.keys(permissions).length) throw new AuthError("VALIDATION_ERROR", "permissions is required");
      const success = await members.hasPermission(registry, callerOf(req.caller), { organizationId: valid.optionalId("organizationId", req.organizationId), permissions });
      return { success };
    }),
    findOrganizationId: rpc.unary("FindOrganizationId", async (req) => {
      // A slug that cannot exist is simply not found: the caller answers the same for both.
      const slug = foldSlug(req.slug.trim());
      if (!slug || slug.length > 64) return {};
      const found = await registry.store.findOrganizationBySlug(slug);
      return { organizationId: found?.id };
    }),
    getMembership: rpc.unary("GetMembership", async (req) => {
      const member = await members.getMembership(registry, valid.id("userId", req.userId), valid.id("organizationId", req.organizationId));
      return { member: member ? toMemberMessage(member) : undefined };
    }),
    removeUserMemberships: rpc.unary("RemoveUserMemberships", async (req) => {
      await members.removeUserMemberships(registry, valid.id("userId", req.userId));
      return {};
    }),
    createTeam: rpc.unary("CreateTeam", async (req) => ({
      team: toTeamMessage(await teams.createTeam(registry, optionalCaller(req.caller), { name: req.name, organizationId: valid.optionalId("organizationId", req.organizationId) })),
    })),
    getTeam: rpc.unary("GetTeam", async (req) => {
      if (req.name !== undefined && req.name.length > 255) throw new AuthError("VALIDATION_ERROR", "name must be 1 to 255 characters");
      const team = await teams.getTeam(registry, optionalCaller(req.caller), {
        teamId: valid.optionalId("teamId", req.teamId),
        organizationId: valid.optionalId("organizationId", req.organizationId),
        name: req.name,
      });
      return { team: team ? toTeamMessage(team) : undefined };
    }),
    listTeams: rpc.unary("ListTeams", async (req) => ({
      teams: (await teams.listTeams(registry, optionalCaller(req.caller), valid.optionalId("organizationId", req.organizationId))).map(toTeamMessage),
    })),
    updateTeam: rpc.unary("UpdateTeam", async (req) => ({
      team: toTeamMessage(
        await teams.updateTeam(registry, optionalCaller(req.caller), {
          teamId: valid.id("teamId", req.teamId),
          name: req.name,
          organizationId: valid.optionalId("organizationId", req.organizationId),
        }),
      ),
    })),
    removeTeam: rpc.unary("RemoveTeam", async (req) => ({
      team: toTeamMessage(
        await teams.removeTeam(registry, optionalCaller(req.caller), {
          teamId: valid.id("teamId", req.teamId),
          organizationId: valid.optionalId("organizationId", req.organizationId),
        }),
      ),
    })),
    setActiveTeam: rpc.unary("SetActiveTeam", async (req) => {
      const team = await teams.setActiveTeam(registry, callerOf(req.caller), valid.optionalId("teamId", req.teamId));
      return { team: team ? toTeamMessage(team) : undefined };
    }),
    listUserTeams: rpc.unary("ListUserTeams", async (req) => ({
      teams: (
        await teams.listUserTeams(registry, callerOf(req.caller), {
          userId: valid.optionalId("userId", req.userId),
          organizationId: valid.optionalId("organizationId", req.organizationId),
        })
      ).map(toTeamMessage),
    })),
    listTeamMembers: rpc.unary("ListTeamMembers", async (req) => ({
      members: (await teams.listTeamMembers(registry, optionalCaller(req.caller), valid.optionalId("teamId", req.teamId))).map(toTeamMemberMessage),
    })),
    addTeamMember: rpc.unary("AddTeamMember", async (req) => ({
      member: toTeamMemberMessage(
        await teams.addTeamMember(registry, optionalCaller(req.caller), {
          teamId: valid.id("teamId", req.teamId),
          userId: valid.id("userId", req.userId),
          organizationId: valid.optionalId("organizationId", req.organizationId),
        }),
      ),
    })),
    removeTeamMember: rpc.unary("RemoveTeamMember", async (req) => {
      await teams.removeTeamMember(registry, optionalCaller(req.caller), {
        teamId: valid.id("teamId", req.teamId),
        userId: valid.id("userId", req.userId),
        organizationId: valid.optionalId("organizationId", req.organizationId),
      });
      return {};
    }),
    ...roleHandlers(registry, rpc),
    addMember: rpc.unary("AddMember", async (req) => {
      const { member, created } = await members.addMember(registry, {
        organizationId: valid.id("organizationId", req.organizationId),
        userId: valid.id("userId", req.userId),
        role: valid.id("role", req.role),
      });
      return { member: toMemberMessage(member), created };
    }),
    removeUserMembership: rpc.unary("RemoveUserMembership", async (req) => {
      const target = { organizationId: valid.id("organizationId", req.organizationId), userId: valid.id("userId", req.userId) };
      return { removed: await members.removeUserMembership(registry, target) };
    }),
  };
  return {
    definition: OrganizationServiceService,
    implementation: implementation as unknown as ServiceBinding["implementation"],
    name: "auth.organization.v1.OrganizationService",
    access: ORGANIZATION_ACCESS,
  };
}
