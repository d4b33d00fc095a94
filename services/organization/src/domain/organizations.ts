/**
 * Organization use cases: create, update, delete, read with members, the active organization, list, slug
 * check (docs/organizations.md). The active organization lives on the session: the session service changes it (cache
 * included) before these calls answer.
 */
import { AuthError } from "@auth-platform/proto/errors";
import { newId } from "@auth-platform/runtime/random";
import type { InvitationRecord, MemberRecord, OrganizationPatch, OrganizationRecord, TeamRecord } from "../store/organization-store.js";
import { scoped } from "./custom-roles.js";
import { accessOf, actorCheck, type CallerAccess, foldSlug, requireActor, requireOrganization, requirePermission, requireReadable, type Target, targetId } from "./access.js";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type MemberWithUser, requireLiveMember, withUsers } from "./members.js";
import type { Caller, Registry } from "./ports.js";
import { undoOnFailure } from "./undo.js";

type Deps = Pick<Registry, "config" | "store" | "users" | "sessions" | "apiKeys" | "now" | "log">;

export interface FullOrganization {
  organization: OrganizationRecord;
  members: MemberWithUser[];
  invitations: InvitationRecord[];
  memberCount: number;
  /** Its teams, oldest first. */
  teams: TeamRecord[];
  /** What the member who reads it may do in it. */
  access: CallerAccess;
}

export interface CreateOrganizationInput {
  caller?: Caller;
  /** The creator when there is no caller (a server-side call). */
  userId?: string;
  name: string;
  slug: string;
  logo?: string;
  metadata: Record<string, string>;
  /** With a caller: the session's active organization stays as it is (better-auth's keepCurrentActiveOrganization). */
  keepActiveOrganization?: boolean;
}

export async function createOrganization(deps: Deps, input: CreateOrganizationInput): Promise<FullOrganization> {
  const creatorId = input.caller?.userId || input.userId;
  if (!creatorId) throw new AuthError("UNAUTHORIZED");
  if (!deps.config.allowCreation) throw new AuthError("YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION");
  const now = deps.now();
  const organization: OrganizationRecord = { id: newId(), name: input.name, slug: foldSlug(input.slug), logo: input.logo ?? null, metadata: input.metadata, createdAt: now };
  const creator = { id: newId(), organizationId: organization.id, userId: creatorId, role: deps.config.creatorRole, createdAt: now };
  // The creator's user is read before anything is written: with identity down the call fails (503) having
  // created nothing, and a retry with the same slug works.
  await requireLiveMember(deps, (await withUsers(deps, [creator]))[0]!);
  // The store checks the limit under a per-creator lock, and the unique slug index decides between
  // concurrent creates of one slug.
  await deps.store.createOrganization(organization, creator, deps.config.organizationLimit);
  // What follows the write calls identity and the session service; if either fails, the organization goes again.
  const members = await undoOnFailure(
    deps,
    "create organization",
    () => deps.store.deleteOrganization(organization.id),
    async () => {
      // Read again after the write: a deletion of the creator that ran meanwhile is seen (requireLiveMember).
      const members = await withUsers(deps, [creator]);
      await requireLiveMember(deps, members[0]!);
      if (input.caller && !input.keepActiveOrganization) await deps.sessions.setActiveOrganization(input.caller.sessionId, organization.id);
      return members;
    },
  );
  return { organization, members, invitations: [], memberCount: 1, teams: [], access: accessOf(deps, creator, members) };
}

export interface UpdateOrganizationInput {
  organizationId?: string;
  patch: OrganizationPatch;
}

export async function updateOrganization(deps: Deps, caller: Caller, input: UpdateOrganizationInput): Promise<OrganizationRecord> {
  // Membership is read first: an organization that does not exist is refused as one the caller is not a
  // member of (docs/adr/0050-organization-refusals-of-non-members.md).
  const id = targetId(caller, input.organizationId, "ORGANIZATION_NOT_FOUND");
  const d = await scoped(deps, id);
  const actor = actorCheck(caller, (member) => requirePermission(d, member, "organization", "update", "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION"));
  await requireActor(d, id, actor);
  const patch = input.patch.slug === undefined ? input.patch : { ...input.patch, slug: foldSlug(input.patch.slug) };
  const updated = await deps.store.updateOrganization(id, patch, actor);
  if (!updated) throw new AuthError("ORGANIZATION_NOT_FOUND");
  return updated;
}

