/**
 * Team use cases (docs/organizations.md#teams): teams inside an organization, their members' places and the
 * session's active team. A call comes with a caller (a signed-in member: the roles decide) or without one
 * (a trusted workload acting for the organization, such as SCIM provisioning: no member rule applies).
 */
import { AuthError, type ErrorCode } from "@auth-platform/proto/errors";
import { newId } from "@auth-platform/runtime/random";
import type { ActorCheck, MemberRecord, TeamMemberRecord, TeamRecord } from "../store/organization-store.js";
import { actorCheck, requireMember, tableOf, targetId } from "./access.js";
import { scoped } from "./custom-roles.js";
import type { Caller, Registry } from "./ports.js";
import { grants, type Resource, type RoleTable } from "./roles.js";
import { undoOnFailure } from "./undo.js";

/** `roles`: the organization's, custom ones too (rolesFor), for a member's checks; the configured ones when absent. */
type Deps = Pick<Registry, "config" | "store" | "sessions" | "now" | "log"> & { roles?: RoleTable };

const may = (deps: Deps, member: MemberRecord, resource: Resource, action: string) => grants(tableOf(deps), member.role, { [resource]: [action] });

/** The dependencies a member's checks go by: the organization's roles, its custom ones included; a workload needs none. */
const rolesFor = async (deps: Deps, caller: Caller | undefined, organizationId: string): Promise<Deps> => (caller ? scoped(deps, organizationId) : deps);

/** The member rule a change needs, checked before it and again by the store under the organization's lock. */
function ruleFor(deps: Deps, caller: Caller | undefined, resource: Resource, action: string, refusal: ErrorCode): ActorCheck | undefined {
  if (!caller) return undefined;
  return actorCheck(caller, (actor) => {
    if (!may(deps, actor, resource, action)) throw new AuthError(refusal);
  });
}

/** The organization a call is about: the named one, else the caller's active one; a workload must name it. */
function organizationOf(caller: Caller | undefined, organizationId?: string): string {
  if (!caller) {
    if (!organizationId) throw new AuthError("VALIDATION_ERROR", "organizationId is required");
    return organizationId;
  }
  return targetId(caller, organizationId);
}

/**
 * The team, refused as TEAM_NOT_FOUND when it is gone, belongs to another organization than the one named,
 * or the caller is not a member of its organization: a non-member learns nothing of which team ids exist.
 * Answers the caller's membership too.
 */
async function requireTeam(deps: Deps, caller: Caller | undefined, teamId: string, organizationId?: string): Promise<{ team: TeamRecord; member: MemberRecord | null }> {
  const team = await deps.store.findTeam(teamId);
  if (!team || (organizationId && team.organizationId !== organizationId)) throw new AuthError("TEAM_NOT_FOUND");
  if (!caller) return { team, member: null };
  const member = await deps.store.findMember(team.organizationId, caller.userId);
  if (!member) throw new AuthError("TEAM_NOT_FOUND");
  return { team, member };
}

/** Trims a team name; 1 to 255 characters. */
export function teamName(value: string): string {
  const trimmed = value.trim();
  if (!trimmed || trimmed.length > 255) throw new AuthError("VALIDATION_ERROR", "name must be 1 to 255 characters");
  return trimmed;
}

export async function createTeam(unscoped: Deps, caller: Caller | undefined, input: { name: string; organizationId?: string }): Promise<TeamRecord> {
  const organizationId = organizationOf(caller, input.organizationId);
  const deps = await rolesFor(unscoped, caller, organizationId);
  const rule = ruleFor(deps, caller, "team", "create", "YOU_ARE_NOT_ALLOWED_TO_CREATE_TEAMS_IN_THIS_ORGANIZATION");
  if (caller) rule!.check(await deps.store.findMember(organizationId, caller.userId));
  else if (!(await deps.store.findOrganization(organizationId))) throw new AuthError("ORGANIZATION_NOT_FOUND");
  const now = deps.now();
  const team: TeamRecord = { id: newId(), organizationId, name: teamName(input.name), createdAt: now, updatedAt: now };
  await deps.store.createTeam(team, deps.config.teamLimit, rule);
  return team;
}

