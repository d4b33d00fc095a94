/** Team use cases: who may do what, limits, the active team, and what a member's removal does to their teams. */
import { describe, expect, it } from "vitest";
import { acceptInvitation, inviteMember } from "./invitations.js";
import { leaveOrganization, removeMember } from "./members.js";
import { createOrganization, deleteOrganization } from "./organizations.js";
import { addTeamMember, createTeam, getTeam, listTeamMembers, listTeams, listUserTeams, removeTeam, removeTeamMember, setActiveTeam, updateTeam } from "./teams.js";
import { aUser, type TestRegistry, testRegistry } from "../../test/test-registry.js";
import { errorCode } from "../../../../testing/error-code.js";

async function setUp(deps: TestRegistry) {
  const owner = aUser(deps, "Ada");
  const { organization } = await createOrganization(deps, { caller: owner.caller(), name: "Engines", slug: "engines", metadata: {} });
  const join = async (role: string, name: string) => {
    deps.advance(1000);
    const user = aUser(deps, name);
    const invitation = await inviteMember(deps, owner.caller(), { email: user.user.email, role, organizationId: organization.id, resend: false });
    await acceptInvitation(deps, user.caller(), invitation.id);
    return user;
  };
  const admin = await join("admin", "Admin");
  const member = await join("member", "Member");
  const outsider = aUser(deps, "Eve");
  await createOrganization(deps, { caller: outsider.caller(), name: "Elsewhere", slug: "elsewhere", metadata: {}, keepActiveOrganization: true });
  return { owner, admin, member, outsider, organization };
}

