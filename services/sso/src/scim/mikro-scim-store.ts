/** The SCIM store on MikroORM (SQLite or PostgreSQL), over the sso service's store. */
import { isUniqueViolation, type Store } from "@auth-platform/runtime/store";
import { ScimGroupEntity, type ScimGroupEntityRow, ScimTokenEntity, ScimUserEntity, type ScimUserEntityRow } from "./entities.js";
import type { ScimApplied, ScimGroupFilter, ScimGroupRow, ScimStore, ScimUserFilter, ScimUserRow } from "./ports.js";

const wantedOf = (row: Pick<ScimUserRow, "deleted" | "active">): ScimApplied => (row.deleted ? "gone" : row.active ? "member" : "inactive");
const opt = (value: string | null | undefined) => value ?? undefined;

function toUser(row: ScimUserEntityRow): ScimUserRow {
  return {
    organizationId: row.organizationId,
    userId: row.userId,
    userName: row.userName,
    externalId: opt(row.externalId),
    displayName: opt(row.displayName),
    givenName: opt(row.givenName),
    familyName: opt(row.familyName),
    email: row.email,
    active: Boolean(row.active),
    deleted: Boolean(row.deleted),
    applied: (row.applied as ScimApplied | null) ?? null,
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
    revision: Number(row.revision),
  };
}

function userColumns(row: ScimUserRow) {
  return {
    userName: row.userName,
    userNameLower: row.userName.toLowerCase(),
    externalId: row.externalId ?? null,
    displayName: row.displayName ?? null,
    givenName: row.givenName ?? null,
    familyName: row.familyName ?? null,
    email: row.email,
    active: row.active,
    deleted: row.deleted,
    applied: row.applied,
    pending: wantedOf(row) !== row.applied,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    revision: row.revision,
  };
}

function toGroup(row: ScimGroupEntityRow): ScimGroupRow {
  return {
    organizationId: row.organizationId,
    teamId: row.teamId,
    displayName: row.displayName,
    externalId: opt(row.externalId),
    members: JSON.parse(row.members) as string[],
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
    revision: Number(row.revision),
  };
}

function groupColumns(row: ScimGroupRow) {
  return {
    displayName: row.displayName,
    displayNameLower: row.displayName.toLowerCase(),
    externalId: row.externalId ?? null,
    members: JSON.stringify(row.members),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    revision: row.revision,
  };
}

function userWhere(organizationId: string, filter: ScimUserFilter | undefined) {
  const base = { organizationId, deleted: false };
  if (!filter) return base;
  if (filter.attribute === "userName") return { ...base, userNameLower: filter.value.toLowerCase() };
  if (filter.attribute === "externalId") return { ...base, externalId: filter.value };
  return { ...base, userId: filter.value };
}

