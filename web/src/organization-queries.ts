/**
 * The organization reads the header's switcher and the organizations page share, and the one refresh after
 * a change: the caller's organizations, the active one with its members, and the session (which names the
 * active one), so every part of the page follows a switch made in any of them.
 */
import { type QueryClient, queryOptions } from "@tanstack/react-query";
import { api } from "./api";
import { sessionQuery } from "./session";

export const organizationsQuery = (userId: string | undefined) => queryOptions({ queryKey: ["organizations", userId], queryFn: api.organization.list, enabled: Boolean(userId) });

export const activeOrganizationQuery = queryOptions({ queryKey: ["organization", "active"], queryFn: api.organization.getFull });

/** The caller's teams in the organization (which ones they may set active and read the members of). */
export const myTeamsQuery = (organizationId: string) =>
  queryOptions({ queryKey: ["organization", "teams", organizationId, "mine"], queryFn: () => api.organization.listUserTeams(organizationId) });

/** A team's members' places. */
export const teamMembersQuery = (teamId: string) =>
  queryOptions({ queryKey: ["organization", "team", teamId, "members"], queryFn: () => api.organization.listTeamMembers(teamId) });

/** After a change to the caller's organizations or to which one is active: read them all again. */
export const refreshOrganizations = (queryClient: QueryClient) =>
  Promise.all([
    queryClient.invalidateQueries({ queryKey: ["organizations"] }),
    queryClient.invalidateQueries({ queryKey: ["organization"] }),
    queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey }),
  ]);