describe("teams", () => {
  it("owners and admins create, rename and delete teams; members may not", async () => {
    const deps = testRegistry();
    const { owner, admin, member, organization } = await setUp(deps);
    const team = await createTeam(deps, owner.caller(), { name: "  Looms  " });
    expect(team).toMatchObject({ organizationId: organization.id, name: "Looms" });
    expect(await errorCode(createTeam(deps, member.caller(), { name: "Mine", organizationId: organization.id }))).toBe("YOU_ARE_NOT_ALLOWED_TO_CREATE_TEAMS_IN_THIS_ORGANIZATION");
    expect(await errorCode(createTeam(deps, admin.caller(), { name: "Looms", organizationId: organization.id }))).toBe("TEAM_ALREADY_EXISTS");
    expect(await errorCode(createTeam(deps, admin.caller(), { name: "   ", organizationId: organization.id }))).toBe("VALIDATION_ERROR");
    expect(await errorCode(updateTeam(deps, member.caller(), { teamId: team.id, name: "Mills" }))).toBe("YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM");
    deps.advance(5000);
    const renamed = await updateTeam(deps, admin.caller(), { teamId: team.id, name: "Mills" });
    expect(renamed).toMatchObject({ name: "Mills", createdAt: team.createdAt, updatedAt: deps.now() });
    expect(await errorCode(removeTeam(deps, member.caller(), { teamId: team.id }))).toBe("YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM");
    expect(await listTeams(deps, member.caller(), organization.id)).toEqual([renamed]);
    await removeTeam(deps, admin.caller(), { teamId: team.id });
    expect(await listTeams(deps, owner.caller(), organization.id)).toEqual([]);
  });

  it("a non-member learns nothing: another organization's team is not found, its teams not listed", async () => {
    const deps = testRegistry();
    const { owner, outsider, organization } = await setUp(deps);
    const team = await createTeam(deps, owner.caller(), { name: "Looms", organizationId: organization.id });
    const missing = "no-such-team";
    for (const teamId of [team.id, missing]) {
      expect(await errorCode(updateTeam(deps, outsider.caller(), { teamId, name: "Mine" }))).toBe("TEAM_NOT_FOUND");
      expect(await errorCode(removeTeam(deps, outsider.caller(), { teamId }))).toBe("TEAM_NOT_FOUND");
      expect(await errorCode(addTeamMember(deps, outsider.caller(), { teamId, userId: outsider.user.id }))).toBe("TEAM_NOT_FOUND");
      expect(await errorCode(listTeamMembers(deps, outsider.caller(), teamId))).toBe("TEAM_NOT_FOUND");
      expect(await errorCode(setActiveTeam(deps, outsider.caller(), teamId))).toBe("TEAM_NOT_FOUND");
      expect(await getTeam(deps, outsider.caller(), { teamId })).toBeNull();
    }
    expect(await errorCode(listTeams(deps, outsider.caller(), organization.id))).toBe("USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION");
    expect(await errorCode(createTeam(deps, outsider.caller(), { name: "Mine", organizationId: organization.id }))).toBe("USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION");
    // A team named with another organization's id is not that organization's.
    expect(await errorCode(updateTeam(deps, owner.caller(), { teamId: team.id, name: "x", organizationId: "another-organization" }))).toBe("TEAM_NOT_FOUND");
  });

  it("places: admins add members of the organization only; anyone leaves a team; removing others needs member delete", async () => {
    const deps = testRegistry();
    const { owner, admin, member, outsider, organization } = await setUp(deps);
    const team = await createTeam(deps, owner.caller(), { name: "Looms", organizationId: organization.id });
    expect(await errorCode(addTeamMember(deps, member.caller(), { teamId: team.id, userId: member.user.id }))).toBe("YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_TEAM_MEMBER");
    expect(await errorCode(addTeamMember(deps, admin.caller(), { teamId: team.id, userId: outsider.user.id }))).toBe("USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION");
    const place = await addTeamMember(deps, admin.caller(), { teamId: team.id, userId: member.user.id });
    expect(await addTeamMember(deps, admin.caller(), { teamId: team.id, userId: member.user.id })).toEqual(place);
    deps.advance(1000);
    await addTeamMember(deps, admin.caller(), { teamId: team.id, userId: owner.user.id });
    expect((await listTeamMembers(deps, member.caller(), team.id)).map((p) => p.userId)).toEqual([member.user.id, owner.user.id]);
    expect(await listUserTeams(deps, member.caller(), {})).toEqual([team]);
    expect(await listUserTeams(deps, admin.caller(), {})).toEqual([]);
    expect(await listUserTeams(deps, admin.caller(), { userId: member.user.id, organizationId: organization.id })).toEqual([team]);
    expect(await errorCode(listUserTeams(deps, member.caller(), { userId: owner.user.id, organizationId: organization.id }))).toBe("YOU_CAN_NOT_ACCESS_THE_MEMBERS_OF_THIS_TEAM");
    expect(await errorCode(removeTeamMember(deps, member.caller(), { teamId: team.id, userId: owner.user.id }))).toBe("YOU_ARE_NOT_ALLOWED_TO_REMOVE_A_TEAM_MEMBER");
    await removeTeamMember(deps, member.caller(), { teamId: team.id, userId: member.user.id });
    expect(await errorCode(removeTeamMember(deps, admin.caller(), { teamId: team.id, userId: member.user.id }))).toBe("USER_IS_NOT_A_MEMBER_OF_THE_TEAM");
    // A member outside the team may not read its members; an admin may.
    expect(await errorCode(listTeamMembers(deps, member.caller(), team.id))).toBe("YOU_CAN_NOT_ACCESS_THE_MEMBERS_OF_THIS_TEAM");
    expect(await listTeamMembers(deps, admin.caller(), team.id)).toHaveLength(1);
  });

  it("keeps the configured limits", async () => {
    const deps = testRegistry({ ORGANIZATION_TEAM_LIMIT: "1", ORGANIZATION_TEAM_MEMBER_LIMIT: "1" });
    const { owner, member, organization } = await setUp(deps);
    const team = await createTeam(deps, owner.caller(), { name: "Looms", organizationId: organization.id });
    expect(await errorCode(createTeam(deps, owner.caller(), { name: "Mills", organizationId: organization.id }))).toBe("YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_TEAMS");
    await addTeamMember(deps, owner.caller(), { teamId: team.id, userId: owner.user.id });
    expect(await errorCode(addTeamMember(deps, owner.caller(), { teamId: team.id, userId: member.user.id }))).toBe("TEAM_MEMBER_LIMIT_REACHED");
    expect(deps.config).toMatchObject({ teamLimit: 1, teamMemberLimit: 1 });
    expect(testRegistry().config).toMatchObject({ teamLimit: 100, teamMemberLimit: 10_000 });
  });

  it("the active team: only a member of it sets it; its deletion, the place's removal and leaving the organization clear it", async () => {
    const deps = testRegistry();
    const { owner, admin, member, organization } = await setUp(deps);
    const team = await createTeam(deps, owner.caller(), { name: "Looms", organizationId: organization.id });
    expect(await errorCode(setActiveTeam(deps, member.caller(), team.id))).toBe("USER_IS_NOT_A_MEMBER_OF_THE_TEAM");
    expect(await errorCode(listTeamMembers(deps, member.caller()))).toBe("YOU_DO_NOT_HAVE_AN_ACTIVE_TEAM");
    for (const user of [member, admin]) await addTeamMember(deps, owner.caller(), { teamId: team.id, userId: user.user.id });
    expect(await setActiveTeam(deps, member.caller(), team.id)).toEqual(team);
    expect([member.active(), member.activeTeam()]).toEqual([organization.id, team.id]);
    expect(await listTeamMembers(deps, member.caller())).toHaveLength(2);
    await setActiveTeam(deps, admin.caller(), team.id);
    // Leaving the team clears it as that user's active team only.
    await removeTeamMember(deps, owner.caller(), { teamId: team.id, userId: admin.user.id });
    expect([admin.activeTeam(), member.activeTeam()]).toEqual([null, team.id]);
    expect(await setActiveTeam(deps, member.caller(), undefined)).toBeNull();
    expect(member.activeTeam()).toBeNull();
    await setActiveTeam(deps, member.caller(), team.id);
    await removeTeam(deps, owner.caller(), { teamId: team.id });
    expect(member.activeTeam()).toBeNull();
    // Leaving the organization takes the member's places and clears the active team with the organization.
    const second = await createTeam(deps, owner.caller(), { name: "Mills", organizationId: organization.id });
    await addTeamMember(deps, owner.caller(), { teamId: second.id, userId: member.user.id });
    await setActiveTeam(deps, member.caller(), second.id);
    await leaveOrganization(deps, member.caller(), organization.id);
    expect([member.active(), member.activeTeam()]).toEqual([null, null]);
    expect(await listTeamMembers(deps, owner.caller(), second.id)).toEqual([]);
  });

  it("a removal the session service fails is undone whole: the member keeps their teams", async () => {
    const deps = testRegistry();
    const { owner, member, organization } = await setUp(deps);
    const team = await createTeam(deps, owner.caller(), { name: "Looms", organizationId: organization.id });
    await addTeamMember(deps, owner.caller(), { teamId: team.id, userId: member.user.id });
    deps.sessionsDown = true;
    expect(await errorCode(removeMember(deps, owner.caller(), { memberIdOrEmail: member.user.email, organizationId: organization.id }))).toBe("SERVICE_UNAVAILABLE");
    expect(await errorCode(removeTeamMember(deps, owner.caller(), { teamId: team.id, userId: member.user.id }))).toBe("SERVICE_UNAVAILABLE");
    expect(await errorCode(removeTeam(deps, owner.caller(), { teamId: team.id }))).toBe("SERVICE_UNAVAILABLE");
    expect((await listTeamMembers(deps, owner.caller(), team.id)).map((p) => p.userId)).toEqual([member.user.id]);
    deps.sessionsDown = false;
    await removeMember(deps, owner.caller(), { memberIdOrEmail: member.user.email, organizationId: organization.id });
    expect(await listTeamMembers(deps, owner.caller(), team.id)).toEqual([]);
  });

  it("deleting the organization deletes its teams", async () => {
    const deps = testRegistry();
    const { owner, organization } = await setUp(deps);
    const team = await createTeam(deps, owner.caller(), { name: "Looms", organizationId: organization.id });
    await deleteOrganization(deps, owner.caller(), organization.id);
    expect(await deps.store.findTeam(team.id)).toBeNull();
  });

  it("a trusted workload (no caller) acts for the organization it names: by id and by name", async () => {
    const deps = testRegistry();
    const { owner, member, organization } = await setUp(deps);
    expect(await errorCode(createTeam(deps, undefined, { name: "Looms" }))).toBe("VALIDATION_ERROR");
    expect(await errorCode(createTeam(deps, undefined, { name: "Looms", organizationId: "no-such-organization" }))).toBe("ORGANIZATION_NOT_FOUND");
    const team = await createTeam(deps, undefined, { name: "Looms", organizationId: organization.id });
    expect(await getTeam(deps, undefined, { organizationId: organization.id, name: "Looms" })).toEqual(team);
    expect(await getTeam(deps, undefined, { teamId: team.id })).toEqual(team);
    expect(await getTeam(deps, undefined, { teamId: team.id, organizationId: "another" })).toBeNull();
    await addTeamMember(deps, undefined, { teamId: team.id, userId: member.user.id, organizationId: organization.id });
    expect(await updateTeam(deps, undefined, { teamId: team.id, name: "Mills" })).toMatchObject({ name: "Mills" });
    expect(await listTeams(deps, undefined, organization.id)).toHaveLength(1);
    await removeTeamMember(deps, undefined, { teamId: team.id, userId: member.user.id });
    await removeTeam(deps, undefined, { teamId: team.id, organizationId: organization.id });
    expect(await listTeams(deps, owner.caller(), organization.id)).toEqual([]);
  });
});
