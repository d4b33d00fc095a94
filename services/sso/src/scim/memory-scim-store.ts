/** The SCIM store in process memory: the reference the SQL store's contract suite holds to. */
import type { ScimApplied, ScimGroupFilter, ScimGroupRow, ScimStore, ScimTokenRecord, ScimUserFilter, ScimUserRow } from "./ports.js";

const key = (organizationId: string, userId: string) => `${organizationId}\u0000${userId}`;
const wantedOf = (row: ScimUserRow): ScimApplied => (row.deleted ? "gone" : row.active ? "member" : "inactive");

function matches(row: ScimUserRow, filter: ScimUserFilter | undefined): boolean {
  if (!filter) return true;
  if (filter.attribute === "userName") return row.userName.toLowerCase() === filter.value.toLowerCase();
  if (filter.attribute === "externalId") return row.externalId === filter.value;
  return row.userId === filter.value;
}

export class MemoryScimStore implements ScimStore {
  private readonly tokens = new Map<string, ScimTokenRecord>();
  private readonly users = new Map<string, ScimUserRow>();
  private readonly groups = new Map<string, ScimGroupRow>();

  async insertToken(token: ScimTokenRecord): Promise<void> {
    this.tokens.set(token.id, { ...token });
  }

  async findTokenByHash(tokenHash: string): Promise<ScimTokenRecord | undefined> {
    const found = [...this.tokens.values()].find((t) => t.tokenHash === tokenHash);
    return found && { ...found };
  }

  async listTokens(organizationId: string): Promise<ScimTokenRecord[]> {
    return [...this.tokens.values()]
      .filter((t) => t.organizationId === organizationId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .map((t) => ({ ...t }));
  }

  async countTokens(organizationId: string): Promise<number> {
    return (await this.listTokens(organizationId)).length;
  }

  async deleteToken(organizationId: string, id: string): Promise<boolean> {
    const token = this.tokens.get(id);
    if (token?.organizationId !== organizationId) return false;
    return this.tokens.delete(id);
  }

  async touchToken(id: string, at: Date): Promise<void> {
    const token = this.tokens.get(id);
    if (token) token.lastUsedAt = at;
  }

  private collides(row: ScimUserRow): boolean {
    return [...this.users.values()].some(
      (other) =>
        other.organizationId === row.organizationId &&
        !other.deleted &&
        other.userId !== row.userId &&
        (other.userName.toLowerCase() === row.userName.toLowerCase() || (row.externalId !== undefined && other.externalId === row.externalId)),
    );
  }

  async putNewUser(row: ScimUserRow): Promise<ScimUserRow | undefined> {
    const existing = this.users.get(key(row.organizationId, row.userId));
    if ((existing && !existing.deleted) || this.collides(row)) return undefined;
    // A revived row keeps counting revisions, so an ETag of the deleted user never matches the new one.
    const stored = { ...row, revision: existing ? existing.revision + 1 : row.revision, applied: existing?.applied ?? row.applied };
    this.users.set(key(row.organizationId, row.userId), stored);
    return { ...stored };
  }

  async getUser(organizationId: string, userId: string): Promise<ScimUserRow | undefined> {
    const row = this.users.get(key(organizationId, userId));
    return row && !row.deleted ? { ...row } : undefined;
  }

  async listUsers(organizationId: string, filter: ScimUserFilter | undefined, offset: number, limit: number): Promise<{ rows: ScimUserRow[]; total: number }> {
    const all = [...this.users.values()]
      .filter((row) => row.organizationId === organizationId && !row.deleted && matches(row, filter))
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.userId.localeCompare(b.userId));
    return { rows: all.slice(offset, offset + limit).map((row) => ({ ...row })), total: all.length };
  }

  async updateUser(row: ScimUserRow, expectedRevision: number): Promise<"updated" | "changed" | "conflict"> {
    const current = this.users.get(key(row.organizationId, row.userId));
    if (!current || current.revision !== expectedRevision) return "changed";
    if (!row.deleted && this.collides(row)) return "conflict";
    this.users.set(key(row.organizationId, row.userId), { ...row });
    return "updated";
  }

  async markApplied(organizationId: string, userId: string, revision: number, applied: ScimApplied): Promise<void> {
    const current = this.users.get(key(organizationId, userId));
    if (!current || current.revision !== revision) return;
    if (applied === "gone") this.users.delete(key(organizationId, userId));
    else current.applied = applied;
  }

  async listUndelivered(limit: number): Promise<ScimUserRow[]> {
    return [...this.users.values()]
      .filter((row) => wantedOf(row) !== row.applied)
      .sort((a, b) => a.updatedAt.getTime() - b.updatedAt.getTime())
      .slice(0, limit)
      .map((row) => ({ ...row }));
  }

  private groupCollides(row: ScimGroupRow): boolean {
    return [...this.groups.values()].some(
      (other) =>
        other.organizationId === row.organizationId &&
        other.teamId !== row.teamId &&
        (other.displayName.toLowerCase() === row.displayName.toLowerCase() || (row.externalId !== undefined && other.externalId === row.externalId)),
    );
  }

  async insertGroup(row: ScimGroupRow): Promise<boolean> {
    if (this.groupCollides(row)) return false;
    this.groups.set(key(row.organizationId, row.teamId), { ...row, members: [...row.members] });
    return true;
  }

  async getGroup(organizationId: string, teamId: string): Promise<ScimGroupRow | undefined> {
    const row = this.groups.get(key(organizationId, teamId));
    return row && { ...row, members: [...row.members] };
  }

  async listGroups(organizationId: string, filter: ScimGroupFilter | undefined, offset: number, limit: number): Promise<{ rows: ScimGroupRow[]; total: number }> {
    const all = [...this.groups.values()]
      .filter((row) => row.organizationId === organizationId)
      .filter((row) => {
        if (!filter) return true;
        if (filter.attribute === "displayName") return row.displayName.toLowerCase() === filter.value.toLowerCase();
        if (filter.attribute === "externalId") return row.externalId === filter.value;
        return row.teamId === filter.value;
      })
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.teamId.localeCompare(b.teamId));
    return { rows: all.slice(offset, offset + limit).map((row) => ({ ...row, members: [...row.members] })), total: all.length };
  }

  async updateGroup(row: ScimGroupRow, expectedRevision: number): Promise<"updated" | "changed" | "conflict"> {
    const current = this.groups.get(key(row.organizationId, row.teamId));
    if (!current || current.revision !== expectedRevision) return "changed";
    if (this.groupCollides(row)) return "conflict";
    this.groups.set(key(row.organizationId, row.teamId), { ...row, members: [...row.members] });
    return "updated";
  }

  async deleteGroup(organizationId: string, teamId: string): Promise<void> {
    this.groups.delete(key(organizationId, teamId));
  }

  async removeFromGroups(organizationId: string, userId: string): Promise<void> {
    for (const row of this.groups.values()) {
      if (row.organizationId === organizationId && row.members.includes(userId)) {
        row.members = row.members.filter((id) => id !== userId);
        row.revision++;
      }
    }
  }
}
