/** Member use cases: removal, roles, leaving, the only-owner rules, permission checks, pages. */
import { describe, expect, it } from "vitest";
import { acceptInvitation, inviteMember } from "./invitations.js";
import { addMember, getActiveMember, hasPermission, leaveOrganization, listMembers, removeMember, removeUserMembership, updateMemberRole } from "./members.js";
import { createOrganization, getFullOrganization } from "./organizations.js";
import type { Caller } from "./ports.js";
import { DEFAULT_ROLES } from "./roles.js";
import { aUser, type TestRegistry, testRegistry } from "../../test/test-registry.js";
import { errorCode } from "../../../../testing/error-code.js";

async function setUp(deps: TestRegistry, adminRole = "admin") {
  const owner = aUser(deps, "Ada");
  const { organization } = await createOrganization(deps, { caller: owner.caller(), name: "Engines", slug: "engines", metadata: {} });
  const join = async (role: string, name: string) => {
    deps.advance(1000);
    const user = aUser(deps, name);
    const invitation = await inviteMember(deps, owner.caller(), { email: user.user.email, role, organizationId: organization.id, resend: false });
    const { member } = await acceptInvitation(deps, user.caller(), invitation.id);
    return { ...user, member };
  };
  const ownerMember = (await deps.store.findMember(organization.id, owner.user.id))!;
  return { owner, ownerMember, organization, admin: await join(adminRole, "Admin"), member: await join("member", "Member"), join };
}