/** One team by id, or by exact name within an organization; null when there is none (or it is not the caller's organization's). */
export async function getTeam(deps: Deps, caller: Caller | undefined, input: { teamId?: string; organizationId?: string; name?: string }): Promise<TeamRecord | null> {
  let team: TeamRecord | null;
  if (input.teamId) {
    team = await deps.store.findTeam(input.teamId);
    if (team && input.organizationId && team.organizationId !== input.organizationId) team = null;
  } else {
    if (!input.name) throw new AuthError("VALIDATION_ERROR", "teamId, or organizationId and name, is required");
    const organizationId = organizationOf(caller, input.organizationId);
    if (caller) await requireMember(deps, organizationId, caller.userId);
    team = await deps.store.findTeamByName(organizationId, input.name.trim());
  }
  if (team && caller && !(await deps.store.findMember(team.organizationId, caller.userId))) return null;
  return team;
}

export async function listTeams(deps: Deps, caller: Caller | undefined, organizationId?: string): Promise<TeamRecord[]> {
  const id = organizationOf(caller, organizationId);
  if (caller) await requireMember(deps, id, caller.userId);
  return deps.store.listTeams(id);
}

export async function updateTeam(unscoped: Deps, caller: Caller | undefined, input: { teamId: string; name?: string; organizationId?: string }): Promise<TeamRecord> {
  const { team, member } = await requireTeam(unscoped, caller, input.teamId, input.organizationId);
  const deps = await rolesFor(unscoped, caller, team.organizationId);
  const rule = ruleFor(deps, caller, "team", "update", "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM");
  rule?.check(member);
  if (input.name === undefined) return team;
  const updated = await deps.store.renameTeam(team.id, teamName(input.name), deps.now(), rule);
  if (!updated) throw new AuthError("TEAM_NOT_FOUND");
  return updated;
}

/**
 * Deletes a team with its places, clearing it as anyone's active team before (a session service that is
 * down fails the call with nothing deleted) and again after (for a set-active-team that came between).
 */
export async function removeTeam(unscoped: Deps, caller: Caller | undefined, input: { teamId: string; organizationId?: string }): Promise<TeamRecord> {
  const { team, member } = await requireTeam(unscoped, caller, input.teamId, input.organizationId);
  const deps = await rolesFor(unscoped, caller, team.organizationId);
  const rule = ruleFor(deps, caller, "team", "delete", "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM");
  rule?.check(member);
  await deps.sessions.clearActiveTeam(team.id);
  if (!(await deps.store.deleteTeam(team.id, rule))) throw new AuthError("TEAM_NOT_FOUND");
  try {
    await deps.sessions.clearActiveTeam(team.id);
  } catch (error) {
    // A session left naming the deleted team is refused at every use, like any team that is gone.
    deps.log.warn("deleted team not cleared again from sessions", { teamId: team.id, error: error instanceof Error ? error.message : String(error) });
  }
  return team;
}

/** Sets (teamId) or clears the caller session's active team; only a member of the team may make it active. */
export async function setActiveTeam(deps: Deps, caller: Caller, teamId: string | undefined): Promise<TeamRecord | null> {
  if (!teamId) {
    if (caller.activeTeamId) await deps.sessions.setActiveTeam(caller.sessionId, null);
    return null;
  }
  const { team } = await requireTeam(deps, caller, teamId);
  if (!(await deps.store.findTeamMember(team.id, caller.userId))) throw new AuthError("USER_IS_NOT_A_MEMBER_OF_THE_TEAM");
  await deps.sessions.setActiveTeam(caller.sessionId, { teamId: team.id, organizationId: team.organizationId });
  return team;
}

