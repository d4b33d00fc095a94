/**
 * Custom roles: who may define, change, read and delete them, the escalation rules, deleting a role in use,
 * and a custom role granting (and not granting) each permission at every point the built-in roles are checked.
 */
import { describe, expect, it } from "vitest";
import { newId } from "@auth-platform/runtime/random";
import { createRole, deleteRole, getRole, listRoles, updateRole } from "./custom-roles.js";
import { acceptInvitation, cancelInvitation, inviteMember } from "./invitations.js";
import { hasPermission, removeMember, updateMemberRole } from "./members.js";
import { createOrganization, deleteOrganization, getFullOrganization, updateOrganization } from "./organizations.js";
import { RESOURCES, type Resource } from "./roles.js";
import { addTeamMember, createTeam, listTeamMembers, removeTeam, removeTeamMember, updateTeam } from "./teams.js";
import { aUser, type TestRegistry, testRegistry } from "../../test/test-registry.js";
import { errorCode } from "../../../../testing/error-code.js";

async function setUp(deps: TestRegistry) {
  const owner = aUser(deps, "Ada");
  const { organization } = await createOrganization(deps, { caller: owner.caller(), name: "Engines", slug: `engines-${newId().toLowerCase()}`, metadata: {} });
  /** A new member holding `role`, invited by the owner. */
  const join = async (role: string, name = "Member") => {
    deps.advance(1000);
    const user = aUser(deps, name);
    const invitation = await inviteMember(deps, owner.caller(), { email: user.user.email, role, organizationId: organization.id, resend: false });
    const { member } = await acceptInvitation(deps, user.caller(), invitation.id);
    return { ...user, member };
  };
  const define = (name: string, permissions: Record<string, string[]>) => createRole(deps, owner.caller(), { organizationId: organization.id, name, permissions });
  return { owner, organization, join, define };
}

