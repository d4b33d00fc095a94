/**
 * The checks every organization call shares: which organization a call is about (named, or the caller's
 * active one), that the caller is a member of it, and what the member's role grants (roles.ts).
 */
import { AuthError, type ErrorCode } from "@auth-platform/proto/errors";
import type { ActorCheck, MemberRecord, OrganizationRecord } from "../store/organization-store.js";
import type { Caller, Registry } from "./ports.js";
import { grants, grantsAllOf, isCreator, RESOURCES, type Resource, type RoleTable } from "./roles.js";

/**
 * `roles`: the roles of the organization a call is about, the configured ones and its custom ones
 * (custom-roles.ts scoped()); the configured ones alone when absent.
 */
type Deps = Pick<Registry, "config" | "store"> & { roles?: RoleTable };

/** The roles the checks go by: the organization's (scoped) or the configured ones. */
export const tableOf = (deps: Deps): RoleTable => deps.roles ?? deps.config.roles;

export interface Target {
  organizationId?: string;
  organizationSlug?: string;
}

/**
 * The organization id a call names, else the caller's active one; `none` (NO_ACTIVE_ORGANIZATION by default,
 * ORGANIZATION_NOT_FOUND where better-auth answers that) when neither.
 */
export function targetId(caller: Caller, organizationId?: string, none: ErrorCode = "NO_ACTIVE_ORGANIZATION"): string {
  const id = organizationId || caller.activeOrganizationId;
  if (!id) throw new AuthError(none);
  return id;
}

/**
 * A slug as stored and looked up: lower case, so "A-x" and "a-x" are one organization's (slugs are ASCII,
 * rpc/validation.ts; store migration 0002 folded the older rows).
 */
export const foldSlug = (slug: string): string => slug.toLowerCase();

/** The organization named by slug, id, or the active one; null when none is named or active. */
export async function findTarget(deps: Deps, caller: Caller, target: Target): Promise<OrganizationRecord | null | "none"> {
  if (target.organizationSlug) return deps.store.findOrganizationBySlug(foldSlug(target.organizationSlug));
  const id = target.organizationId || caller.activeOrganizationId;
  return id ? deps.store.findOrganization(id) : "none";
}

/**
 * The named (or active) organization and the caller's membership of it; "none" when none is named or
 * active. An organization that does not exist is refused like one the caller is not a member of (the same
 * `refusal`), so a non-member cannot tell taken slugs from free ones by asking for them.
 */
export async function requireReadable(
  deps: Deps,
  caller: Caller,
  target: Target,
  refusal: ErrorCode = "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
): Promise<{ organization: OrganizationRecord; member: MemberRecord } | "none"> {
  const organization = await findTarget(deps, caller, target);
  if (organization === "none") return "none";
  const member = organization && (await deps.store.findMember(organization.id, caller.userId));
  if (!organization || !member) throw new AuthError(refusal);
  return { organization, member };
}

/** The organization with this id, or ORGANIZATION_NOT_FOUND. */
export async function requireOrganization(deps: Deps, id: string): Promise<OrganizationRecord> {
  const organization = await deps.store.findOrganization(id);
  if (!organization) throw new AuthError("ORGANIZATION_NOT_FOUND");
  return organization;
}

/** The caller's membership, or the given refusal (USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION by default). */
export async function requireMember(deps: Deps, organizationId: string, userId: string, refusal: ErrorCode = "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION"): Promise<MemberRecord> {
  const member = await deps.store.findMember(organizationId, userId);
  if (!member) throw new AuthError(refusal);
  return member;
}

/**
 * What the caller must be to make a change: a member (else `notMember`) whose role passes `rule`, given the
 * member being changed where there is one. The use case checks it before the change, and the store again
 * under the organization's lock, on the rows as they are then (ActorCheck).
 */
export function actorCheck(
  caller: { userId: string },
  rule: (actor: MemberRecord, subject?: MemberRecord) => void,
  notMember: ErrorCode = "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
): ActorCheck {
  return {
    userId: caller.userId,
    check(actor, subject) {
      if (!actor) throw new AuthError(notMember);
      rule(actor, subject);
    },
  };
}

