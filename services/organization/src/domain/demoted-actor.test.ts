/**
 * A member demoted (or removed) after their request checked their role, but before it wrote, cannot act
 * with the role they had: the store checks the actor again under the organization's lock. Each case lets
 * the use case's own check read the old role, then commits the demotion, as a concurrent request would.
 */
import { describe, expect, it } from "vitest";
import { cancelInvitation, inviteMember } from "./invitations.js";
import { removeMember, updateMemberRole } from "./members.js";
import { createOrganization, deleteOrganization, updateOrganization } from "./organizations.js";
import { aUser, type TestRegistry, testRegistry } from "../../test/test-registry.js";
import { errorCode } from "../../../../testing/error-code.js";

/** Ada owns the organization; Grace is a second owner, Alan an admin, Joan a member. */
async function setUp() {
  const deps = testRegistry();
  const ada = aUser(deps, "Ada");
  const { organization } = await createOrganization(deps, { caller: ada.caller(), name: "Engines", slug: "engines", metadata: {} });
  const add = async (name: string, role: string) => {
    const user = aUser(deps, name);
    const member = { id: `${name}-member`, organizationId: organization.id, userId: user.user.id, role, createdAt: deps.now() };
    await deps.store.addMember(member);
    return { ...user, member };
  };
  const grace = await add("Grace", "owner");
  const alan = await add("Alan", "admin");
  const joan = await add("Joan", "member");
  const invitation = await inviteMember(deps, ada.caller(), { email: "charles@example.com", role: "member", organizationId: organization.id, resend: false });
  return { deps, organization, ada, grace, alan, joan, invitation };
}

/**
 * The next `read` whose last argument is `key` (a user id for findMember, a member id for findMemberById)
 * answers what the store holds, then `change` commits: what a concurrent request does right after the use
 * case's own check. The returned function asserts that the read happened.
 */
function changeAfterRead(deps: TestRegistry, read: "findMember" | "findMemberById", key: string, change: () => Promise<unknown>) {
  const store = deps.store as unknown as Record<string, (...args: string[]) => Promise<unknown>>;
  const original = store[read]!.bind(deps.store);
  let armed = true;
  store[read] = async (...args: string[]) => {
    const found = await original(...args);
    if (armed && args.at(-1) === key) {
      armed = false;
      await change();
    }
    return found;
  };
  return () => expect(armed, `the use case called ${read}`).toBe(false);
}

/** The actor's own membership read, then the change. */
const changeAfterCheck = (deps: TestRegistry, userId: string, change: () => Promise<unknown>) => changeAfterRead(deps, "findMember", userId, change);