describe("custom roles", () => {
  it("an owner defines, reads, renames, changes and deletes a role; names are lower-cased and unique", async () => {
    const deps = testRegistry();
    const { owner, organization, define } = await setUp(deps);
    const role = await define("Support", { member: ["update"], invitation: ["cancel", "create", "create"] });
    expect(role).toMatchObject({ organizationId: organization.id, name: "support", permissions: { member: ["update"], invitation: ["create", "cancel"] }, updatedAt: null });
    expect(await listRoles(deps, owner.caller(), { organizationId: organization.id })).toEqual([role]);
    expect(await getRole(deps, owner.caller(), { organizationId: organization.id, ref: { name: "SUPPORT" } })).toEqual(role);
    expect(await getRole(deps, owner.caller(), { organizationId: organization.id, ref: { id: role.id } })).toEqual(role);
    expect(await errorCode(define("support", {}))).toBe("ROLE_NAME_IS_ALREADY_TAKEN");

    deps.advance(1000);
    const renamed = await updateRole(deps, owner.caller(), { organizationId: organization.id, ref: { id: role.id }, name: "helpdesk", permissions: { member: ["delete"] } });
    expect(renamed).toMatchObject({ id: role.id, name: "helpdesk", permissions: { member: ["delete"] }, updatedAt: deps.now() });
    expect(await errorCode(getRole(deps, owner.caller(), { organizationId: organization.id, ref: { name: "support" } }))).toBe("ROLE_NOT_FOUND");

    await deleteRole(deps, owner.caller(), { organizationId: organization.id, ref: { name: "helpdesk" } });
    expect(await listRoles(deps, owner.caller(), { organizationId: organization.id })).toEqual([]);
    expect(await errorCode(deleteRole(deps, owner.caller(), { organizationId: organization.id, ref: { id: role.id } }))).toBe("ROLE_NOT_FOUND");
  });

  it("built-in role names are reserved: not created, not renamed to, not deleted", async () => {
    const deps = testRegistry();
    const { owner, organization, define } = await setUp(deps);
    for (const name of ["owner", "Admin", "member"]) expect(await errorCode(define(name, {}))).toBe("ROLE_NAME_IS_ALREADY_TAKEN");
    const role = await define("billing", {});
    expect(await errorCode(updateRole(deps, owner.caller(), { organizationId: organization.id, ref: { id: role.id }, name: "owner" }))).toBe("ROLE_NAME_IS_ALREADY_TAKEN");
    expect(await errorCode(deleteRole(deps, owner.caller(), { organizationId: organization.id, ref: { name: "admin" } }))).toBe("CANNOT_DELETE_A_PRE_DEFINED_ROLE");
    expect(await errorCode(updateRole(deps, owner.caller(), { organizationId: organization.id, ref: { name: "admin" }, permissions: {} }))).toBe("ROLE_NOT_FOUND");
  });

  it("refuses resources and actions outside the platform's list", async () => {
    const deps = testRegistry();
    const { owner, organization, define } = await setUp(deps);
    expect(await errorCode(define("a", { billing: ["read"] }))).toBe("INVALID_RESOURCE");
    expect(await errorCode(define("b", { member: ["read"] }))).toBe("INVALID_RESOURCE");
    expect(await errorCode(define("c", { constructor: ["update"] }))).toBe("INVALID_RESOURCE");
    const role = await define("d", {});
    expect(
      await errorCode(updateRole(deps, owner.caller(), { organizationId: organization.id, ref: { id: role.id }, permissions: Object.fromEntries([["__proto__", ["update"]]]) })),
    ).toBe("INVALID_RESOURCE");
  });

  it("no escalation: no one creates, widens, reshapes or deletes a role beyond what they hold", async () => {
    const deps = testRegistry();
    const { owner, organization, join, define } = await setUp(deps);
    const admin = await join("admin", "Admin");
    const as = (who: typeof admin) => ({ caller: who.caller(), organizationId: organization.id });
    // An admin may not grant organization delete, which the admin role lacks.
    expect(await errorCode(createRole(deps, admin.caller(), { organizationId: organization.id, name: "x", permissions: { organization: ["delete"] } }))).toBe(
      "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_ROLE",
    );
    const mine = await createRole(deps, admin.caller(), { organizationId: organization.id, name: "helper", permissions: { member: ["update"] } });
    expect(await errorCode(updateRole(deps, as(admin).caller, { organizationId: organization.id, ref: { id: mine.id }, permissions: { organization: ["delete"] } }))).toBe(
      "YOU_ARE_NOT_ALLOWED_TO_UPDATE_A_ROLE",
    );
    // A role the owner made beyond the admin's reach: the admin neither reshapes, renames nor deletes it.
    const strong = await define("strong", { organization: ["delete"] });
    expect(await errorCode(updateRole(deps, admin.caller(), { organizationId: organization.id, ref: { id: strong.id }, permissions: {} }))).toBe(
      "YOU_ARE_NOT_ALLOWED_TO_UPDATE_A_ROLE",
    );
    expect(await errorCode(updateRole(deps, admin.caller(), { organizationId: organization.id, ref: { id: strong.id }, name: "weak" }))).toBe(
      "YOU_ARE_NOT_ALLOWED_TO_UPDATE_A_ROLE",
    );
    expect(await errorCode(deleteRole(deps, admin.caller(), { organizationId: organization.id, ref: { id: strong.id } }))).toBe("YOU_ARE_NOT_ALLOWED_TO_DELETE_A_ROLE");
    // Nor gives it to anyone (mayGrant): not even to themselves.
    expect(await errorCode(updateMemberRole(deps, admin.caller(), { organizationId: organization.id, memberId: admin.member.id, role: "strong" }))).toBe(
      "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER",
    );
    expect(await errorCode(inviteMember(deps, admin.caller(), { organizationId: organization.id, email: "new@example.com", role: "strong", resend: false }))).toBe(
      "YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE",
    );
    // A member whose custom role may create roles creates only within what that role grants.
    await define("delegate", { ac: ["create", "read"], member: ["update"] });
    const delegate = await join("delegate", "Delegate");
    const made = await createRole(deps, delegate.caller(), { organizationId: organization.id, name: "sub", permissions: { member: ["update"] } });
    expect(made.permissions).toEqual({ member: ["update"] });
    for (const permissions of [{ ac: ["delete"] }, { member: ["delete"] }, { invitation: ["create"] }] as Record<string, string[]>[]) {
      expect(await errorCode(createRole(deps, delegate.caller(), { organizationId: organization.id, name: "more", permissions }))).toBe("YOU_ARE_NOT_ALLOWED_TO_CREATE_A_ROLE");
    }
    expect(await errorCode(updateRole(deps, delegate.caller(), { organizationId: organization.id, ref: { id: made.id }, permissions: {} }))).toBe(
      "YOU_ARE_NOT_ALLOWED_TO_UPDATE_A_ROLE",
    );
    // The owner holds everything.
    expect((await define("all", { organization: ["update", "delete"] })).name).toBe("all");
    void owner;
  });

  it("members without ac and non-members are refused, an unknown organization like a foreign one", async () => {
    const deps = testRegistry();
    const { organization, join, define } = await setUp(deps);
    const role = await define("r", {});
    const member = await join("member");
    const target = { organizationId: organization.id };
    expect(await errorCode(listRoles(deps, member.caller(), target))).toBe("YOU_ARE_NOT_ALLOWED_TO_LIST_A_ROLE");
    expect(await errorCode(getRole(deps, member.caller(), { ...target, ref: { id: role.id } }))).toBe("YOU_ARE_NOT_ALLOWED_TO_READ_A_ROLE");
    expect(await errorCode(createRole(deps, member.caller(), { ...target, name: "x", permissions: {} }))).toBe("YOU_ARE_NOT_ALLOWED_TO_CREATE_A_ROLE");
    expect(await errorCode(updateRole(deps, member.caller(), { ...target, ref: { id: role.id }, name: "y" }))).toBe("YOU_ARE_NOT_ALLOWED_TO_UPDATE_A_ROLE");
    expect(await errorCode(deleteRole(deps, member.caller(), { ...target, ref: { id: role.id } }))).toBe("YOU_ARE_NOT_ALLOWED_TO_DELETE_A_ROLE");

    const stranger = aUser(deps, "Eve");
    for (const organizationId of [organization.id, "no-such-organization"]) {
      expect(await errorCode(listRoles(deps, stranger.caller(), { organizationId }))).toBe("YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION");
      expect(await errorCode(getRole(deps, stranger.caller(), { organizationId, ref: { id: role.id } }))).toBe("YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION");
      expect(await errorCode(createRole(deps, stranger.caller(), { organizationId, name: "x", permissions: {} }))).toBe("YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION");
      expect(await errorCode(deleteRole(deps, stranger.caller(), { organizationId, ref: { name: "admin" } }))).toBe("YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION");
    }
    expect(await errorCode(createRole(deps, stranger.caller(), { name: "x", permissions: {} }))).toBe("YOU_MUST_BE_IN_AN_ORGANIZATION_TO_CREATE_A_ROLE");
    expect(await errorCode(listRoles(deps, stranger.caller(), {}))).toBe("NO_ACTIVE_ORGANIZATION");
  });

  it("a role a member or a pending invitation holds is neither deleted nor renamed; free again, it is", async () => {
    const deps = testRegistry();
    const { owner, organization, join, define } = await setUp(deps);
    const role = await define("support", { invitation: ["create"] });
    const holder = await join("member,support", "Holder");
    const target = { organizationId: organization.id, ref: { id: role.id } };
    expect(await errorCode(deleteRole(deps, owner.caller(), target))).toBe("ROLE_IS_ASSIGNED_TO_MEMBERS");
    expect(await errorCode(updateRole(deps, owner.caller(), { ...target, name: "helpdesk" }))).toBe("ROLE_IS_ASSIGNED_TO_MEMBERS");
    // Its permissions may still change: that is what a role is for.
    expect((await updateRole(deps, owner.caller(), { ...target, permissions: { invitation: ["create", "cancel"] } })).permissions).toEqual({ invitation: ["create", "cancel"] });

    await updateMemberRole(deps, owner.caller(), { organizationId: organization.id, memberId: holder.member.id, role: "member" });
    const invitation = await inviteMember(deps, owner.caller(), { organizationId: organization.id, email: "later@example.com", role: "support", resend: false });
    expect(await errorCode(deleteRole(deps, owner.caller(), target))).toBe("ROLE_IS_ASSIGNED_TO_MEMBERS");
    await cancelInvitation(deps, owner.caller(), invitation.id);
    await deleteRole(deps, owner.caller(), target);
    // The name is free again, and an old value naming it no longer grants anything.
    expect(await hasPermission(deps, holder.caller(), { organizationId: organization.id, permissions: { invitation: ["create"] } })).toBe(false);
  });

  it("the organization's roles go with it", async () => {
    const deps = testRegistry();
    const { owner, organization, define } = await setUp(deps);
    await define("support", {});
    await deleteOrganization(deps, owner.caller(), organization.id);
    expect(await deps.store.listRoles(organization.id)).toEqual([]);
  });

  it("custom roles are offered where roles are given, and given like built-in ones", async () => {
    const deps = testRegistry();
    const { owner, organization, join, define } = await setUp(deps);
    await define("auditor", {});
    await define("manager", { member: ["update"] });
    const admin = await join("admin", "Admin");
    const full = await getFullOrganization(deps, owner.caller(), { organizationId: organization.id });
    expect(full!.access.assignableRoles.sort()).toEqual(["admin", "auditor", "manager", "member", "owner"]);
    const adminView = await getFullOrganization(deps, admin.caller(), { organizationId: organization.id });
    expect(adminView!.access.assignableRoles.sort()).toEqual(["admin", "auditor", "manager", "member"]);
    const auditor = await join("auditor", "Auditor");
    expect(auditor.member.role).toBe("auditor");
    expect((await updateMemberRole(deps, admin.caller(), { organizationId: organization.id, memberId: auditor.member.id, role: "manager" })).role).toBe("manager");
    expect(await errorCode(updateMemberRole(deps, owner.caller(), { organizationId: organization.id, memberId: auditor.member.id, role: "ghost" }))).toBe("ROLE_NOT_FOUND");
    // Another organization's role is unknown here.
    const other = aUser(deps, "Other");
    const { organization: elsewhere } = await createOrganization(deps, { caller: other.caller(), name: "Other", slug: `other-${newId().toLowerCase()}`, metadata: {} });
    await createRole(deps, other.caller(), { organizationId: elsewhere.id, name: "elsewhere", permissions: {} });
    expect(await errorCode(updateMemberRole(deps, owner.caller(), { organizationId: organization.id, memberId: auditor.member.id, role: "elsewhere" }))).toBe("ROLE_NOT_FOUND");
  });
});

