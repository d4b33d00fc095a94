/**
 * The SCIM use cases' peers over gRPC (scim/ports.ts): identity owns users (GetUsers, and the admin user
 * RPCs CreateUser, BanUser, UnbanUser, each open to sso for this), organization owns memberships, and the
 * teams (a SCIM group is one), and the verified domains are the DomainService's store in this same service (docs/adr/0070-scim-provisioning.md).
 */
import type { AdminUserServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/admin_user";
import type { IdentityServiceClient } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import type { OrganizationServiceClient } from "@auth-platform/proto/gen/auth/organization/v1/organization";
import { call } from "@auth-platform/runtime/rpc";
import type { DomainStore } from "../domains/domain-claims.js";
import type { ScimPeers } from "./ports.js";

/** The role a provisioned user gets in the organization (the organization's ordinary member role). */
export const PROVISIONED_ROLE = "member";
/** Identity's ban reason for a user deactivated over SCIM (shown to the platform's admins). */
export const DEACTIVATED_REASON = "Deactivated by the organization's SCIM provisioning";

export interface ScimPeerClients {
  identity: IdentityServiceClient;
  adminUsers: AdminUserServiceClient;
  organization: OrganizationServiceClient;
  domains: Pick<DomainStore, "findVerifiedDomain">;
}

export function grpcScimPeers({ identity, adminUsers, organization, domains }: ScimPeerClients): ScimPeers {
  return {
    async findUserByEmail(email) {
      const { users } = await call(identity, identity.getUsers, { ids: [], emails: [email] });
      const user = users.find((u) => u.email.toLowerCase() === email.toLowerCase());
      return user ? { id: user.id } : undefined;
    },
    async createUser({ email, name }) {
      const { user } = await call(adminUsers, adminUsers.createUser, { email, name, password: undefined, role: undefined, extraFields: undefined });
      if (!user) throw new Error("identity answered CreateUser without a user");
      return { id: user.id };
    },
    async addMember(organizationId, userId) {
      await call(organization, organization.addMember, { organizationId, userId, role: PROVISIONED_ROLE });
    },
    async removeMember(organizationId, userId) {
      await call(organization, organization.removeUserMembership, { organizationId, userId });
    },
    async deactivateUser(userId) {
      // BanUser ends every session of the user before it answers; an admin's ban in force stays as it is.
      await call(adminUsers, adminUsers.banUser, { userId, reason: DEACTIVATED_REASON, expiresInSeconds: "0", keepExisting: true });
    },
    async reactivateUser(userId) {
      // Lifts only the deactivation SCIM made, never a ban an admin placed.
      await call(adminUsers, adminUsers.unbanUser, { userId, onlyIfReason: DEACTIVATED_REASON });
    },
    // A group is a team; without a caller the organization service acts for the organization named.
    async createTeam(organizationId, name) {
      const { team } = await call(organization, organization.createTeam, { organizationId, name });
      if (!team) throw new Error("organization answered CreateTeam without a team");
      return { id: team.id };
    },
    async renameTeam(organizationId, teamId, name) {
      await call(organization, organization.updateTeam, { organizationId, teamId, name });
    },
    async removeTeam(organizationId, teamId) {
      await call(organization, organization.removeTeam, { organizationId, teamId });
    },
    async addTeamMember(organizationId, teamId, userId) {
      await call(organization, organization.addTeamMember, { organizationId, teamId, userId });
    },
    async removeTeamMember(organizationId, teamId, userId) {
      await call(organization, organization.removeTeamMember, { organizationId, teamId, userId });
    },
    async roleIn(organizationId, userId) {
      const { member } = await call(organization, organization.getMembership, { userId, organizationId });
      return member?.role;
    },
    async ownsDomainOf(organizationId, email) {
      const at = email.lastIndexOf("@");
      if (at < 0) return false;
      const claim = await domains.findVerifiedDomain(email.slice(at + 1).toLowerCase());
      return claim?.organizationId === organizationId;
    },
  };
}
