/**
 * The team routes of better-auth 1.7's organization plugin with teams enabled (docs/http-api/organizations.md#teams).
 * Each checks the shape and makes one call to the organization service with the caller read from the
 * session; the service applies every rule.
 */
import * as z from "zod";
import { call } from "@auth-platform/runtime/rpc";
import { callerOf } from "../http/caller.js";
import { defineRoute, type Route } from "../http/define-route.js";
import { messageSchema, teamMemberSchema, teamSchema } from "../http/public-schemas.js";
import type { RouteDeps } from "./deps.js";
import { publicTeam, publicTeamMember } from "./responses.js";

const id = z.string().min(1).max(64);
const name = z.string().min(1).max(255);

export const createTeamBody = z.object({ name, organizationId: id.optional() });
/** data.organizationId names the organization the team must belong to: a team never moves between organizations. */
export const updateTeamBody = z.object({ teamId: id, data: z.object({ name: name.optional(), organizationId: id.optional() }) });
export const teamIdBody = z.object({ teamId: id, organizationId: id.optional() });
export const setActiveTeamBody = z.object({ teamId: id.nullish() });
export const teamsQuery = z.looseObject({ organizationId: id.optional() });
export const userTeamsQuery = z.looseObject({ userId: id.optional(), organizationId: id.optional() });
export const teamMembersQuery = z.looseObject({ teamId: id.optional() });
export const teamMemberBody = z.object({ teamId: id, userId: z.coerce.string().min(1).max(64), organizationId: id.optional() });

export function teamRoutes(deps: RouteDeps): Route[] {
  const organization = deps.clients.organization;
  return [
    defineRoute(
      {
        method: "post",
        path: "/organization/create-team",
        tag: "Organizations",
        session: "required",
        summary: "Create a team in an organization",
        body: createTeamBody,
        response: teamSchema,
        errors: [
          "NO_ACTIVE_ORGANIZATION",
          "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
          "YOU_ARE_NOT_ALLOWED_TO_CREATE_TEAMS_IN_THIS_ORGANIZATION",
          "TEAM_ALREADY_EXISTS",
          "YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_TEAMS",
        ],
      },
      async ({ req, body, session, json }) => {
        const { team } = await call(organization, organization.createTeam, { caller: callerOf(req, session), name: body.name, organizationId: body.organizationId });
        json(publicTeam(team!));
      },
    ),
    defineRoute(
      {
        method: "get",
        path: "/organization/list-teams",
        tag: "Organizations",
        session: "required",
        summary: "An organization's teams",
        query: teamsQuery,
        response: z.array(teamSchema),
        errors: ["NO_ACTIVE_ORGANIZATION", "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION"],
      },
      async ({ req, query, session, json }) => {
        const { teams } = await call(organization, organization.listTeams, { caller: callerOf(req, session), organizationId: query.organizationId });
        json(teams.map(publicTeam));
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/organization/update-team",
        tag: "Organizations",
        session: "required",
        summary: "Rename a team",
        body: updateTeamBody,
        response: teamSchema,
        errors: ["TEAM_NOT_FOUND", "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM", "TEAM_ALREADY_EXISTS"],
      },
      async ({ req, body, session, json }) => {
        const { team } = await call(organization, organization.updateTeam, {
          caller: callerOf(req, session),
          teamId: body.teamId,
          name: body.data.name,
          organizationId: body.data.organizationId,
        });
        json(publicTeam(team!));
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/organization/remove-team",
        tag: "Organizations",
        session: "required",
        summary: "Delete a team",
        body: teamIdBody,
        response: messageSchema,
        errors: ["TEAM_NOT_FOUND", "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM"],
      },
      async ({ req, body, session, json }) => {
        await call(organization, organization.removeTeam, { caller: callerOf(req, session), teamId: body.teamId, organizationId: body.organizationId });
        json({ message: "Team removed successfully." });
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/organization/set-active-team",
        tag: "Organizations",
        session: "required",
        summary: "Set (or with a null teamId, clear) the session's active team",
        body: setActiveTeamBody,
        response: teamSchema.nullable(),
        errors: ["TEAM_NOT_FOUND", "USER_IS_NOT_A_MEMBER_OF_THE_TEAM"],
      },
      async ({ req, body, session, json }) => {
        const { team } = await call(organization, organization.setActiveTeam, { caller: callerOf(req, session), teamId: body.teamId ?? undefined });
        json(team ? publicTeam(team) : null);
      },
    ),
    defineRoute(
      {
        method: "get",
        path: "/organization/list-user-teams",
        tag: "Organizations",
        session: "required",
        summary: "The teams the signed-in user (or, for an admin, a member) belongs to",
        query: userTeamsQuery,
        response: z.array(teamSchema),
        errors: ["NO_ACTIVE_ORGANIZATION", "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", "YOU_CAN_NOT_ACCESS_THE_MEMBERS_OF_THIS_TEAM"],
      },
      async ({ req, query, session, json }) => {
        const { teams } = await call(organization, organization.listUserTeams, { caller: callerOf(req, session), userId: query.userId, organizationId: query.organizationId });
        json(teams.map(publicTeam));
      },
    ),
    defineRoute(
      {
        method: "get",
        path: "/organization/list-team-members",
        tag: "Organizations",
        session: "required",
        summary: "A team's members (default the active team)",
        query: teamMembersQuery,
        response: z.array(teamMemberSchema),
        errors: ["YOU_DO_NOT_HAVE_AN_ACTIVE_TEAM", "TEAM_NOT_FOUND", "YOU_CAN_NOT_ACCESS_THE_MEMBERS_OF_THIS_TEAM"],
      },
      async ({ req, query, session, json }) => {
        const { members } = await call(organization, organization.listTeamMembers, { caller: callerOf(req, session), teamId: query.teamId });
        json(members.map(publicTeamMember));
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/organization/add-team-member",
        tag: "Organizations",
        session: "required",
        summary: "Add a member of the organization to a team",
        body: teamMemberBody,
        response: teamMemberSchema,
        errors: ["TEAM_NOT_FOUND", "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_TEAM_MEMBER", "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", "TEAM_MEMBER_LIMIT_REACHED"],
      },
      async ({ req, body, session, json }) => {
        const { member } = await call(organization, organization.addTeamMember, {
          caller: callerOf(req, session),
          teamId: body.teamId,
          userId: body.userId,
          organizationId: body.organizationId,
        });
        json(publicTeamMember(member!));
      },
    ),
    defineRoute(
      {
        method: "post",
        path: "/organization/remove-team-member",
        tag: "Organizations",
        session: "required",
        summary: "Remove a user from a team (anyone themselves)",
        body: teamMemberBody,
        response: messageSchema,
        errors: ["TEAM_NOT_FOUND", "YOU_ARE_NOT_ALLOWED_TO_REMOVE_A_TEAM_MEMBER", "USER_IS_NOT_A_MEMBER_OF_THE_TEAM"],
      },
      async ({ req, body, session, json }) => {
        await call(organization, organization.removeTeamMember, {
          caller: callerOf(req, session),
          teamId: body.teamId,
          userId: body.userId,
          organizationId: body.organizationId,
        });
        json({ message: "Team member removed successfully." });
      },
    ),
  ];
}