/**
 * Each permission of the list, at the point the built-in roles are checked: a member whose only role is a
 * custom one granting exactly that permission passes, a member whose custom role grants nothing is refused.
 */
describe("a custom role at every permission check", () => {
  type Setup = Awaited<ReturnType<typeof setUp>>;
  type Actor = Awaited<ReturnType<Setup["join"]>>;
  let targets = 0;
  const attempts: Record<string, (deps: TestRegistry, s: Setup, actor: Actor) => Promise<unknown>> = {
    "organization:update": (deps, s, actor) => updateOrganization(deps, actor.caller(), { organizationId: s.organization.id, patch: { name: "Renamed" } }),
    "organization:delete": (deps, s, actor) => deleteOrganization(deps, actor.caller(), s.organization.id),
    "member:create": (deps, s, actor) => hasPermission(deps, actor.caller(), { organizationId: s.organization.id, permissions: { member: ["create"] } }).then(orRefuse),
    "member:update": async (deps, s, actor) => {
      const other = await s.join("member", "Other");
      return updateMemberRole(deps, actor.caller(), { organizationId: s.organization.id, memberId: other.member.id, role: "member" });
    },
    "member:delete": async (deps, s, actor) => {
      const other = await s.join("member", "Other");
      return removeMember(deps, actor.caller(), { organizationId: s.organization.id, memberIdOrEmail: other.member.id });
    },
    "invitation:create": (deps, s, actor) =>
      inviteMember(deps, actor.caller(), { organizationId: s.organization.id, email: `${newId()}@example.com`, role: "member", resend: false }),
    "invitation:cancel": async (deps, s, actor) => {
      const invitation = await inviteMember(deps, s.owner.caller(), { organizationId: s.organization.id, email: `${newId()}@example.com`, role: "member", resend: false });
      return cancelInvitation(deps, actor.caller(), invitation.id);
    },
    "team:create": (deps, s, actor) => createTeam(deps, actor.caller(), { organizationId: s.organization.id, name: `made-${++targets}` }),
    "team:update": async (deps, s, actor) => {
      const team = await createTeam(deps, s.owner.caller(), { organizationId: s.organization.id, name: `target-${++targets}` });
      return updateTeam(deps, actor.caller(), { teamId: team.id, name: `renamed-${targets}` });
    },
    "team:delete": async (deps, s, actor) => {
      const team = await createTeam(deps, s.owner.caller(), { organizationId: s.organization.id, name: `target-${++targets}` });
      return removeTeam(deps, actor.caller(), { teamId: team.id });
    },
    "ac:create": (deps, s, actor) => createRole(deps, actor.caller(), { organizationId: s.organization.id, name: "made", permissions: {} }),
    "ac:read": (deps, s, actor) => listRoles(deps, actor.caller(), { organizationId: s.organization.id }),
    "ac:update": async (deps, s, actor) => {
      const role = await s.define(`target-${++targets}`, {});
      return updateRole(deps, actor.caller(), { organizationId: s.organization.id, ref: { id: role.id }, permissions: {} });
    },
    "ac:delete": async (deps, s, actor) => {
      const role = await s.define(`target-${++targets}`, {});
      return deleteRole(deps, actor.caller(), { organizationId: s.organization.id, ref: { id: role.id } });
    },
    // The organization's API keys are identity's; it asks HasPermission for the caller (docs/adr/0075-api-keys.md).
    ...Object.fromEntries(
      RESOURCES.apiKey.map((action) => [
        `apiKey:${action}`,
        (deps: TestRegistry, s: Setup, actor: Actor) =>
          hasPermission(deps, actor.caller(), { organizationId: s.organization.id, permissions: { apiKey: [action] } }).then(orRefuse),
      ]),
    ),
  };
  const orRefuse = (granted: boolean) => {
    if (!granted) throw new Error("REFUSED");
  };

  const every = Object.entries(RESOURCES).flatMap(([resource, actions]) => actions.map((action) => `${resource}:${action}`));
  it("the attempts cover the whole permission list", () => {
    expect(Object.keys(attempts).sort()).toEqual([...every].sort());
  });

  for (const permission of every) {
    it(`${permission}: granted by a custom role, refused without it`, async () => {
      const [resource, action] = permission.split(":") as [Resource, string];
      const deps = testRegistry();
      const s = await setUp(deps);
      await s.define("only", { [resource]: [action] });
      await s.define("nothing", {});
      const without = await s.join("nothing", "Without");
      expect(await errorCode(attempts[permission]!(deps, s, without))).toMatch(/^(YOU_ARE_NOT_ALLOWED|Error: REFUSED)/);
      const holder = await s.join("only", "Holder");
      expect(await hasPermission(deps, holder.caller(), { organizationId: s.organization.id, permissions: { [resource]: [action] } })).toBe(true);
      await attempts[permission]!(deps, s, holder);
    });
  }
});

