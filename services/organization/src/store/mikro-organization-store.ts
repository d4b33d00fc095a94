/** The organization store on MikroORM (SQLite or PostgreSQL). */
import { AuthError } from "@auth-platform/proto/errors";
import { isUniqueViolation, openStore } from "@auth-platform/runtime/store";
import { rolesOf } from "../domain/roles.js";
import { InvitationEntity, type InvitationRow, MemberEntity, type MemberRow, OrganizationEntity, type OrganizationRow } from "./entities.js";
import { organizationMigrations } from "./migrations.js";
import type { InvitationRecord, InvitationStatus, MemberRecord, OrganizationRecord, OrganizationStore } from "./organization-store.js";

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

const metadataText = (metadata: Record<string, string>) => (Object.keys(metadata).length ? JSON.stringify(metadata) : null);

/** Runs a write; a unique violation becomes the catalogue error given. */
async function unique<T>(code: "ORGANIZATION_ALREADY_EXISTS" | "USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION", write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw new AuthError(code, undefined, { cause: error });
    throw error;
  }
}

export async function openOrganizationStore(url: string): Promise<OrganizationStore> {
  const store = await openStore({ url, entities: [OrganizationEntity, MemberEntity, InvitationEntity], migrations: organizationMigrations });
  const newest = { createdAt: "desc", id: "desc" } as const;
  return {
    async createOrganization(organization, creator) {
      await unique("ORGANIZATION_ALREADY_EXISTS", () =>
        store.em().transactional(async (em) => {
          em.create(OrganizationEntity, { ...organization, metadata: metadataText(organization.metadata) });
          em.create(MemberEntity, creator);
        }),
      );
    },
    async findOrganization(id) {
      const row = await store.em().findOne(OrganizationEntity, { id });
      return row ? toOrganization(row) : null;
    },
    async findOrganizationBySlug(slug) {
      const row = await store.em().findOne(OrganizationEntity, { slug });
      return row ? toOrganization(row) : null;
    },
    async updateOrganization(id, patch) {
      const { metadata, ...fields } = patch;
      const changes = {
        ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)),
        ...(metadata !== undefined ? { metadata: metadataText(metadata) } : {}),
      };
      const em = store.em();
      if (Object.keys(changes).length) await unique("ORGANIZATION_ALREADY_EXISTS", () => em.nativeUpdate(OrganizationEntity, { id }, changes));
      const row = await em.findOne(OrganizationEntity, { id });
      return row ? toOrganization(row) : null;
    },
    async deleteOrganization(id) {
      return store.em().transactional(async (em) => {
        await em.nativeDelete(InvitationEntity, { organizationId: id });
        await em.nativeDelete(MemberEntity, { organizationId: id });
        return (await em.nativeDelete(OrganizationEntity, { id })) > 0;
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
    async listMembers(organizationId, { limit, offset }) {
      const em = store.em();
      const [rows, total] = await Promise.all([
        em.find(MemberEntity, { organizationId }, { orderBy: { createdAt: "asc", id: "asc" }, limit, offset }),
        em.count(MemberEntity, { organizationId }),
      ]);
      return { members: rows.map(toMember), total };
    },
    async countMembersWithRole(organizationId, role) {
      const rows = await store.em().find(MemberEntity, { organizationId, role: { $like: `%${role}%` } }, { fields: ["id", "role"] });
      return rows.filter((row) => rolesOf(row.role).includes(role)).length;
    },
    async addMember(member) {
      await unique("USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION", () => store.em().insert(MemberEntity, member));
    },
    async updateMemberRole(id, role) {
      const em = store.em();
      await em.nativeUpdate(MemberEntity, { id }, { role });
      const row = await em.findOne(MemberEntity, { id });
      return row ? toMember(row) : null;
    },
    async deleteMember(id) {
      return (await store.em().nativeDelete(MemberEntity, { id })) > 0;
    },
    async removeUser(userId) {
      return store.em().transactional(async (em) => {
        const rows = await em.find(MemberEntity, { userId });
        await em.nativeDelete(MemberEntity, { userId });
        await em.nativeUpdate(InvitationEntity, { inviterId: userId, status: "pending" }, { status: "canceled" });
        return rows.map((row) => row.organizationId);
      });
    },
    async createInvitation(invitation) {
      await store.em().insert(InvitationEntity, invitation);
    },
    async findInvitation(id) {
      const row = await store.em().findOne(InvitationEntity, { id });
      return row ? toInvitation(row) : null;
    },
    async findPendingInvitation(organizationId, email) {
      const row = await store.em().findOne(InvitationEntity, { organizationId, email, status: "pending" }, { orderBy: newest });
      return row ? toInvitation(row) : null;
    },
    async listInvitations(organizationId) {
      return (await store.em().find(InvitationEntity, { organizationId }, { orderBy: newest })).map(toInvitation);
    },
    async listPendingInvitationsTo(email) {
      return (await store.em().find(InvitationEntity, { email, status: "pending" }, { orderBy: newest })).map(toInvitation);
    },
    async answerInvitation(id, status, expiresAt) {
      const changed = await store.em().nativeUpdate(InvitationEntity, { id, status: "pending" }, { status, ...(expiresAt ? { expiresAt } : {}) });
      return changed > 0;
    },
    async acceptInvitation(id, member) {
      // The guarded update decides between concurrent accepts: the loser's update changes no row (on
      // PostgreSQL it waits for the winner's commit, then finds the status changed).
      return unique("USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION", () =>
        store.em().transactional(async (em) => {
          if ((await em.nativeUpdate(InvitationEntity, { id, status: "pending" }, { status: "accepted" })) === 0) return false;
          await em.insert(MemberEntity, member);
          return true;
        }),
      );
    },
    close: () => store.close(),
  };
}