export function scimStoreOver(store: Store): ScimStore {
  /** Whether another live user of the organization holds the row's userName or externalId. */
  async function userCollides(row: ScimUserRow): Promise<boolean> {
    const others = await store.em().find(ScimUserEntity, {
      organizationId: row.organizationId,
      deleted: false,
      userId: { $ne: row.userId },
      $or: [{ userNameLower: row.userName.toLowerCase() }, ...(row.externalId !== undefined ? [{ externalId: row.externalId }] : [])],
    });
    return others.length > 0;
  }

  async function groupCollides(row: ScimGroupRow): Promise<boolean> {
    const others = await store.em().find(ScimGroupEntity, {
      organizationId: row.organizationId,
      teamId: { $ne: row.teamId },
      $or: [{ displayNameLower: row.displayName.toLowerCase() }, ...(row.externalId !== undefined ? [{ externalId: row.externalId }] : [])],
    });
    return others.length > 0;
  }

  return {
    async insertToken(token) {
      await store.em().insert(ScimTokenEntity, { ...token, lastUsedAt: token.lastUsedAt ?? null });
    },
    async findTokenByHash(tokenHash) {
      const row = await store.readOne(ScimTokenEntity, { tokenHash });
      return row ? { ...row, createdAt: new Date(row.createdAt), lastUsedAt: row.lastUsedAt ? new Date(row.lastUsedAt) : undefined } : undefined;
    },
    async listTokens(organizationId) {
      const rows = await store.em().find(ScimTokenEntity, { organizationId }, { orderBy: { createdAt: "asc", id: "asc" } });
      return rows.map((row) => ({ ...row, createdAt: new Date(row.createdAt), lastUsedAt: row.lastUsedAt ? new Date(row.lastUsedAt) : undefined }));
    },
    async countTokens(organizationId) {
      return store.em().count(ScimTokenEntity, { organizationId });
    },
    async deleteToken(organizationId, id) {
      return (await store.em().nativeDelete(ScimTokenEntity, { organizationId, id })) > 0;
    },
    async touchToken(id, at) {
      await store.em().nativeUpdate(ScimTokenEntity, { id }, { lastUsedAt: at });
    },

    async putNewUser(row) {
      if (await userCollides(row)) return undefined;
      const existing = await store.readOne(ScimUserEntity, { organizationId: row.organizationId, userId: row.userId });
      if (existing && !existing.deleted) return undefined;
      if (existing) {
        const revived: ScimUserRow = { ...row, revision: Number(existing.revision) + 1, applied: (existing.applied as ScimApplied | null) ?? null };
        const updated = await store
          .em()
          .nativeUpdate(ScimUserEntity, { organizationId: row.organizationId, userId: row.userId, revision: existing.revision, deleted: true }, userColumns(revived));
        return updated > 0 ? revived : undefined;
      }
      try {
        await store.em().insert(ScimUserEntity, { organizationId: row.organizationId, userId: row.userId, ...userColumns(row) });
      } catch (error) {
        if (isUniqueViolation(error)) return undefined;
        throw error;
      }
      return { ...row };
    },
    async getUser(organizationId, userId) {
      const row = await store.readOne(ScimUserEntity, { organizationId, userId, deleted: false });
      return row ? toUser(row) : undefined;
    },
    async listUsers(organizationId, filter, offset, limit) {
      const where = userWhere(organizationId, filter);
      const total = await store.em().count(ScimUserEntity, where);
      if (limit === 0) return { rows: [], total };
      const rows = await store.em().find(ScimUserEntity, where, { orderBy: { createdAt: "asc", userId: "asc" }, offset, limit });
      return { rows: rows.map(toUser), total };
    },
    async updateUser(row, expectedRevision) {
      if (!row.deleted && (await userCollides(row))) return "conflict";
      const updated = await store.em().nativeUpdate(ScimUserEntity, { organizationId: row.organizationId, userId: row.userId, revision: expectedRevision }, userColumns(row));
      return updated > 0 ? "updated" : "changed";
    },
    async markApplied(organizationId, userId, revision, applied) {
      if (applied === "gone") {
        await store.em().nativeDelete(ScimUserEntity, { organizationId, userId, revision });
        return;
      }
      const row = await store.readOne(ScimUserEntity, { organizationId, userId, revision });
      if (!row) return;
      await store.em().nativeUpdate(ScimUserEntity, { organizationId, userId, revision }, { applied, pending: wantedOf(toUser(row)) !== applied });
    },
    async listUndelivered(limit) {
      const rows = await store.em().find(ScimUserEntity, { pending: true }, { orderBy: { updatedAt: "asc" }, limit });
      return rows.map(toUser);
    },

    async insertGroup(row) {
      if (await groupCollides(row)) return false;
      try {
        await store.em().insert(ScimGroupEntity, { organizationId: row.organizationId, teamId: row.teamId, ...groupColumns(row) });
        return true;
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },
    async getGroup(organizationId, teamId) {
      const row = await store.readOne(ScimGroupEntity, { organizationId, teamId });
      return row ? toGroup(row) : undefined;
    },
    async listGroups(organizationId, filter: ScimGroupFilter | undefined, offset, limit) {
      const where = !filter
        ? { organizationId }
        : filter.attribute === "displayName"
          ? { organizationId, displayNameLower: filter.value.toLowerCase() }
          : filter.attribute === "externalId"
            ? { organizationId, externalId: filter.value }
            : { organizationId, teamId: filter.value };
      const total = await store.em().count(ScimGroupEntity, where);
      if (limit === 0) return { rows: [], total };
      const rows = await store.em().find(ScimGroupEntity, where, { orderBy: { createdAt: "asc", teamId: "asc" }, offset, limit });
      return { rows: rows.map(toGroup), total };
    },
    async updateGroup(row, expectedRevision) {
      if (await groupCollides(row)) return "conflict";
      try {
        const updated = await store.em().nativeUpdate(ScimGroupEntity, { organizationId: row.organizationId, teamId: row.teamId, revision: expectedRevision }, groupColumns(row));
        return updated > 0 ? "updated" : "changed";
      } catch (error) {
        if (isUniqueViolation(error)) return "conflict";
        throw error;
      }
    },
    async deleteGroup(organizationId, teamId) {
      await store.em().nativeDelete(ScimGroupEntity, { organizationId, teamId });
    },
    async removeFromGroups(organizationId, userId) {
      const rows = await store.em().find(ScimGroupEntity, { organizationId, members: { $like: `%${JSON.stringify(userId)}%` } });
      for (const row of rows) {
        const group = toGroup(row);
        const next = { ...group, members: group.members.filter((id) => id !== userId), revision: group.revision + 1 };
        await store.em().nativeUpdate(ScimGroupEntity, { organizationId, teamId: group.teamId, revision: group.revision }, groupColumns(next));
      }
    },
  };
}