/** The caller's membership, once `actor` allows it (the check before the change). */
export async function requireActor(deps: Deps, organizationId: string, actor: ActorCheck): Promise<MemberRecord> {
  const member = await deps.store.findMember(organizationId, actor.userId);
  actor.check(member);
  return member!;
}

/** Refuses with `refusal` unless the member's role grants the action. */
export function requirePermission(deps: Deps, member: MemberRecord, resource: Resource, action: string, refusal: ErrorCode): void {
  if (!grants(tableOf(deps), member.role, { [resource]: [action] })) throw new AuthError(refusal);
}

export const isOwner = (deps: Deps, member: { role: string }) => isCreator(deps.config.creatorRole, member.role);

/**
 * Whether the member may give `role` (invite with it, or set it): an owner any role; anyone else neither
 * the owner role nor a role granting what their own does not, so a custom role that may, say, change roles
 * cannot be used to reach one that may delete the organization.
 */
export function mayGrant(deps: Deps, member: MemberRecord, role: string): boolean {
  if (isOwner(deps, member)) return true;
  return !isOwner(deps, { role }) && grantsAllOf(tableOf(deps), member.role, role);
}

/** Only an owner changes or removes an owner. */
const mayTouch = (deps: Deps, actor: MemberRecord, member: { role: string }) => !isOwner(deps, member) || isOwner(deps, actor);

/** Whether `actor` may change roles at all, and `member`'s in particular (the new role is mayGrant's). */
export function mayChangeRoleOf(deps: Deps, actor: MemberRecord, member?: { role: string }): boolean {
  return grants(tableOf(deps), actor.role, { member: ["update"] }) && (!member || mayTouch(deps, actor, member));
}

/** Whether `actor` may remove `member`: anyone themselves (leaving); someone else with member delete. */
export function mayRemove(deps: Deps, actor: MemberRecord, member: MemberRecord): boolean {
  if (member.id === actor.id) return true;
  return grants(tableOf(deps), actor.role, { member: ["delete"] }) && mayTouch(deps, actor, member);
}

/** The caller's role in an organization and what it lets them do, by the rules above (no state rules). */
export interface CallerAccess {
  role: string;
  updateOrganization: boolean;
  deleteOrganization: boolean;
  invite: boolean;
  cancelInvitations: boolean;
  /** The roles, configured and custom, the caller may give (invite with, set). */
  assignableRoles: string[];
  /** Of `members`, those whose role the caller may change, and those the caller may remove. */
  updatableMemberIds: string[];
  removableMemberIds: string[];
  /** The role that makes an owner (the creator role). */
  ownerRole: string;
  /** May create, rename and delete teams (the team permissions). */
  manageTeams: boolean;
  /** The `ac` actions (custom roles: read, create, update, delete) the caller's role grants. */
  roleActions: string[];
}

/** What `actor` may do in their organization, for `members` (a page of its members). */
export function accessOf(deps: Deps, actor: MemberRecord, members: MemberRecord[]): CallerAccess {
  const may = (resource: Resource, action: string) => grants(tableOf(deps), actor.role, { [resource]: [action] });
  return {
    role: actor.role,
    updateOrganization: may("organization", "update"),
    deleteOrganization: deps.config.deleteEnabled && may("organization", "delete"),
    invite: may("invitation", "create"),
    cancelInvitations: may("invitation", "cancel"),
    assignableRoles: Object.keys(tableOf(deps)).filter((role) => mayGrant(deps, actor, role)),
    updatableMemberIds: members.filter((member) => mayChangeRoleOf(deps, actor, member)).map((member) => member.id),
    removableMemberIds: members.filter((member) => mayRemove(deps, actor, member)).map((member) => member.id),
    ownerRole: deps.config.creatorRole,
    manageTeams: may("team", "update"),
    roleActions: RESOURCES.ac.filter((action) => may("ac", action)),
  };
}