describe("custom roles and teams", () => {
  it("a custom role's member and team permissions decide who places members and reads a team's places", async () => {
    const deps = testRegistry();
    const s = await setUp(deps);
    await s.define("placer", { member: ["update", "delete"] });
    await s.define("lead", { team: ["update"] });
    await s.define("nothing", {});
    const placer = await s.join("placer", "Placer");
    const lead = await s.join("lead", "Lead");
    const without = await s.join("nothing", "Without");
    const team = await createTeam(deps, s.owner.caller(), { organizationId: s.organization.id, name: "Core" });
    expect(await errorCode(addTeamMember(deps, without.caller(), { teamId: team.id, userId: without.user.id }))).toBe("YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_TEAM_MEMBER");
    const place = await addTeamMember(deps, placer.caller(), { teamId: team.id, userId: without.user.id });
    expect(await errorCode(listTeamMembers(deps, placer.caller(), team.id))).toBe("YOU_CAN_NOT_ACCESS_THE_MEMBERS_OF_THIS_TEAM");
    expect(await listTeamMembers(deps, lead.caller(), team.id)).toEqual([place]);
    expect(await errorCode(removeTeamMember(deps, lead.caller(), { teamId: team.id, userId: without.user.id }))).toBe("YOU_ARE_NOT_ALLOWED_TO_REMOVE_A_TEAM_MEMBER");
    await removeTeamMember(deps, placer.caller(), { teamId: team.id, userId: without.user.id });
    expect(await listTeamMembers(deps, lead.caller(), team.id)).toEqual([]);
  });
});
