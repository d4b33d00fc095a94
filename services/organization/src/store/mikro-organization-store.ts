/** The organization store on MikroORM (SQLite or PostgreSQL). */
import { languageOr } from "@auth-platform/runtime/language";
import { newId } from "@auth-platform/runtime/random";
import { AuthError } from "@auth-platform/proto/errors";
import type { EntityManager } from "@mikro-orm/sql";
import { isUniqueViolation, openStore, type Store } from "@auth-platform/runtime/store";
import { rolesOf } from "../domain/roles.js";
import {
  InvitationEntity,
  InvitationMailEntity,
  type InvitationMailRow,
  type InvitationRow,
  MemberEntity,
  type MemberRow,
  OrganizationEntity,
  OrganizationEventEntity,
  type OrganizationEventRow,
  OrganizationRoleEntity,
  type OrganizationRow,
  TeamEntity,
  TeamMemberEntity,
  type TeamMemberRow,
  type TeamRow,
} from "./entities.js";
import { mikroRoleMethods } from "./mikro-role-store.js";
import { organizationMigrations } from "./migrations.js";
import {
  answerEventType,
  invitationEvent,
  memberEvent,
  organizationEvent,
  teamEvent,
  teamMemberEvent,
  type ActorCheck,
  type InvitationMailRecord,
  type InvitationRecord,
  type InvitationStatus,
  type MemberRecord,
  type NewInvitationMail,
  type OrganizationEventDraft,
  type OrganizationEventRecord,
  type OrganizationEventType,
  type OrganizationRecord,
  type OrganizationStore,
  type TeamMemberRecord,
  type TeamRecord,
} from "./organization-store.js";

function toOrganization(row: OrganizationRow): OrganizationRecord {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    logo: row.logo ?? null,
    metadata: row.metadata ? (JSON.parse(row.metadata) as Record<string, string>) : {},
    createdAt: row.createdAt,
  };
}

const toMember = (row: MemberRow): MemberRecord => ({
  id: row.id,
  organizationId: row.organizationId,
  userId: row.userId,
  role: row.role,
  createdAt: row.createdAt,
});

const toInvitation = (row: InvitationRow): InvitationRecord => ({
  id: row.id,
  organizationId: row.organizationId,
  email: row.email,
  role: row.role,
  status: row.status as InvitationStatus,
  inviterId: row.inviterId,
  expiresAt: row.expiresAt,
  createdAt: row.createdAt,
});

const toTeam = (row: TeamRow): TeamRecord => ({ id: row.id, organizationId: row.organizationId, name: row.name, createdAt: row.createdAt, updatedAt: row.updatedAt });

const toTeamMember = (row: TeamMemberRow): TeamMemberRecord => ({
  id: row.id,
  teamId: row.teamId,
  organizationId: row.organizationId,
  userId: row.userId,
  createdAt: row.createdAt,
});

const oldest = { createdAt: "asc", id: "asc" } as const;

/** Deletes an organization's rows (its members are the caller's), in the caller's transaction. */
async function dropOrganization(em: EntityManager, id: string): Promise<boolean> {
  await em.nativeDelete(InvitationEntity, { organizationId: id });
  await em.nativeDelete(TeamMemberEntity, { organizationId: id });
  await em.nativeDelete(TeamEntity, { organizationId: id });
  await em.nativeDelete(OrganizationRoleEntity, { organizationId: id });
  return (await em.nativeDelete(OrganizationEntity, { id })) > 0;
}

const toInvitationMail = (row: InvitationMailRow): InvitationMailRecord => ({
  id: row.id,
  invitationId: row.invitationId,
  recipient: row.recipient,
  variables: JSON.parse(row.variables) as Record<string, string>,
  idempotencyKey: row.idempotencyKey,
  // A mail queued before the language was kept, or in one no longer spoken: English.
  language: row.language ? languageOr(row.language) : null,
  attempts: row.attempts,
  nextAttemptAt: row.nextAttemptAt,
  leaseUntil: row.leaseUntil ?? null,
  createdAt: row.createdAt,
});