/** Clears the organization as anyone's active organization, then deletes it with its members and invitations. */
export async function deleteOrganization(deps: Deps, caller: Caller, organizationId: string): Promise<OrganizationRecord> {
  if (!deps.config.deleteEnabled) throw new AuthError("NOT_FOUND");
  // Membership first, as for an update: a non-member learns nothing of whether the organization exists.
  const d = await scoped(deps, organizationId);
  const actor = actorCheck(caller, (member) => requirePermission(d, member, "organization", "delete", "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION"));
  await requireActor(d, organizationId, actor);
  const organization = await requireOrganization(deps, organizationId);
  // Cleared before the deletion, so a session service that is down fails the call (503) with nothing
  // deleted; clearing an organization that then stays (a refused deletion) only unsets a choice its
  // members make again with set-active.
  await deps.sessions.clearActiveOrganization(organizationId);
  await deps.store.deleteOrganization(organizationId, actor);
  // Its API keys stop verifying before the answer; when identity cannot be reached, the organization.deleted
  // event written with the deletion carries the same call, retried until it lands (organization-events.ts).
  try {
    await deps.apiKeys.deleteOrganizationKeys(organizationId);
  } catch (error) {
    deps.log.warn("deleted organization's api keys left to the event worker", { organizationId, error: error instanceof Error ? error.message : String(error) });
  }
  // And again after it, for a set-active that came between the two. The deletion is kept either way: one
  // that fails here leaves a session naming a deleted organization, which every read refuses like any other.
  try {
    await deps.sessions.clearActiveOrganization(organizationId);
  } catch (error) {
    deps.log.warn("deleted organization not cleared again from sessions", { organizationId, error: error instanceof Error ? error.message : String(error) });
  }
  return organization;
}

/**
 * The organization with its first page of members (`membersLimit`, default 100, at most 1,000), its
 * pending invitations (answered ones are history, not served here) and what `reader` (a member: reading it
 * requires membership) may do in it.
 */
export async function fullOrganization(deps: Deps, organization: OrganizationRecord, reader: MemberRecord, membersLimit = 0): Promise<FullOrganization> {
  const [page, invitations, teams] = await Promise.all([
    deps.store.listMembers(organization.id, { limit: Math.min(membersLimit || DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE), offset: 0 }),
    deps.store.listInvitations(organization.id, true),
    deps.store.listTeams(organization.id),
  ]);
  const members = await withUsers(deps, page.members);
  return { organization, members, invitations, memberCount: page.total, teams, access: accessOf(await scoped(deps, organization.id), reader, members) };
}

/** By slug, id, or the active organization; null when none is named or active. */
export async function getFullOrganization(deps: Deps, caller: Caller, target: Target & { membersLimit?: number }): Promise<FullOrganization | null> {
  const readable = await requireReadable(deps, caller, target);
  if (readable === "none") return null;
  return fullOrganization(deps, readable.organization, readable.member, target.membersLimit);
}

/**
 * Sets the caller session's active organization (docs/organizations.md#the-active-organization): unset clears it; with nothing named the
 * active one is read back; naming one the caller is not a member of (or one that does not exist: the same
 * refusal) clears it and fails.
 */
export async function setActiveOrganization(deps: Deps, caller: Caller, target: Target & { unset?: boolean }): Promise<FullOrganization | null> {
  if (target.unset && !target.organizationId && !target.organizationSlug) {
    if (caller.activeOrganizationId) await deps.sessions.setActiveOrganization(caller.sessionId, null);
    return null;
  }
  let readable: Awaited<ReturnType<typeof requireReadable>>;
  try {
    readable = await requireReadable(deps, caller, target);
  } catch (refusal) {
    if (caller.activeOrganizationId) await deps.sessions.setActiveOrganization(caller.sessionId, null);
    throw refusal;
  }
  if (readable === "none") return null;
  await deps.sessions.setActiveOrganization(caller.sessionId, readable.organization.id);
  return fullOrganization(deps, readable.organization, readable.member);
}

export function listOrganizations(deps: Pick<Deps, "store">, userId: string): Promise<OrganizationRecord[]> {
  return deps.store.listOrganizationsOfUser(userId);
}

/** ORGANIZATION_ALREADY_EXISTS when the slug is taken. */
export async function checkSlug(deps: Pick<Deps, "store">, slug: string): Promise<void> {
  if (await deps.store.findOrganizationBySlug(foldSlug(slug))) throw new AuthError("ORGANIZATION_ALREADY_EXISTS");
}
