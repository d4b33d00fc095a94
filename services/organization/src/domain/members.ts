/**
 * Member use cases: pages of members with their users, the caller's membership, removal, role changes,
 * leaving, permission checks, and the removal of a deleted user's memberships (docs/organizations.md).
 */
import { AuthError } from "@auth-platform/proto/errors";
import { newId } from "@auth-platform/runtime/random";
import type { ActorCheck, MemberQuery, MemberRecord } from "../store/organization-store.js";
import { actorCheck, mayChangeRoleOf, mayGrant, mayRemove, requireActor, requireMember, requireReadable, type Target, targetId } from "./access.js";
import { roleTableOf, scoped } from "./custom-roles.js";
import type { Caller, MemberUser, Registry } from "./ports.js";
import { grants, isKnownRole } from "./roles.js";
import { undoOnFailure } from "./undo.js";

type Deps = Pick<Registry, "config" | "store" | "users" | "sessions" | "log">;

/** The default page size of list reads (docs/http-api.md#limits-and-defaults). */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1_000;

export interface MemberWithUser extends MemberRecord {
  user: MemberUser | null;
}

/** The members with their users' fields, read from identity in one call. */
export async function withUsers(deps: Pick<Deps, "users">, members: MemberRecord[]): Promise<MemberWithUser[]> {
  if (!members.length) return [];
  const users = new Map((await deps.users.getUsers([...new Set(members.map((m) => m.userId))], [])).map((u) => [u.id, u]));
  return members.map((member) => ({ ...member, user: users.get(member.userId) ?? null }));
}