/**
 * The teams of the caller (every organization's, or one's), or of another member of one organization for a
 * caller who may update members there.
 */
export async function listUserTeams(deps: Deps, caller: Caller, input: { userId?: string; organizationId?: string }): Promise<TeamRecord[]> {
  if (!input.userId || input.userId === caller.userId) {
    if (input.organizationId) await requireMember(deps, input.organizationId, caller.userId);
    return deps.store.listTeamsOfUser(caller.userId, input.organizationId);
  }
  const organizationId = targetId(caller, input.organizationId);
  const member = await requireMember(deps, organizationId, caller.userId);
  if (!may(await scoped(deps, organizationId), member, "member", "update")) throw new AuthError("YOU_CAN_NOT_ACCESS_THE_MEMBERS_OF_THIS_TEAM");
  return deps.store.listTeamsOfUser(input.userId, organizationId);
}

/** A team's places (default the caller's active team): for its members and those who may update teams. */
export async function listTeamMembers(unscoped: Deps, caller: Caller | undefined, teamId?: string): Promise<TeamMemberRecord[]> {
  const id = teamId || caller?.activeTeamId;
  if (!id) throw new AuthError(caller ? "YOU_DO_NOT_HAVE_AN_ACTIVE_TEAM" : "VALIDATION_ERROR", caller ? undefined : "teamId is required");
  const { team, member } = await requireTeam(unscoped, caller, id);
  const deps = await rolesFor(unscoped, caller, team.organizationId);
  if (caller && !may(deps, member!, "team", "update") && !(await deps.store.findTeamMember(team.id, caller.userId))) {
    throw new AuthError("YOU_CAN_NOT_ACCESS_THE_MEMBERS_OF_THIS_TEAM");
  }
  return deps.store.listTeamMembers(team.id);
}

/** Gives a member of the team's organization a place (idempotent); needs the member update permission. */
export async function addTeamMember(unscoped: Deps, caller: Caller | undefined, input: { teamId: string; userId: string; organizationId?: string }): Promise<TeamMemberRecord> {
  const { team, member } = await requireTeam(unscoped, caller, input.teamId, input.organizationId);
  const deps = await rolesFor(unscoped, caller, team.organizationId);
  const rule = ruleFor(deps, caller, "member", "update", "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_TEAM_MEMBER");
  rule?.check(member);
  const place: TeamMemberRecord = { id: newId(), teamId: team.id, organizationId: team.organizationId, userId: input.userId, createdAt: deps.now() };
  return deps.store.addTeamMember(place, deps.config.teamMemberLimit, rule);
}

/**
 * Takes a user's place in a team (anyone their own; someone else's with the member delete permission) and
 * clears the team as that user's active one. Cleared after the removal: a session service that fails then
 * gets the place back, so the failure (503) means nothing changed.
 */
export async function removeTeamMember(unscoped: Deps, caller: Caller | undefined, input: { teamId: string; userId: string; organizationId?: string }): Promise<void> {
  const { team, member } = await requireTeam(unscoped, caller, input.teamId, input.organizationId);
  const deps = await rolesFor(unscoped, caller, team.organizationId);
  const self = caller?.userId === input.userId;
  const rule =
    caller && !self
      ? actorCheck(caller, (actor) => {
          if (!may(deps, actor, "member", "delete")) throw new AuthError("YOU_ARE_NOT_ALLOWED_TO_REMOVE_A_TEAM_MEMBER");
        })
      : undefined;
  rule?.check(member);
  const place = await deps.store.findTeamMember(team.id, input.userId);
  if (!place || !(await deps.store.removeTeamMember(team.id, input.userId, rule))) throw new AuthError("USER_IS_NOT_A_MEMBER_OF_THE_TEAM");
  await undoOnFailure(
    deps,
    "remove team member",
    () => deps.store.addTeamMember(place, 0),
    () => deps.sessions.clearActiveTeam(team.id, input.userId),
  );
}
