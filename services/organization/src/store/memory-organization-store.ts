/** The organization store in process memory: for unit tests of the domain, and the contract's reference backend. */
import { AuthError } from "@auth-platform/proto/errors";
import { newId } from "@auth-platform/runtime/random";
import { rolesOf } from "../domain/roles.js";
import { memoryRoleMethods } from "./memory-role-store.js";
import {
  answerEventType,
  invitationEvent,
  memberEvent,
  organizationEvent,
  teamEvent,
  teamMemberEvent,
  type ActorCheck,
  type CustomRoleRecord,
  type InvitationMailRecord,
  type InvitationRecord,
  type MemberRecord,
  type NewInvitationMail,
  type OrganizationEventDraft,
  type OrganizationEventRecord,
  type OrganizationRecord,
  type OrganizationStore,
  type TeamMemberRecord,
  type TeamRecord,
} from "./organization-store.js";

const byAge = (a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function createMemoryOrganizationStore(): OrganizationStore {
  const organizations = new Map<string, OrganizationRecord>();
  const members = new Map<string, MemberRecord>();
  const invitations = new Map<string, InvitationRecord>();
  const mails = new Map<string, InvitationMailRecord>();
  const teams = new Map<string, TeamRecord>();
  const places = new Map<string, TeamMemberRecord>();
  const roles = new Map<string, CustomRoleRecord>();
  const events = new Map<string, OrganizationEventRecord>();
  /** Queues webhook events with the change (every method writes without awaiting: one "transaction"). */
  const queueEvents = (...drafts: OrganizationEventDraft[]) => {
    const now = new Date();
    for (const { type, organizationId, data } of drafts) {
      const id = newId();
      events.set(id, { id, type, organizationId, payload: JSON.stringify(data), occurredAt: now, attempts: 0, nextAttemptAt: now, leaseUntil: null });
    }
  };
  const eventLeaseFree = (event: OrganizationEventRecord, now: Date) => !event.leaseUntil || event.leaseUntil <= now;
  const teamsOf = (organizationId: string) => [...teams.values()].filter((t) => t.organizationId === organizationId);
  const dropPlaces = (match: (p: TeamMemberRecord) => boolean) => {
    for (const p of [...places.values()]) if (match(p)) places.delete(p.id);
  };
  const dropOrganization = (id: string) => {
    for (const i of [...invitations.values()]) if (i.organizationId === id) invitations.delete(i.id);
    for (const t of teamsOf(id)) teams.delete(t.id);
    dropPlaces((p) => p.organizationId === id);
    for (const r of [...roles.values()]) if (r.organizationId === id) roles.delete(r.id);
    organizations.delete(id);
  };
  const nameTaken = (organizationId: string, name: string, except?: string) => teamsOf(organizationId).some((t) => t.name === name && t.id !== except);
  const copyMail = (m: InvitationMailRecord): InvitationMailRecord => ({ ...m, variables: { ...m.variables } });
  const queueMail = (mail: NewInvitationMail | undefined) => {
    if (mail) mails.set(mail.id, copyMail({ ...mail, attempts: 0, leaseUntil: null }));
  };
  const leaseFree = (mail: InvitationMailRecord, now: Date) => !mail.leaseUntil || mail.leaseUntil <= now;
  const copyOrganization = (o: OrganizationRecord): OrganizationRecord => ({ ...o, metadata: { ...o.metadata } });
  const copy = <T extends object>(record: T): T => ({ ...record });
  const membersOf = (organizationId: string) => [...members.values()].filter((m) => m.organizationId === organizationId);
  const slugTaken = (slug: string, except?: string) => [...organizations.values()].some((o) => o.slug === slug && o.id !== except);
  const addMember = (member: MemberRecord) => {
    if (membersOf(member.organizationId).some((m) => m.userId === member.userId)) throw new AuthError("USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION");
    members.set(member.id, copy(member));
  };
  /** Every method runs to its write without awaiting, so the actor's membership read here is the one the write follows. */
  const checkActor = (organizationId: string, actor: ActorCheck | undefined, subject?: MemberRecord) => {
    if (!actor) return;
    const found = membersOf(organizationId).find((m) => m.userId === actor.userId);
    actor.check(found ? copy(found) : null, subject && copy(subject));
  };
  /** Refuses to take `keepRole` from the organization's last member holding it. */
  const keepOne = (member: MemberRecord, keepRole: string | undefined, nextRole?: string) => {
    if (!keepRole || !rolesOf(member.role).includes(keepRole) || (nextRole !== undefined && rolesOf(nextRole).includes(keepRole))) return;
    const holders = membersOf(member.organizationId).filter((m) => rolesOf(m.role).includes(keepRole));
    if (holders.length <= 1) throw new AuthError("YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER");
  };
  return {
    ...memoryRoleMethods({ roles, members, invitations, checkActor }),
    async createOrganization(organization, creator, limit = 0) {
      if (limit > 0 && [...members.values()].filter((m) => m.userId === creator.userId).length >= limit)
        throw new AuthError("YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS");
      if (slugTaken(organization.slug)) throw new AuthError("ORGANIZATION_ALREADY_EXISTS");
      organizations.set(organization.id, copyOrganization(organization));
      members.set(creator.id, copy(creator));
      queueEvents(organizationEvent("organization.created", organization), memberEvent("member.added", creator));
    },
    async findOrganization(id) {
      const found = organizations.get(id);
      return found ? copyOrganization(found) : null;
    },
    async findOrganizations(ids) {
      return [...new Set(ids)].flatMap((id) => {
        const found = organizations.get(id);
        return found ? [copyOrganization(found)] : [];
      });
    },
    async findOrganizationBySlug(slug) {
      const found = [...organizations.values()].find((o) => o.slug === slug);
      return found ? copyOrganization(found) : null;
    },
    async updateOrganization(id, patch, actor) {
      const found = organizations.get(id);
      if (!found) return null;
      checkActor(id, actor);
      if (patch.slug !== undefined && slugTaken(patch.slug, id)) throw new AuthError("ORGANIZATION_ALREADY_EXISTS");
      const changes = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
      Object.assign(found, changes);
      if (Object.keys(changes).length) queueEvents(organizationEvent("organization.updated", found));
      return copyOrganization(found);
    },
    async deleteOrganization(id, actor) {
      const found = organizations.get(id);
      if (!found) return false;
      checkActor(id, actor);
      const gone = membersOf(id);
      queueEvents(...gone.map((m) => memberEvent("member.removed", m)), organizationEvent("organization.deleted", found));
      for (const m of gone) members.delete(m.id);
      dropOrganization(id);
      return true;
    },
    async listOrganizationsOfUser(userId) {
      return [...members.values()]
        .filter((m) => m.userId === userId)
        .sort(byAge)
        .flatMap((m) => {
          const o = organizations.get(m.organizationId);
          return o ? [copyOrganization(o)] : [];
        });
    },
    async countMemberships(userId) {
      return [...members.values()].filter((m) => m.userId === userId).length;
    },
    async findMember(organizationId, userId) {
      const found = membersOf(organizationId).find((m) => m.userId === userId);
      return found ? copy(found) : null;
    },
    async findMemberById(id) {
      const found = members.get(id);
      return found ? copy(found) : null;
    },
    async findMembersByUserIds(organizationId, userIds) {
      return membersOf(organizationId)
        .filter((m) => userIds.includes(m.userId))
        .map(copy);
    },
    async listMembers(organizationId, { limit, offset, sortBy, descending, filter }) {
      const matches = (m: MemberRecord) => {
        if (!filter) return true;
        const hit = filter.values.includes(m[filter.field]);
        return filter.operator === "eq" || filter.operator === "in" ? hit : !hit;
      };
      const order = (a: MemberRecord, b: MemberRecord) => (sortBy === "role" ? (a.role < b.role ? -1 : a.role > b.role ? 1 : 0) : 0) || byAge(a, b);
      const all = membersOf(organizationId)
        .filter(matches)
        .sort((a, b) => (descending ? -order(a, b) : order(a, b)));
      return { members: all.slice(offset, offset + limit).map(copy), total: all.length };
    },
    async addMember(member) {
      addMember(member);
      queueEvents(memberEvent("member.added", member));
    },
    async updateMemberRole(id, role, { keepRole, actor } = {}) {
      const found = members.get(id);
      if (!found) return null;
      checkActor(found.organizationId, actor, found);
      keepOne(found, keepRole, role);
      const previousRole = found.role;
      found.role = role;
      if (role !== previousRole) queueEvents(memberEvent("member.updated", found, previousRole));
      return copy(found);
    },
    async deleteMember(id, { keepRole, actor } = {}) {
      const found = members.get(id);
      if (!found) return false;
      checkActor(found.organizationId, actor, found);
      keepOne(found, keepRole);
      dropPlaces((p) => p.organizationId === found.organizationId && p.userId === found.userId);
      queueEvents(memberEvent("member.removed", found));
      return members.delete(id);
    },
    async removeUser(userId, ownerRole, successorRole) {
      const mine = [...members.values()].filter((m) => m.userId === userId);
      for (const m of mine) {
        members.delete(m.id);
        dropPlaces((p) => p.organizationId === m.organizationId && p.userId === userId);
        queueEvents(memberEvent("member.removed", m));
        const rest = membersOf(m.organizationId).sort(byAge);
        const organization = organizations.get(m.organizationId);
        if (!rest.length) {
          if (organization) queueEvents(organizationEvent("organization.deleted", organization));
          dropOrganization(m.organizationId);
        } else if (rolesOf(m.role).includes(ownerRole) && !rest.some((r) => rolesOf(r.role).includes(ownerRole))) {
          const successor = rest.find((r) => rolesOf(r.role).includes(successorRole)) ?? rest[0]!;
          const previousRole = successor.role;
          successor.role = ownerRole;
          queueEvents(memberEvent("member.updated", successor, previousRole));
        }
      }
      for (const i of invitations.values()) {
        if (i.inviterId !== userId || i.status !== "pending") continue;
        i.status = "canceled";
        queueEvents(invitationEvent("invitation.canceled", i));
      }
      return mine.map((m) => m.organizationId);
    },
    async createInvitation(invitation, actor, limit = Infinity, mail) {
      checkActor(invitation.organizationId, actor);
      const pending = [...invitations.values()].filter((i) => i.organizationId === invitation.organizationId && i.status === "pending" && i.expiresAt > invitation.createdAt);
      if (pending.some((i) => i.email === invitation.email)) throw new AuthError("USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION");
      if (pending.length >= limit) throw new AuthError("INVITATION_LIMIT_REACHED");
      invitations.set(invitation.id, copy(invitation));
      queueMail(mail);
      queueEvents(invitationEvent("invitation.created", invitation));
    },
    async findInvitation(id) {
      const found = invitations.get(id);
      return found ? copy(found) : null;
    },
    async findPendingInvitation(organizationId, email) {
      const found = [...invitations.values()]
        .filter((i) => i.organizationId === organizationId && i.email === email && i.status === "pending")
        .sort(byAge)
        .at(-1);
      return found ? copy(found) : null;
    },
    async listInvitations(organizationId, pendingOnly) {
      return [...invitations.values()]
        .filter((i) => i.organizationId === organizationId && (!pendingOnly || i.status === "pending"))
        .sort(byAge)
        .reverse()
        .map(copy);
    },
    async listPendingInvitationsTo(email) {
      return [...invitations.values()]
        .filter((i) => i.email === email && i.status === "pending")
        .sort(byAge)
        .reverse()
        .map(copy);
    },
    async answerInvitation(id, status, { expiresAt, inviterId, actor, mail } = {}) {
      const found = invitations.get(id);
      if (found?.status !== "pending") return false;
      checkActor(found.organizationId, actor);
      found.status = status;
      if (expiresAt) found.expiresAt = expiresAt;
      if (inviterId) found.inviterId = inviterId;
      queueMail(mail);
      const type = answerEventType(status);
      if (type !== "invitation.accepted") queueEvents(invitationEvent(type, found));
      return true;
    },
    async acceptInvitation(id, member, inviter) {
      const found = invitations.get(id);
      if (found?.status !== "pending") return false;
      checkActor(found.organizationId, inviter);
      addMember(member);
      found.status = "accepted";
      queueEvents(invitationEvent("invitation.accepted", found, member), memberEvent("member.added", member));
      return true;
    },
    async reopenInvitation(id, memberId) {
      const member = members.get(memberId);
      if (member && members.delete(memberId)) queueEvents(memberEvent("member.removed", member));
      const found = invitations.get(id);
      if (found?.status === "accepted") found.status = "pending";
    },
    async createTeam(team, limit, actor) {
      checkActor(team.organizationId, actor);
      if (nameTaken(team.organizationId, team.name)) throw new AuthError("TEAM_ALREADY_EXISTS");
      if (limit > 0 && teamsOf(team.organizationId).length >= limit) throw new AuthError("YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_TEAMS");
      teams.set(team.id, copy(team));
      queueEvents(teamEvent("team.created", team));
    },
    async findTeam(id) {
      const found = teams.get(id);
      return found ? copy(found) : null;
    },
    async findTeamByName(organizationId, name) {
      const found = teamsOf(organizationId).find((t) => t.name === name);
      return found ? copy(found) : null;
    },
    async listTeams(organizationId) {
      return teamsOf(organizationId).sort(byAge).map(copy);
    },
    async countTeams(organizationId) {
      return teamsOf(organizationId).length;
    },
    async renameTeam(id, name, updatedAt, actor) {
      const found = teams.get(id);
      if (!found) return null;
      checkActor(found.organizationId, actor);
      if (nameTaken(found.organizationId, name, id)) throw new AuthError("TEAM_ALREADY_EXISTS");
      const renamed = found.name !== name;
      Object.assign(found, { name, updatedAt });
      if (renamed) queueEvents(teamEvent("team.updated", found));
      return copy(found);
    },
    async deleteTeam(id, actor) {
      const found = teams.get(id);
      if (!found) return false;
      checkActor(found.organizationId, actor);
      dropPlaces((p) => p.teamId === id);
      queueEvents(teamEvent("team.deleted", found));
      return teams.delete(id);
    },
    async listTeamsOfUser(userId, organizationId) {
      const mine = new Set([...places.values()].filter((p) => p.userId === userId).map((p) => p.teamId));
      return [...teams.values()]
        .filter((t) => mine.has(t.id) && (!organizationId || t.organizationId === organizationId))
        .sort(byAge)
        .map(copy);
    },
    async findTeamMember(teamId, userId) {
      const found = [...places.values()].find((p) => p.teamId === teamId && p.userId === userId);
      return found ? copy(found) : null;
    },
    async listTeamMembers(teamId) {
      return [...places.values()]
        .filter((p) => p.teamId === teamId)
        .sort(byAge)
        .map(copy);
    },
    async listTeamPlacesOfUser(organizationId, userId) {
      return [...places.values()]
        .filter((p) => p.organizationId === organizationId && p.userId === userId)
        .sort(byAge)
        .map(copy);
    },
    async addTeamMember(place, limit, actor) {
      const team = teams.get(place.teamId);
      if (!team || team.organizationId !== place.organizationId) throw new AuthError("TEAM_NOT_FOUND");
      checkActor(team.organizationId, actor);
      if (!membersOf(team.organizationId).some((m) => m.userId === place.userId)) throw new AuthError("USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION");
      const held = [...places.values()].filter((p) => p.teamId === place.teamId);
      const existing = held.find((p) => p.userId === place.userId);
      if (existing) return copy(existing);
      if (limit > 0 && held.length >= limit) throw new AuthError("TEAM_MEMBER_LIMIT_REACHED");
      places.set(place.id, copy(place));
      queueEvents(teamMemberEvent("team_member.added", place));
      return copy(place);
    },
    async removeTeamMember(teamId, userId, actor) {
      const found = [...places.values()].find((p) => p.teamId === teamId && p.userId === userId);
      if (!found) return false;
      checkActor(found.organizationId, actor);
      queueEvents(teamMemberEvent("team_member.removed", found));
      return places.delete(found.id);
    },
    async findDueOrganizationEvents(now, limit) {
      return [...events.values()]
        .filter((e) => e.nextAttemptAt <= now && eventLeaseFree(e, now))
        .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .slice(0, limit)
        .map(copy);
    },
    async claimOrganizationEvent(id, seenAttempts, now, leaseUntil) {
      const found = events.get(id);
      if (!found || found.attempts !== seenAttempts || !eventLeaseFree(found, now)) return false;
      found.attempts = seenAttempts + 1;
      found.leaseUntil = leaseUntil;
      return true;
    },
    async retryOrganizationEvent(id, attempts, nextAttemptAt) {
      const found = events.get(id);
      if (!found || found.attempts !== attempts) return;
      found.nextAttemptAt = nextAttemptAt;
      found.leaseUntil = null;
    },
    async deleteOrganizationEvent(id) {
      events.delete(id);
    },
    async findDueInvitationMails(now, limit) {
      return [...mails.values()]
        .filter((m) => m.nextAttemptAt <= now && leaseFree(m, now))
        .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .slice(0, limit)
        .map(copyMail);
    },
    async claimInvitationMail(id, seenAttempts, now, leaseUntil) {
      const found = mails.get(id);
      if (!found || found.attempts !== seenAttempts || !leaseFree(found, now)) return false;
      found.attempts = seenAttempts + 1;
      found.leaseUntil = leaseUntil;
      return true;
    },
    async retryInvitationMail(id, attempts, nextAttemptAt) {
      const found = mails.get(id);
      if (!found || found.attempts !== attempts) return;
      found.nextAttemptAt = nextAttemptAt;
      found.leaseUntil = null;
    },
    async deleteInvitationMail(id) {
      mails.delete(id);
    },
    async close() {
      organizations.clear();
      members.clear();
      invitations.clear();
      mails.clear();
      teams.clear();
      places.clear();
      events.clear();
    },
  };
}
