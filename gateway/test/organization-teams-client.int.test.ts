/**
 * better-auth 1.7's organizationClient with teams enabled, driving the whole platform as a browser app would:
 * createTeam, listTeams, updateTeam, removeTeam, setActiveTeam (the session's activeTeamId), listUserTeams,
 * listTeamMembers, addTeamMember, removeTeamMember, the teams of getFullOrganization, and the attacks: a
 * member or a stranger reaching for what the roles do not grant, and what a member's removal does.
 */
import { describe, expect, it } from "vitest";
import { createAuthClient } from "better-auth-1.7/client";
import { organizationClient } from "better-auth-1.7/client/plugins";
import { browserFetch } from "../../testing/browser.js";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { usePlatform } from "../../testing/use-platform.js";
import { uniqueSlug } from "./organization-fixtures.js";

const platform = usePlatform();

describe(`better-auth 1.7 organizationClient with teams (${backendLabel()})`, () => {
  async function signedUp(name: string) {
    const { customFetchImpl } = browserFetch(platform.origin);
    const client = createAuthClient({ baseURL: platform.baseURL, plugins: [organizationClient({ teams: { enabled: true } })], fetchOptions: { customFetchImpl } });
    const email = uniqueEmail(name.toLowerCase());
    const { data, error } = await client.signUp.email({ name, email, password: "password-123" });
    expect(error).toBeNull();
    return { client, email, user: data!.user };
  }
  type Who = Awaited<ReturnType<typeof signedUp>>;
  const activeTeamOf = async (who: Who) => (await who.client.getSession()).data?.session.activeTeamId ?? null;

  /** An organization of Ada's with Grace as an admin and Mia as a member. */
  async function organization() {
    const [ada, grace, mia] = [await signedUp("Ada"), await signedUp("Grace"), await signedUp("Mia")];
    const { data: org } = await ada.client.organization.create({ name: "Engines", slug: uniqueSlug("teams") });
    for (const [who, role] of [
      [grace, "admin"],
      [mia, "member"],
    ] as const) {
      const invited = await ada.client.organization.inviteMember({ email: who.email, role });
      expect((await who.client.organization.acceptInvitation({ invitationId: invited.data!.id })).error).toBeNull();
    }
    return { ada, grace, mia, organizationId: org!.id };
  }

  it("create, list, update, members, the active team, remove", async () => {
    const { ada, grace, mia, organizationId } = await organization();
    const created = await grace.client.organization.createTeam({ name: "Looms", organizationId });
    expect(created.error).toBeNull();
    expect(created.data).toMatchObject({ name: "Looms", organizationId });
    expect(created.data!.createdAt).toBeInstanceOf(Date);
    const teamId = created.data!.id;

    const listed = await mia.client.organization.listTeams({ query: { organizationId } });
    expect(listed.data!.map((t) => t.id)).toEqual([teamId]);
    const full = await ada.client.organization.getFullOrganization({ query: { organizationId } });
    expect((full.data as unknown as { teams: Array<{ id: string }> }).teams.map((t) => t.id)).toEqual([teamId]);

    const updated = await ada.client.organization.updateTeam({ teamId, data: { name: "Mills" } });
    expect(updated.error).toBeNull();
    expect(updated.data).toMatchObject({ id: teamId, name: "Mills" });

    const added = await grace.client.organization.addTeamMember({ teamId, userId: mia.user.id });
    expect(added.error).toBeNull();
    expect(added.data).toMatchObject({ teamId, userId: mia.user.id });
    const members = await mia.client.organization.listTeamMembers({ query: { teamId } });
    expect(members.data!.map((m) => m.userId)).toEqual([mia.user.id]);
    expect((await mia.client.organization.listUserTeams()).data!.map((t) => t.id)).toEqual([teamId]);

    const active = await mia.client.organization.setActiveTeam({ teamId });
    expect(active.error).toBeNull();
    expect(active.data).toMatchObject({ id: teamId });
    expect(await activeTeamOf(mia)).toBe(teamId);
    expect((await mia.client.organization.listTeamMembers()).data!.map((m) => m.userId)).toEqual([mia.user.id]);
    expect((await mia.client.organization.setActiveTeam({ teamId: null })).data).toBeNull();
    expect(await activeTeamOf(mia)).toBeNull();

    await mia.client.organization.setActiveTeam({ teamId });
    const removed = await ada.client.organization.removeTeam({ teamId });
    expect(removed.error).toBeNull();
    expect(removed.data).toMatchObject({ message: expect.any(String) });
    // Deleting the team clears it as anyone's active team.
    expect(await activeTeamOf(mia)).toBeNull();
    expect((await ada.client.organization.listTeams({ query: { organizationId } })).data).toEqual([]);
  });

  it("a member may not manage teams, a stranger learns nothing, a team member leaves on their own", async () => {
    const { ada, grace, mia, organizationId } = await organization();
    const stranger = await signedUp("Eve");
    const refused = await mia.client.organization.createTeam({ name: "Mine", organizationId });
    expect(refused.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_CREATE_TEAMS_IN_THIS_ORGANIZATION" });
    const { data: team } = await ada.client.organization.createTeam({ name: "Looms", organizationId });
    expect((await mia.client.organization.updateTeam({ teamId: team!.id, data: { name: "Mine" } })).error).toMatchObject({
      status: 403,
      code: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM",
    });
    expect((await mia.client.organization.removeTeam({ teamId: team!.id })).error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM" });
    expect((await mia.client.organization.addTeamMember({ teamId: team!.id, userId: mia.user.id })).error).toMatchObject({
      status: 403,
      code: "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_TEAM_MEMBER",
    });
    expect((await mia.client.organization.setActiveTeam({ teamId: team!.id })).error).toMatchObject({ status: 403, code: "USER_IS_NOT_A_MEMBER_OF_THE_TEAM" });
    expect((await mia.client.organization.listTeamMembers({ query: { teamId: team!.id } })).error).toMatchObject({
      status: 403,
      code: "YOU_CAN_NOT_ACCESS_THE_MEMBERS_OF_THIS_TEAM",
    });

    // A stranger's refusals are the same for an existing team and a made-up id.
    for (const teamId of [team!.id, "no-such-team"]) {
      expect((await stranger.client.organization.updateTeam({ teamId, data: { name: "Mine" } })).error).toMatchObject({ status: 400, code: "TEAM_NOT_FOUND" });
      expect((await stranger.client.organization.listTeamMembers({ query: { teamId } })).error).toMatchObject({ status: 400, code: "TEAM_NOT_FOUND" });
      expect((await stranger.client.organization.addTeamMember({ teamId, userId: stranger.user.id })).error).toMatchObject({ status: 400, code: "TEAM_NOT_FOUND" });
    }
    expect((await stranger.client.organization.listTeams({ query: { organizationId } })).error).toMatchObject({ status: 403 });
    expect((await ada.client.organization.addTeamMember({ teamId: team!.id, userId: stranger.user.id })).error).toMatchObject({
      status: 403,
      code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
    });

    await grace.client.organization.addTeamMember({ teamId: team!.id, userId: mia.user.id });
    await grace.client.organization.addTeamMember({ teamId: team!.id, userId: grace.user.id });
    expect((await mia.client.organization.removeTeamMember({ teamId: team!.id, userId: grace.user.id })).error).toMatchObject({
      status: 403,
      code: "YOU_ARE_NOT_ALLOWED_TO_REMOVE_A_TEAM_MEMBER",
    });
    expect((await mia.client.organization.removeTeamMember({ teamId: team!.id, userId: mia.user.id })).error).toBeNull();
    expect((await ada.client.organization.listTeamMembers({ query: { teamId: team!.id } })).data!.map((m) => m.userId)).toEqual([grace.user.id]);
  });

  it("a member removed from the organization leaves its teams and their active team", async () => {
    const { ada, mia, organizationId } = await organization();
    const { data: team } = await ada.client.organization.createTeam({ name: "Looms", organizationId });
    await ada.client.organization.addTeamMember({ teamId: team!.id, userId: mia.user.id });
    await mia.client.organization.setActiveTeam({ teamId: team!.id });
    expect(await activeTeamOf(mia)).toBe(team!.id);
    expect((await ada.client.organization.removeMember({ memberIdOrEmail: mia.email, organizationId })).error).toBeNull();
    expect(await activeTeamOf(mia)).toBeNull();
    expect((await ada.client.organization.listTeamMembers({ query: { teamId: team!.id } })).data).toEqual([]);
    expect((await mia.client.organization.listUserTeams()).data).toEqual([]);
  });
});