describe("an actor demoted while their request is in flight", () => {
  it("cannot update or delete the organization with the old role", async () => {
    const { deps, organization, alan, grace } = await setUp();
    let read = changeAfterCheck(deps, alan.user.id, () => deps.store.updateMemberRole(alan.member.id, "member"));
    expect(await errorCode(updateOrganization(deps, alan.caller(), { organizationId: organization.id, patch: { name: "Taken over" } }))).toBe(
      "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION",
    );
    read();
    expect((await deps.store.findOrganization(organization.id))!.name).toBe("Engines");

    read = changeAfterCheck(deps, grace.user.id, () => deps.store.updateMemberRole(grace.member.id, "admin"));
    expect(await errorCode(deleteOrganization(deps, grace.caller(), organization.id))).toBe("YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION");
    read();
    expect(await deps.store.findOrganization(organization.id)).not.toBeNull();
  });

  it("cannot remove a member with the old role, nor one made an owner meanwhile", async () => {
    const { deps, organization, alan, joan } = await setUp();
    let read = changeAfterCheck(deps, alan.user.id, () => deps.store.updateMemberRole(alan.member.id, "member"));
    expect(await errorCode(removeMember(deps, alan.caller(), { memberIdOrEmail: joan.member.id, organizationId: organization.id }))).toBe(
      "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER",
    );
    read();
    await deps.store.updateMemberRole(alan.member.id, "admin");
    // Only an owner removes an owner: Joan is made one after Alan's request read her as a member.
    read = changeAfterRead(deps, "findMemberById", joan.member.id, () => deps.store.updateMemberRole(joan.member.id, "owner"));
    expect(await errorCode(removeMember(deps, alan.caller(), { memberIdOrEmail: joan.member.id, organizationId: organization.id }))).toBe(
      "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER",
    );
    read();
    expect(await deps.store.findMemberById(joan.member.id)).not.toBeNull();
  });

  it("cannot remove a member after being removed", async () => {
    const { deps, organization, alan, joan } = await setUp();
    const read = changeAfterCheck(deps, alan.user.id, () => deps.store.deleteMember(alan.member.id));
    expect(await errorCode(removeMember(deps, alan.caller(), { memberIdOrEmail: joan.member.id, organizationId: organization.id }))).toBe("MEMBER_NOT_FOUND");
    read();
    expect(await deps.store.findMemberById(joan.member.id)).not.toBeNull();
  });

  it("cannot change roles with the old role, nor grant the owner role after losing it", async () => {
    const { deps, organization, alan, grace, joan } = await setUp();
    let read = changeAfterCheck(deps, alan.user.id, () => deps.store.updateMemberRole(alan.member.id, "member"));
    expect(await errorCode(updateMemberRole(deps, alan.caller(), { memberId: joan.member.id, role: "admin", organizationId: organization.id }))).toBe(
      "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER",
    );
    read();
    read = changeAfterCheck(deps, grace.user.id, () => deps.store.updateMemberRole(grace.member.id, "admin"));
    expect(await errorCode(updateMemberRole(deps, grace.caller(), { memberId: joan.member.id, role: "owner", organizationId: organization.id }))).toBe(
      "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER",
    );
    read();
    // Only an owner changes an owner's role: Joan is made one after Alan's request read her as a member.
    await deps.store.updateMemberRole(alan.member.id, "admin");
    read = changeAfterRead(deps, "findMemberById", joan.member.id, () => deps.store.updateMemberRole(joan.member.id, "owner"));
    expect(await errorCode(updateMemberRole(deps, alan.caller(), { memberId: joan.member.id, role: "member", organizationId: organization.id }))).toBe(
      "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER",
    );
    read();
    expect((await deps.store.findMemberById(joan.member.id))!.role).toBe("owner");
  });

  it("cannot invite, re-send or cancel invitations with the old role", async () => {
    const { deps, organization, alan, grace, invitation } = await setUp();
    let read = changeAfterCheck(deps, alan.user.id, () => deps.store.updateMemberRole(alan.member.id, "member"));
    expect(await errorCode(inviteMember(deps, alan.caller(), { email: "mary@example.com", role: "member", organizationId: organization.id, resend: false }))).toBe(
      "YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION",
    );
    read();
    expect(await deps.store.findPendingInvitation(organization.id, "mary@example.com")).toBeNull();

    read = changeAfterCheck(deps, grace.user.id, () => deps.store.updateMemberRole(grace.member.id, "admin"));
    expect(await errorCode(inviteMember(deps, grace.caller(), { email: "mary@example.com", role: "owner", organizationId: organization.id, resend: false }))).toBe(
      "YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE",
    );
    read();

    await deps.store.updateMemberRole(grace.member.id, "owner");
    deps.advance(60_000);
    read = changeAfterCheck(deps, grace.user.id, () => deps.store.updateMemberRole(grace.member.id, "member"));
    expect(await errorCode(inviteMember(deps, grace.caller(), { email: invitation.email, role: "member", organizationId: organization.id, resend: true }))).toBe(
      "YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION",
    );
    read();
    expect((await deps.store.findInvitation(invitation.id))!.expiresAt).toEqual(invitation.expiresAt);
    expect((await deps.deliverMail()).filter((m) => m.to === invitation.email)).toHaveLength(1);

    await deps.store.updateMemberRole(alan.member.id, "admin");
    read = changeAfterCheck(deps, alan.user.id, () => deps.store.updateMemberRole(alan.member.id, "member"));
    expect(await errorCode(cancelInvitation(deps, alan.caller(), invitation.id))).toBe("YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION");
    read();
    expect((await deps.store.findInvitation(invitation.id))!.status).toBe("pending");
  });

  it("still acts when the role held (the re-check passes)", async () => {
    const { deps, organization, alan, joan, invitation } = await setUp();
    const read = changeAfterCheck(deps, alan.user.id, () => deps.store.updateMemberRole(alan.member.id, "admin,member"));
    expect((await updateMemberRole(deps, alan.caller(), { memberId: joan.member.id, role: "admin", organizationId: organization.id })).role).toBe("admin");
    read();
    expect((await cancelInvitation(deps, alan.caller(), invitation.id)).status).toBe("canceled");
  });
});