export async function listMembers(deps: Deps, caller: Caller, target: Target & Partial<MemberQuery>) {
  const readable = await requireReadable(deps, caller, target);
  if (readable === "none") throw new AuthError("NO_ACTIVE_ORGANIZATION");
  const { organization } = readable;
  const limit = Math.min(target.limit || DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const page = await deps.store.listMembers(organization.id, { ...target, limit, offset: target.offset ?? 0 });
  return { members: await withUsers(deps, page.members), total: page.total };
}

/** The caller's membership of the named or active organization, with the caller's user. */
export async function getActiveMember(deps: Deps, caller: Caller, target: Target): Promise<MemberWithUser> {
  const readable = await requireReadable(deps, caller, target, "MEMBER_NOT_FOUND");
  if (readable === "none") throw new AuthError("NO_ACTIVE_ORGANIZATION");
  return (await withUsers(deps, [readable.member]))[0]!;
}

/** Never a user's id (identity's ids are newId()s, which hold no hyphen). */
const NO_USER_ID = "-no-user-";

/**
 * The member a value names, with its user: an email (it holds an at-sign) or a member id, within one
 * organization. One identity call either way.
 */
async function memberNamed(deps: Deps, organizationId: string, memberIdOrEmail: string): Promise<MemberWithUser> {
  if (memberIdOrEmail.includes("@")) {
    const [user] = await deps.users.getUsers([], [memberIdOrEmail.toLowerCase()]);
    // The membership lookup runs for an unregistered address too (an id no user has): a registered address
    // that is not a member costs the same, so the time of the refusal does not tell whether it is registered.
    const member = await deps.store.findMember(organizationId, user?.id ?? NO_USER_ID);
    if (!user || !member) throw new AuthError("MEMBER_NOT_FOUND");
    return { ...member, user };
  }
  const member = await deps.store.findMemberById(memberIdOrEmail);
  if (!member || member.organizationId !== organizationId) throw new AuthError("MEMBER_NOT_FOUND");
  return (await withUsers(deps, [member]))[0]!;
}

/**
 * Removes a member (refused for the only owner, and unless `actor` still may, decided by the store under
 * the organization's lock) and clears the organization as the removed user's active one. When the session
 * service fails that, the member is put back as they were: the failure (503) then means no one was removed,
 * and a retry works.
 */
async function removeMembership(deps: Deps, member: MemberRecord, actor?: ActorCheck): Promise<void> {
  const { id, organizationId, userId, role, createdAt } = member;
  // The member's team places go in the deletion's transaction; read first, so an undo puts them back too.
  const places = await deps.store.listTeamPlacesOfUser(organizationId, userId);
  const removed = await deps.store.deleteMember(member.id, { keepRole: deps.config.creatorRole, actor });
  const putBack = async () => {
    if (!removed) return;
    await deps.store.addMember({ id, organizationId, userId, role, createdAt });
    for (const place of places) {
      // A team deleted meanwhile stays deleted.
      await deps.store.addTeamMember(place, 0).catch((error: unknown) => {
        if (!(error instanceof AuthError && error.code === "TEAM_NOT_FOUND")) throw error;
      });
    }
  };
  await undoOnFailure(deps, "remove member", putBack, () => deps.sessions.clearActiveOrganization(organizationId, userId));
}

/**
 * Anyone may remove themselves (but not as the only owner); removing someone else needs the member delete
 * permission, and removing an owner needs to be an owner. Answers the removed member with its user, as the
 * current better-auth client declares (read before the removal, so a failed read removes no one).
 */
export async function removeMember(unscoped: Deps, caller: Caller, input: { memberIdOrEmail: string; organizationId?: string }): Promise<MemberWithUser> {
  const organizationId = targetId(caller, input.organizationId);
  const deps = await scoped(unscoped, organizationId);
  const remover = actorCheck(
    caller,
    (actor, member) => {
      if (member && !mayRemove(deps, actor, member)) throw new AuthError("YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER");
    },
    "MEMBER_NOT_FOUND",
  );
  const actor = await requireActor(deps, organizationId, remover);
  const member = await memberNamed(deps, organizationId, input.memberIdOrEmail);
  remover.check(actor, member);
  await removeMembership(deps, member, remover);
  return member;
}

/**
 * Needs the member update permission; only an owner grants or takes the owner role, and a non-owner grants
 * no role beyond their own (mayGrant); the only owner stays one.
 */
export async function updateMemberRole(unscoped: Deps, caller: Caller, input: { memberId: string; role: string; organizationId?: string }): Promise<MemberWithUser> {
  const organizationId = targetId(caller, input.organizationId);
  const deps = await scoped(unscoped, organizationId);
  const updater = actorCheck(
    caller,
    (actor, member) => {
      if (!mayChangeRoleOf(deps, actor, member) || !mayGrant(deps, actor, input.role)) throw new AuthError("YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER");
    },
    "MEMBER_NOT_FOUND",
  );
  const actor = await requireMember(deps, organizationId, caller.userId, "MEMBER_NOT_FOUND");
  if (!isKnownRole(deps.roles, input.role)) throw new AuthError("ROLE_NOT_FOUND");
  updater.check(actor);
  const member = await deps.store.findMemberById(input.memberId);
  if (!member || member.organizationId !== organizationId) throw new AuthError("MEMBER_NOT_FOUND");
  updater.check(actor, member);
  // The member's user (for the answer) is read before the change: with identity down nothing changes.
  const { user } = (await withUsers(deps, [member]))[0]!;
  const updated = await deps.store.updateMemberRole(member.id, input.role, { keepRole: deps.config.creatorRole, actor: updater });
  if (!updated) throw new AuthError("MEMBER_NOT_FOUND");
  return { ...updated, user };
}

export async function leaveOrganization(deps: Deps, caller: Caller, organizationId: string): Promise<MemberRecord> {
  const member = await requireMember(deps, organizationId, caller.userId, "MEMBER_NOT_FOUND");
  await removeMembership(deps, member);
  return member;
}

/** Whether the caller's role grants every asked action on every asked resource. */
export async function hasPermission(deps: Deps, caller: Caller, input: { organizationId?: string; permissions: Record<string, string[]> }): Promise<boolean> {
  const organizationId = targetId(caller, input.organizationId);
  const member = await requireMember(deps, organizationId, caller.userId);
  return grants(await roleTableOf(deps, organizationId), member.role, input.permissions);
}

export function getMembership(deps: Pick<Deps, "store">, userId: string, organizationId: string): Promise<MemberRecord | null> {
  return deps.store.findMember(organizationId, userId);
}

/**
 * A member named by the sso service (a single sign-on or a SCIM provisioning: no member acts): the role must
 * be the organization's, and the user must exist. An existing member keeps their role, so a sign-in never
 * demotes an owner. Idempotent, also when two calls race (the store's unique membership decides).
 */
export async function addMember(
  deps: Pick<Registry, "store" | "config" | "users" | "now">,
  input: { organizationId: string; userId: string; role: string },
): Promise<{ member: MemberRecord; created: boolean }> {
  if (!(await deps.store.findOrganization(input.organizationId))) throw new AuthError("ORGANIZATION_NOT_FOUND");
  if (!isKnownRole(await roleTableOf(deps, input.organizationId), input.role)) throw new AuthError("ROLE_NOT_FOUND");
  const existing = await deps.store.findMember(input.organizationId, input.userId);
  if (existing) return { member: existing, created: false };
  const member: MemberRecord = { id: newId(), ...input, createdAt: deps.now() };
  // Read before the write: an unknown user is refused and nothing is written.
  await requireLiveMember(deps, (await withUsers(deps, [member]))[0]!);
  try {
    await deps.store.addMember(member);
  } catch (error) {
    const winner = await deps.store.findMember(input.organizationId, input.userId);
    if (winner && error instanceof AuthError && error.code === "USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION") return { member: winner, created: false };
    throw error;
  }
  // Read again after the write: a deletion of the user that ran meanwhile is seen (requireLiveMember).
  await requireLiveMember(deps, (await withUsers(deps, [member]))[0]!);
  return { member, created: true };
}

/** Ends one user's membership for the sso service (SCIM deprovisioning), as removing a member does. */
export async function removeUserMembership(deps: Deps, input: { organizationId: string; userId: string }): Promise<boolean> {
  const member = await deps.store.findMember(input.organizationId, input.userId);
  if (!member) return false;
  await removeMembership(deps, member);
  return true;
}

/**
 * The member whose role includes this one is preferred when ownership passes on from a deleted user: the
 * admins are the members the owners already trusted with the organization.
 */
export const SUCCESSOR_ROLE = "admin";

/**
 * A deleted user's memberships go, and the invitations they sent are canceled. Where they were the only
 * owner, ownership passes to the oldest admin (else the oldest member); an organization they were the
 * last member of goes with them. Idempotent.
 */
export async function removeUserMemberships(deps: Pick<Deps, "store" | "config">, userId: string): Promise<void> {
  await deps.store.removeUser(userId, deps.config.creatorRole, SUCCESSOR_ROLE);
}

/**
 * After writing a membership of the caller (create, accept): a deletion of the user that ran meanwhile removed
 * the memberships before this one was written, so when identity no longer knows the user, that removal runs
 * again. Identity removes memberships once more after the user row, so a write it misses is seen here.
 */
export async function requireLiveMember(deps: Pick<Deps, "store" | "config">, member: MemberWithUser): Promise<void> {
  if (member.user) return;
  await removeUserMemberships(deps, member.userId);
  throw new AuthError("USER_NOT_FOUND");
}