/** Queues an invitation mail in the transaction `em` belongs to. */
async function queueMail(em: EntityManager, mail: NewInvitationMail | undefined): Promise<void> {
  if (mail) await em.insert(InvitationMailEntity, { ...mail, variables: JSON.stringify(mail.variables), attempts: 0, leaseUntil: null });
}

/** Queues webhook events in the transaction `em` belongs to, due at once (the writing request wakes the worker). */
async function queueEvents(em: EntityManager, ...drafts: OrganizationEventDraft[]): Promise<void> {
  const now = new Date();
  for (const draft of drafts) {
    await em.insert(OrganizationEventEntity, {
      id: newId(),
      type: draft.type,
      organizationId: draft.organizationId,
      payload: JSON.stringify(draft.data),
      occurredAt: now,
      attempts: 0,
      nextAttemptAt: now,
      leaseUntil: null,
    });
  }
}

const toOrganizationEvent = (row: OrganizationEventRow): OrganizationEventRecord => ({
  id: row.id,
  type: row.type as OrganizationEventType,
  organizationId: row.organizationId,
  payload: row.payload,
  occurredAt: row.occurredAt,
  attempts: row.attempts,
  nextAttemptAt: row.nextAttemptAt,
  leaseUntil: row.leaseUntil ?? null,
});

const leaseFree = (now: Date) => ({ $or: [{ leaseUntil: null }, { leaseUntil: { $lte: now } }] });

const metadataText = (metadata: Record<string, string>) => (Object.keys(metadata).length ? JSON.stringify(metadata) : null);

/** Runs a write; a unique violation becomes the catalogue error given. */
async function unique<T>(code: "ORGANIZATION_ALREADY_EXISTS" | "USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION" | "TEAM_ALREADY_EXISTS", write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw new AuthError(code, undefined, { cause: error });
    throw error;
  }
}

/**
 * Runs a transaction that decides on rows it read (a count, a check) under a lock on `key`, so two
 * concurrent ones cannot both pass the check: a transaction-scoped advisory lock on PostgreSQL; on SQLite
 * (one writer, one process) a queue in this process.
 */
function lockedTransactions(store: Store) {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(key: string, work: (em: EntityManager) => Promise<T>): Promise<T> => {
    if (store.dialect === "postgresql") {
      return store.em().transactional(async (em) => {
        await em.execute("select pg_advisory_xact_lock(hashtext(?))", [`organization:${key}`]);
        return work(em);
      });
    }
    const run = tail.then(() => store.em().transactional(work));
    tail = run.catch(() => undefined);
    return run;
  };
}

/** Hands the actor's membership as this transaction reads it to the actor's check (run under the organization's lock). */
async function checkActor(em: EntityManager, organizationId: string, actor: ActorCheck | undefined, subject?: MemberRow): Promise<void> {
  if (!actor) return;
  const row = await em.findOne(MemberEntity, { organizationId, userId: actor.userId });
  actor.check(row ? toMember(row) : null, subject && toMember(subject));
}

/** Refuses to take `keepRole` from the organization's last member holding it (run under the organization's lock). */
async function keepOne(em: EntityManager, member: MemberRow, keepRole: string | undefined, nextRole?: string): Promise<void> {
  if (!keepRole || !rolesOf(member.role).includes(keepRole) || (nextRole !== undefined && rolesOf(nextRole).includes(keepRole))) return;
  if ((await holders(em, member.organizationId, keepRole)).length <= 1) throw new AuthError("YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER");
}

/** The organization's members whose role values include this role, oldest first. */
async function holders(em: EntityManager, organizationId: string, role: string): Promise<MemberRow[]> {
  const rows = await em.find(MemberEntity, { organizationId, role: { $like: `%${role}%` } }, { orderBy: { createdAt: "asc", id: "asc" } });
  return rows.filter((row) => rolesOf(row.role).includes(role));
}