describe("members", () => {
  it("the sso service adds a member with a known role once, keeps an existing member's role, and removes them", async () => {
    const deps = testRegistry();
    const { owner, organization } = await setUp(deps);
    const newcomer = aUser(deps, "Newcomer");
    const first = await addMember(deps, { organizationId: organization.id, userId: newcomer.user.id, role: "member" });
    expect(first.created).toBe(true);
    expect(await addMember(deps, { organizationId: organization.id, userId: newcomer.user.id, role: "admin" })).toEqual({ member: first.member, created: false });
    // A sign-in through the provider never demotes an owner.
    expect((await addMember(deps, { organizationId: organization.id, userId: owner.user.id, role: "member" })).member.role).toBe("owner");
    expect(await errorCode(addMember(deps, { organizationId: organization.id, userId: newcomer.user.id, role: "superuser" }))).toBe("ROLE_NOT_FOUND");
    expect(await errorCode(addMember(deps, { organizationId: "nope", userId: newcomer.user.id, role: "member" }))).toBe("ORGANIZATION_NOT_FOUND");
    expect(await errorCode(addMember(deps, { organizationId: organization.id, userId: "ghost", role: "member" }))).toBe("USER_NOT_FOUND");
    expect(await deps.store.findMember(organization.id, "ghost")).toBeNull();
    expect(await removeUserMembership(deps, { organizationId: organization.id, userId: newcomer.user.id })).toBe(true);
    expect(await removeUserMembership(deps, { organizationId: organization.id, userId: newcomer.user.id })).toBe(false);
    expect(await errorCode(removeUserMembership(deps, { organizationId: organization.id, userId: owner.user.id }))).toBe("YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER");
  });

  it("the only owner can neither leave, be removed nor be demoted; with a second owner it can", async () => {
    const deps = testRegistry();
    const { owner, ownerMember, organization, join } = await setUp(deps);
    expect(await errorCode(leaveOrganization(deps, owner.caller(), organization.id))).toBe("YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER");
    expect(await errorCode(removeMember(deps, owner.caller(), { memberIdOrEmail: owner.user.email }))).toBe("YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER");
    expect(await errorCode(updateMemberRole(deps, owner.caller(), { memberId: ownerMember.id, role: "admin" }))).toBe("YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER");
    await join("owner", "Second");
    expect((await leaveOrganization(deps, owner.caller(), organization.id)).id).toBe(ownerMember.id);
    expect(owner.active()).toBeNull();
  });

  it("anyone removes themselves; removing others needs member delete; only owners remove owners", async () => {
    const deps = testRegistry();
    const { owner, ownerMember, admin, member } = await setUp(deps);
    expect(await errorCode(removeMember(deps, member.caller(), { memberIdOrEmail: admin.member.id }))).toBe("YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER");
    expect(await errorCode(removeMember(deps, admin.caller(), { memberIdOrEmail: ownerMember.id }))).toBe("YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER");
    expect((await removeMember(deps, member.caller(), { memberIdOrEmail: member.member.id })).userId).toBe(member.user.id);
    expect(member.active()).toBeNull();
    expect((await removeMember(deps, owner.caller(), { memberIdOrEmail: admin.user.email })).userId).toBe(admin.user.id);
    expect(admin.active()).toBeNull();
    expect(await errorCode(removeMember(deps, owner.caller(), { memberIdOrEmail: "nobody@example.com" }))).toBe("MEMBER_NOT_FOUND");
  });

  it("answers the removed member with its user, named by member id or by email, in one identity call", async () => {
    const deps = testRegistry();
    const { owner, admin, member } = await setUp(deps);
    let calls = deps.userCalls;
    expect(await removeMember(deps, owner.caller(), { memberIdOrEmail: member.member.id })).toEqual({ ...member.member, user: member.user });
    expect(deps.userCalls - calls).toBe(1);
    calls = deps.userCalls;
    expect(await removeMember(deps, owner.caller(), { memberIdOrEmail: admin.user.email.toUpperCase() })).toEqual({ ...admin.member, user: admin.user });
    expect(deps.userCalls - calls).toBe(1);
  });

  it("by email, an unregistered address and a registered non-member do the same store and identity calls (no timing enumeration)", async () => {
    const deps = testRegistry();
    const { owner } = await setUp(deps);
    const outsider = aUser(deps, "Outsider");
    const calls: string[] = [];
    const store = deps.store as unknown as Record<string, unknown>;
    for (const [name, method] of Object.entries(store)) {
      if (typeof method === "function")
        store[name] = (...args: unknown[]) => {
          calls.push(name);
          return (method as (...a: unknown[]) => unknown).apply(deps.store, args);
        };
    }
    const workFor = async (email: string) => {
      calls.length = 0;
      const identityBefore = deps.userCalls;
      expect(await errorCode(removeMember(deps, owner.caller(), { memberIdOrEmail: email }))).toBe("MEMBER_NOT_FOUND");
      return { store: [...calls], identity: deps.userCalls - identityBefore };
    };
    const registered = await workFor(outsider.user.email);
    expect(registered.store).toContain("findMember");
    expect(await workFor("nobody@example.com")).toEqual(registered);
  });

  it("role changes need member update; only owners grant or take the owner role; unknown roles refused", async () => {
    const deps = testRegistry();
    const { owner, ownerMember, admin, member } = await setUp(deps);
    expect(await errorCode(updateMemberRole(deps, member.caller(), { memberId: admin.member.id, role: "member" }))).toBe("YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER");
    expect(await errorCode(updateMemberRole(deps, admin.caller(), { memberId: member.member.id, role: "owner" }))).toBe("YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER");
    expect(await errorCode(updateMemberRole(deps, admin.caller(), { memberId: ownerMember.id, role: "member" }))).toBe("YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER");
    expect(await errorCode(updateMemberRole(deps, owner.caller(), { memberId: member.member.id, role: "wizard" }))).toBe("ROLE_NOT_FOUND");
    expect((await updateMemberRole(deps, admin.caller(), { memberId: member.member.id, role: "admin" })).role).toBe("admin");
  });

  it("the full organization says what its reader may do, by the rules the calls check", async () => {
    const deps = testRegistry();
    const { owner, ownerMember, admin, member } = await setUp(deps);
    const everyone = [ownerMember.id, admin.member.id, member.member.id];
    const accessOf = async (who: { caller: () => Caller }) => (await getFullOrganization(deps, who.caller(), {}))!.access;
    expect(await accessOf(owner)).toEqual({
      role: "owner",
      updateOrganization: true,
      deleteOrganization: true,
      invite: true,
      cancelInvitations: true,
      assignableRoles: ["owner", "admin", "member"],
      updatableMemberIds: everyone,
      removableMemberIds: everyone,
      ownerRole: "owner",
      manageTeams: true,
      roleActions: ["create", "read", "update", "delete"],
    });
    // An admin is offered neither the owner role nor the owner.
    expect(await accessOf(admin)).toEqual({
      role: "admin",
      updateOrganization: true,
      deleteOrganization: false,
      invite: true,
      cancelInvitations: true,
      assignableRoles: ["admin", "member"],
      updatableMemberIds: [admin.member.id, member.member.id],
      removableMemberIds: [admin.member.id, member.member.id],
      ownerRole: "owner",
      manageTeams: true,
      roleActions: ["create", "read", "update", "delete"],
    });
    // A member manages no one: they may only leave.
    expect(await accessOf(member)).toEqual({
      role: "member",
      updateOrganization: false,
      deleteOrganization: false,
      invite: false,
      cancelInvitations: false,
      assignableRoles: ["member"],
      updatableMemberIds: [],
      removableMemberIds: [member.member.id],
      ownerRole: "owner",
      manageTeams: false,
      roleActions: [],
    });
    // What it offers is accepted, what it leaves out refused.
    expect((await updateMemberRole(deps, admin.caller(), { memberId: member.member.id, role: "admin" })).role).toBe("admin");
    expect(await errorCode(updateMemberRole(deps, admin.caller(), { memberId: ownerMember.id, role: "admin" }))).toBe("YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER");
    expect(await errorCode(removeMember(deps, admin.caller(), { memberIdOrEmail: ownerMember.id }))).toBe("YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER");
  });

  it("with configured roles, the roles offered are those granting nothing beyond the reader's own; deletion off is not offered", async () => {
    const roles = { owner: DEFAULT_ROLES.owner!, manager: { member: ["update"] }, billing: { organization: ["update"] }, member: {} };
    const deps = testRegistry({ ORGANIZATION_ROLES: JSON.stringify(roles), ORGANIZATION_DELETE_ENABLED: "false" });
    const { owner, admin: manager } = await setUp(deps, "manager");
    expect((await getFullOrganization(deps, manager.caller(), {}))!.access.assignableRoles).toEqual(["manager", "member"]);
    expect((await getFullOrganization(deps, owner.caller(), {}))!.access).toMatchObject({ deleteOrganization: false, assignableRoles: ["owner", "manager", "billing", "member"] });
  });

  it("answers has-permission from the role matrix, configurable", async () => {
    const deps = testRegistry({ ORGANIZATION_ROLES: JSON.stringify({ owner: { organization: ["update", "delete"] }, member: { invitation: ["create"] } }) });
    const owner = aUser(deps);
    await createOrganization(deps, { caller: owner.caller(), name: "x", slug: "x", metadata: {} });
    expect(await hasPermission(deps, owner.caller(), { permissions: { organization: ["delete"] } })).toBe(true);
    expect(await hasPermission(deps, owner.caller(), { permissions: { member: ["delete"] } })).toBe(false);
    expect(await errorCode(hasPermission(deps, aUser(deps).caller(), { permissions: { member: ["delete"] } }))).toBe("NO_ACTIVE_ORGANIZATION");
  });

  it("pages members and reads the active member", async () => {
    const deps = testRegistry();
    const { owner, organization } = await setUp(deps);
    const page = await listMembers(deps, owner.caller(), { limit: 2, offset: 1 });
    expect(page.total).toBe(3);
    expect(page.members.map((m) => m.user?.name)).toEqual(["Admin", "Member"]);
    expect(await getActiveMember(deps, owner.caller(), {})).toMatchObject({ organizationId: organization.id, role: "owner", user: owner.user });
    expect(await errorCode(getActiveMember(deps, aUser(deps).caller(), {}))).toBe("NO_ACTIVE_ORGANIZATION");
  });
});