/** The organization service's tables and migrations, for openStore (the service's store, and the import of better-auth rows). */
export const organizationStoreOptions = (url: string) => ({
  url,
  entities: [OrganizationEntity, MemberEntity, InvitationEntity, InvitationMailEntity, TeamEntity, TeamMemberEntity, OrganizationRoleEntity, OrganizationEventEntity],
  migrations: organizationMigrations,
});

export async function openOrganizationStore(url: string): Promise<OrganizationStore> {
  const store = await openStore(organizationStoreOptions(url));
  const newest = { createdAt: "desc", id: "desc" } as const;
  const locked = lockedTransactions(store);
  return {
    ...mikroRoleMethods(() => store.em(), locked, checkActor),
    async createOrganization(organization, creator, limit = 0) {
      await unique("ORGANIZATION_ALREADY_EXISTS", () =>
        locked(`user:${creator.userId}`, async (em) => {
          if (limit > 0 && (await em.count(MemberEntity, { userId: creator.userId })) >= limit) throw new AuthError("YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS");
          em.create(OrganizationEntity, { ...organization, metadata: metadataText(organization.metadata) });
          em.create(MemberEntity, creator);
          await queueEvents(em, organizationEvent("organization.created", organization), memberEvent("member.added", creator));
        }),
      );
    },
    async findOrganization(id) {
      const row = await store.em().findOne(OrganizationEntity, { id });
      return row ? toOrganization(row) : null;
    },
    async findOrganizations(ids) {
      if (!ids.length) return [];
      return (await store.em().find(OrganizationEntity, { id: { $in: [...new Set(ids)] } })).map(toOrganization);
    },
    async findOrganizationBySlug(slug) {
      const row = await store.em().findOne(OrganizationEntity, { slug });
      return row ? toOrganization(row) : null;
    },
    async updateOrganization(id, patch, actor) {
      const { metadata, ...fields } = patch;
      const changes = {
        ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)),
        ...(metadata !== undefined ? { metadata: metadataText(metadata) } : {}),
      };
      return unique("ORGANIZATION_ALREADY_EXISTS", () =>
        locked(id, async (em) => {
          const row = await em.findOne(OrganizationEntity, { id });
          if (!row) return null;
          await checkActor(em, id, actor);
          const updated = toOrganization({ ...row, ...changes });
          if (Object.keys(changes).length) {
            await em.nativeUpdate(OrganizationEntity, { id }, changes);
            await queueEvents(em, organizationEvent("organization.updated", updated));
          }
          return updated;
        }),
      );
    },
    async deleteOrganization(id, actor) {
      return locked(id, async (em) => {
        const row = await em.findOne(OrganizationEntity, { id });
        if (!row) return false;
        await checkActor(em, id, actor);
        // Each member's removal too: a receiver keeping memberships needs no rule for organization.deleted.
        const gone = await em.find(MemberEntity, { organizationId: id });
        await em.nativeDelete(MemberEntity, { organizationId: id });
        await queueEvents(em, ...gone.map((m) => memberEvent("member.removed", toMember(m))), organizationEvent("organization.deleted", row));
        return dropOrganization(em, id);
      });
    },
    async listOrganizationsOfUser(userId) {
      const em = store.em();
      const memberships = await em.find(MemberEntity, { userId }, { orderBy: { createdAt: "asc", id: "asc" } });
      if (!memberships.length) return [];
      const rows = await em.find(OrganizationEntity, { id: { $in: memberships.map((m) => m.organizationId) } });
      const byId = new Map(rows.map((row) => [row.id, toOrganization(row)]));
      return memberships.flatMap((m) => byId.get(m.organizationId) ?? []);
    },
    countMemberships: (userId) => store.em().count(MemberEntity, { userId }),
    async findMember(organizationId, userId) {
      const row = await store.em().findOne(MemberEntity, { organizationId, userId });
      return row ? toMember(row) : null;
    },
    async findMemberById(id) {
      const row = await store.em().findOne(MemberEntity, { id });
      return row ? toMember(row) : null;
    },
    async findMembersByUserIds(organizationId, userIds) {
      if (!userIds.length) return [];
      return (await store.em().find(MemberEntity, { organizationId, userId: { $in: userIds } })).map(toMember);
    },
    async listMembers(organizationId, { limit, offset, sortBy, descending, filter }) {
      const em = store.em();
      const operators = { eq: "$eq", ne: "$ne", in: "$in", not_in: "$nin" } as const;
      const where = {
        organizationId,
        ...(filter ? { [filter.field]: { [operators[filter.operator]]: filter.operator.endsWith("in") ? filter.values : filter.values[0] } } : {}),
      };
      const direction: "asc" | "desc" = descending ? "desc" : "asc";
      const orderBy = sortBy === "role" ? { role: direction, createdAt: direction, id: direction } : { createdAt: direction, id: direction };
      const [rows, total] = await Promise.all([em.find(MemberEntity, where, { orderBy, limit, offset }), em.count(MemberEntity, where)]);
      return { members: rows.map(toMember), total };
    },
    async addMember(member) {
      await unique("USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION", () =>
        store.em().transactional(async (em) => {
          await em.insert(MemberEntity, member);
          await queueEvents(em, memberEvent("member.added", member));
        }),
      );
    },
    async updateMemberRole(id, role, { keepRole, actor } = {}) {
      const member = await store.em().findOne(MemberEntity, { id });
      if (!member) return null;
      return locked(member.organizationId, async (em) => {
        const row = await em.findOne(MemberEntity, { id });
        if (!row) return null;
        await checkActor(em, row.organizationId, actor, row);
        await keepOne(em, row, keepRole, role);
        await em.nativeUpdate(MemberEntity, { id }, { role });
        const updated = toMember({ ...row, role });
        if (role !== row.role) await queueEvents(em, memberEvent("member.updated", updated, row.role));
        return updated;
      });
    },
    async deleteMember(id, { keepRole, actor } = {}) {
      const member = await store.em().findOne(MemberEntity, { id });
      if (!member) return false;
      return locked(member.organizationId, async (em) => {
        const row = await em.findOne(MemberEntity, { id });
        if (!row) return false;
        await checkActor(em, row.organizationId, actor, row);
        await keepOne(em, row, keepRole);
        await em.nativeDelete(TeamMemberEntity, { organizationId: row.organizationId, userId: row.userId });
        if ((await em.nativeDelete(MemberEntity, { id })) === 0) return false;
        await queueEvents(em, memberEvent("member.removed", toMember(row)));
        return true;
      });
    },
    async removeUser(userId, ownerRole, successorRole) {
      const memberships = await store.em().find(MemberEntity, { userId }, { orderBy: { organizationId: "asc" } });
      // One organization at a time, each under its lock: the succession decision reads the members left.
      for (const membership of memberships) {
        await locked(membership.organizationId, async (em) => {
          const row = await em.findOne(MemberEntity, { id: membership.id });
          if (!row) return;
          await em.nativeDelete(MemberEntity, { id: row.id });
          await em.nativeDelete(TeamMemberEntity, { organizationId: row.organizationId, userId: row.userId });
          await queueEvents(em, memberEvent("member.removed", toMember(row)));
          const rest = await em.find(MemberEntity, { organizationId: row.organizationId }, { orderBy: { createdAt: "asc", id: "asc" } });
          if (!rest.length) {
            const organization = await em.findOne(OrganizationEntity, { id: row.organizationId });
            if (organization) await queueEvents(em, organizationEvent("organization.deleted", organization));
            await dropOrganization(em, row.organizationId);
          } else if (rolesOf(row.role).includes(ownerRole) && !rest.some((r) => rolesOf(r.role).includes(ownerRole))) {
            const successor = rest.find((r) => rolesOf(r.role).includes(successorRole)) ?? rest[0]!;
            await em.nativeUpdate(MemberEntity, { id: successor.id }, { role: ownerRole });
            await queueEvents(em, memberEvent("member.updated", toMember({ ...successor, role: ownerRole }), successor.role));
          }
        });
      }
      await store.em().transactional(async (em) => {
        const pending = await em.find(InvitationEntity, { inviterId: userId, status: "pending" });
        for (const row of pending) {
          if ((await em.nativeUpdate(InvitationEntity, { id: row.id, status: "pending" }, { status: "canceled" })) === 0) continue;
          await queueEvents(em, invitationEvent("invitation.canceled", toInvitation({ ...row, status: "canceled" })));
        }
      });
      return memberships.map((row) => row.organizationId);
    },
    async createInvitation(invitation, actor, limit, mail) {
      await locked(invitation.organizationId, async (em) => {
        await checkActor(em, invitation.organizationId, actor);
        const valid = { organizationId: invitation.organizationId, status: "pending", expiresAt: { $gt: invitation.createdAt } } as const;
        if (await em.count(InvitationEntity, { ...valid, email: invitation.email })) throw new AuthError("USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION");
        if (limit !== undefined && (await em.count(InvitationEntity, valid)) >= limit) throw new AuthError("INVITATION_LIMIT_REACHED");
        await em.insert(InvitationEntity, invitation);
        await queueMail(em, mail);
        await queueEvents(em, invitationEvent("invitation.created", invitation));
      });
    },
    async findInvitation(id) {
      const row = await store.em().findOne(InvitationEntity, { id });
      return row ? toInvitation(row) : null;
    },
    async findPendingInvitation(organizationId, email) {
      const row = await store.em().findOne(InvitationEntity, { organizationId, email, status: "pending" }, { orderBy: newest });
      return row ? toInvitation(row) : null;
    },
    async listInvitations(organizationId, pendingOnly) {
      return (await store.em().find(InvitationEntity, { organizationId, ...(pendingOnly ? { status: "pending" } : {}) }, { orderBy: newest })).map(toInvitation);
    },
    async listPendingInvitationsTo(email) {
      return (await store.em().find(InvitationEntity, { email, status: "pending" }, { orderBy: newest })).map(toInvitation);
    },
    async answerInvitation(id, status, { expiresAt, inviterId, actor, mail } = {}) {
      const answer = async (em: EntityManager) => {
        const row = await em.findOne(InvitationEntity, { id, status: "pending" });
        const changes = { status, ...(expiresAt ? { expiresAt } : {}), ...(inviterId ? { inviterId } : {}) };
        if (!row || (await em.nativeUpdate(InvitationEntity, { id, status: "pending" }, changes)) === 0) return false;
        await queueMail(em, mail);
        const type = answerEventType(status);
        if (type !== "invitation.accepted") await queueEvents(em, invitationEvent(type, toInvitation({ ...row, ...changes })));
        return true;
      };
      if (!actor && !mail) return store.em().transactional(answer);
      const invitation = await store.em().findOne(InvitationEntity, { id, status: "pending" });
      if (!invitation) return false;
      return locked(invitation.organizationId, async (em) => {
        await checkActor(em, invitation.organizationId, actor);
        return answer(em);
      });
    },
    async acceptInvitation(id, member, inviter) {
      // The guarded update decides between concurrent accepts: the loser's update changes no row (on
      // PostgreSQL it waits for the winner's commit, then finds the status changed). Under the
      // organization's lock, where the inviter's role changes and removal happen too.
      return unique("USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION", () =>
        locked(member.organizationId, async (em) => {
          await checkActor(em, member.organizationId, inviter);
          const row = await em.findOne(InvitationEntity, { id, status: "pending" });
          if (!row || (await em.nativeUpdate(InvitationEntity, { id, status: "pending" }, { status: "accepted" })) === 0) return false;
          await em.insert(MemberEntity, member);
          await queueEvents(em, invitationEvent("invitation.accepted", toInvitation({ ...row, status: "accepted" }), member), memberEvent("member.added", member));
          return true;
        }),
      );
    },
    async reopenInvitation(id, memberId) {
      await store.em().transactional(async (em) => {
        const member = await em.findOne(MemberEntity, { id: memberId });
        // The accept's member.added may be published already: its removal is published too.
        if (member && (await em.nativeDelete(MemberEntity, { id: memberId }))) await queueEvents(em, memberEvent("member.removed", toMember(member)));
        await em.nativeUpdate(InvitationEntity, { id, status: "accepted" }, { status: "pending" });
      });
    },
    async createTeam(team, limit, actor) {
      await unique("TEAM_ALREADY_EXISTS", () =>
        locked(team.organizationId, async (em) => {
          await checkActor(em, team.organizationId, actor);
          if (await em.count(TeamEntity, { organizationId: team.organizationId, name: team.name })) throw new AuthError("TEAM_ALREADY_EXISTS");
          if (limit > 0 && (await em.count(TeamEntity, { organizationId: team.organizationId })) >= limit) throw new AuthError("YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_TEAMS");
          await em.insert(TeamEntity, team);
          await queueEvents(em, teamEvent("team.created", team));
        }),
      );
    },
    async findTeam(id) {
      const row = await store.em().findOne(TeamEntity, { id });
      return row ? toTeam(row) : null;
    },
    async findTeamByName(organizationId, name) {
      const row = await store.em().findOne(TeamEntity, { organizationId, name });
      return row ? toTeam(row) : null;
    },
    async listTeams(organizationId) {
      return (await store.em().find(TeamEntity, { organizationId }, { orderBy: oldest })).map(toTeam);
    },
    countTeams: (organizationId) => store.em().count(TeamEntity, { organizationId }),
    async renameTeam(id, name, updatedAt, actor) {
      const team = await store.em().findOne(TeamEntity, { id });
      if (!team) return null;
      return unique("TEAM_ALREADY_EXISTS", () =>
        locked(team.organizationId, async (em) => {
          const row = await em.findOne(TeamEntity, { id });
          if (!row) return null;
          await checkActor(em, row.organizationId, actor);
          if (await em.count(TeamEntity, { organizationId: row.organizationId, name, id: { $ne: id } })) throw new AuthError("TEAM_ALREADY_EXISTS");
          await em.nativeUpdate(TeamEntity, { id }, { name, updatedAt });
          const renamed = toTeam({ ...row, name, updatedAt });
          if (row.name !== name) await queueEvents(em, teamEvent("team.updated", renamed));
          return renamed;
        }),
      );
    },
    async deleteTeam(id, actor) {
      const team = await store.em().findOne(TeamEntity, { id });
      if (!team) return false;
      return locked(team.organizationId, async (em) => {
        await checkActor(em, team.organizationId, actor);
        await em.nativeDelete(TeamMemberEntity, { teamId: id });
        if ((await em.nativeDelete(TeamEntity, { id })) === 0) return false;
        await queueEvents(em, teamEvent("team.deleted", toTeam(team)));
        return true;
      });
    },
    async listTeamsOfUser(userId, organizationId) {
      const em = store.em();
      const mine = await em.find(TeamMemberEntity, { userId, ...(organizationId ? { organizationId } : {}) });
      if (!mine.length) return [];
      return (await em.find(TeamEntity, { id: { $in: mine.map((p) => p.teamId) } }, { orderBy: oldest })).map(toTeam);
    },
    async findTeamMember(teamId, userId) {
      const row = await store.em().findOne(TeamMemberEntity, { teamId, userId });
      return row ? toTeamMember(row) : null;
    },
    async listTeamMembers(teamId) {
      return (await store.em().find(TeamMemberEntity, { teamId }, { orderBy: oldest })).map(toTeamMember);
    },
    async listTeamPlacesOfUser(organizationId, userId) {
      return (await store.em().find(TeamMemberEntity, { organizationId, userId }, { orderBy: oldest })).map(toTeamMember);
    },
    async addTeamMember(place, limit, actor) {
      // Under the organization's lock, where members are removed: a place is never given to a member whose
      // removal (which removes their places) committed first.
      return locked(place.organizationId, async (em) => {
        const team = await em.findOne(TeamEntity, { id: place.teamId });
        if (!team || team.organizationId !== place.organizationId) throw new AuthError("TEAM_NOT_FOUND");
        await checkActor(em, team.organizationId, actor);
        if (!(await em.count(MemberEntity, { organizationId: team.organizationId, userId: place.userId }))) throw new AuthError("USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION");
        const existing = await em.findOne(TeamMemberEntity, { teamId: place.teamId, userId: place.userId });
        if (existing) return toTeamMember(existing);
        if (limit > 0 && (await em.count(TeamMemberEntity, { teamId: place.teamId })) >= limit) throw new AuthError("TEAM_MEMBER_LIMIT_REACHED");
        await em.insert(TeamMemberEntity, place);
        await queueEvents(em, teamMemberEvent("team_member.added", place));
        return place;
      });
    },
    async removeTeamMember(teamId, userId, actor) {
      const place = await store.em().findOne(TeamMemberEntity, { teamId, userId });
      if (!place) return false;
      return locked(place.organizationId, async (em) => {
        await checkActor(em, place.organizationId, actor);
        if ((await em.nativeDelete(TeamMemberEntity, { teamId, userId })) === 0) return false;
        await queueEvents(em, teamMemberEvent("team_member.removed", toTeamMember(place)));
        return true;
      });
    },
    async findDueOrganizationEvents(now, limit) {
      const rows = await store.em().find(OrganizationEventEntity, { nextAttemptAt: { $lte: now }, ...leaseFree(now) }, { orderBy: { nextAttemptAt: "asc", id: "asc" }, limit });
      return rows.map(toOrganizationEvent);
    },
    async claimOrganizationEvent(id, seenAttempts, now, leaseUntil) {
      return (await store.em().nativeUpdate(OrganizationEventEntity, { id, attempts: seenAttempts, ...leaseFree(now) }, { attempts: seenAttempts + 1, leaseUntil })) === 1;
    },
    async retryOrganizationEvent(id, attempts, nextAttemptAt) {
      await store.em().nativeUpdate(OrganizationEventEntity, { id, attempts }, { nextAttemptAt, leaseUntil: null });
    },
    async deleteOrganizationEvent(id) {
      await store.em().nativeDelete(OrganizationEventEntity, { id });
    },
    async findDueInvitationMails(now, limit) {
      const rows = await store.em().find(InvitationMailEntity, { nextAttemptAt: { $lte: now }, ...leaseFree(now) }, { orderBy: { nextAttemptAt: "asc", id: "asc" }, limit });
      return rows.map(toInvitationMail);
    },
    async claimInvitationMail(id, seenAttempts, now, leaseUntil) {
      return (await store.em().nativeUpdate(InvitationMailEntity, { id, attempts: seenAttempts, ...leaseFree(now) }, { attempts: seenAttempts + 1, leaseUntil })) === 1;
    },
    async retryInvitationMail(id, attempts, nextAttemptAt) {
      await store.em().nativeUpdate(InvitationMailEntity, { id, attempts }, { nextAttemptAt, leaseUntil: null });
    },
    async deleteInvitationMail(id) {
      await store.em().nativeDelete(InvitationMailEntity, { id });
    },
    close: () => store.close(),
  };
}
