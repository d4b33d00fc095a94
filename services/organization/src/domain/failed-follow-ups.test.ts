/**
 * A call to identity or the session service that fails during a write use case: the failure is answered
 * (503) only when nothing was kept, and the client's retry then works. Either every read that can fail comes
 * before the write, or the write is undone when a later call fails.
 */
import { describe, expect, it } from "vitest";
import { AuthError } from "@auth-platform/proto/errors";
import { acceptInvitation, inviteMember } from "./invitations.js";
import { leaveOrganization, removeMember, updateMemberRole } from "./members.js";
import { createOrganization, deleteOrganization } from "./organizations.js";
import { aUser, type TestRegistry, testRegistry } from "../../test/test-registry.js";
import { errorCode } from "../../../../testing/error-code.js";

const unavailable = () => new AuthError("SERVICE_UNAVAILABLE");

/** Makes identity's GetUsers fail from its nth call on (1: the next call). */
function identityDownFrom(deps: TestRegistry, nth: number) {
  const getUsers = deps.users.getUsers;
  let calls = 0;
  deps.users.getUsers = async (ids, emails) => {
    if (++calls >= nth) throw unavailable();
    return getUsers(ids, emails);
  };
  return () => {
    deps.users.getUsers = getUsers;
  };
}

/** Makes one session service method fail until restored. */
function sessionsDown(deps: TestRegistry, method: "setActiveOrganization" | "clearActiveOrganization") {
  const original = deps.sessions[method];
  deps.sessions[method] = async () => {
    throw unavailable();
  };
  return () => {
    deps.sessions[method] = original as never;
  };
}

async function withMember(deps: TestRegistry) {
  const owner = aUser(deps, "Ada");
  const { organization } = await createOrganization(deps, { caller: owner.caller(), name: "Engines", slug: "engines", metadata: {} });
  const grace = aUser(deps, "Grace");
  const invitation = await inviteMember(deps, owner.caller(), { email: grace.user.email, role: "member", organizationId: organization.id, resend: false });
  const { member } = await acceptInvitation(deps, grace.caller(), invitation.id);
  return { owner, organization, grace, member };
}

describe("organization/create with identity or the session service failing", () => {
  for (const [when, nth] of [
    ["before the write", 1],
    ["after the write", 2],
  ] as const) {
    it(`identity failing ${when}: 503, nothing created, and a retry with the same slug works`, async () => {
      const deps = testRegistry();
      const ada = aUser(deps, "Ada");
      const restore = identityDownFrom(deps, nth);
      expect(await errorCode(createOrganization(deps, { caller: ada.caller(), name: "Engines", slug: "engines", metadata: {} }))).toBe("SERVICE_UNAVAILABLE");
      expect(await deps.store.findOrganizationBySlug("engines")).toBeNull();
      expect(await deps.store.countMemberships(ada.user.id)).toBe(0);
      expect(ada.active()).toBeNull();
      restore();
      const { organization } = await createOrganization(deps, { caller: ada.caller(), name: "Engines", slug: "engines", metadata: {} });
      expect(organization.slug).toBe("engines");
      expect(ada.active()).toBe(organization.id);
    });
  }

  it("the session service failing to make it active: 503, nothing created, and a retry works", async () => {
    const deps = testRegistry();
    const ada = aUser(deps, "Ada");
    const restore = sessionsDown(deps, "setActiveOrganization");
    expect(await errorCode(createOrganization(deps, { caller: ada.caller(), name: "Engines", slug: "engines", metadata: {} }))).toBe("SERVICE_UNAVAILABLE");
    expect(await deps.store.findOrganizationBySlug("engines")).toBeNull();
    restore();
    expect((await createOrganization(deps, { caller: ada.caller(), name: "Engines", slug: "engines", metadata: {} })).organization.slug).toBe("engines");
  });
});

describe("the other writes with identity or the session service failing", () => {
  it("accept-invitation: 503 leaves the invitation pending and no member, and the retry works", async () => {
    for (const fail of ["identity before", "identity after", "session"] as const) {
      const deps = testRegistry();
      const owner = aUser(deps, "Ada");
      const { organization } = await createOrganization(deps, { caller: owner.caller(), name: "Engines", slug: "engines", metadata: {} });
      const grace = aUser(deps, "Grace");
      const invitation = await inviteMember(deps, owner.caller(), { email: grace.user.email, role: "member", organizationId: organization.id, resend: false });
      const restore = fail === "session" ? sessionsDown(deps, "setActiveOrganization") : identityDownFrom(deps, fail === "identity before" ? 1 : 2);
      expect(await errorCode(acceptInvitation(deps, grace.caller(), invitation.id)), fail).toBe("SERVICE_UNAVAILABLE");
      expect((await deps.store.findInvitation(invitation.id))!.status, fail).toBe("pending");
      expect(await deps.store.findMember(organization.id, grace.user.id), fail).toBeNull();
      restore();
      const { member } = await acceptInvitation(deps, grace.caller(), invitation.id);
      expect(member.userId).toBe(grace.user.id);
      expect(grace.active()).toBe(organization.id);
    }
  });

  it("update-member-role: identity down changes no role; the retry works", async () => {
    const deps = testRegistry();
    const { owner, member } = await withMember(deps);
    const restore = identityDownFrom(deps, 1);
    expect(await errorCode(updateMemberRole(deps, owner.caller(), { memberId: member.id, role: "admin" }))).toBe("SERVICE_UNAVAILABLE");
    expect((await deps.store.findMemberById(member.id))!.role).toBe("member");
    restore();
    expect(await updateMemberRole(deps, owner.caller(), { memberId: member.id, role: "admin" })).toMatchObject({ role: "admin", user: { name: "Grace" } });
  });

  it("remove-member and leave: the session service failing puts the member back; the retry works", async () => {
    const deps = testRegistry();
    const { owner, organization, grace, member } = await withMember(deps);
    const restore = sessionsDown(deps, "clearActiveOrganization");
    expect(await errorCode(removeMember(deps, owner.caller(), { memberIdOrEmail: member.id }))).toBe("SERVICE_UNAVAILABLE");
    expect(await deps.store.findMemberById(member.id)).toEqual(member);
    expect(await errorCode(leaveOrganization(deps, grace.caller(), organization.id))).toBe("SERVICE_UNAVAILABLE");
    expect(await deps.store.findMemberById(member.id)).toEqual(member);
    restore();
    expect(grace.active()).toBe(organization.id);
    await leaveOrganization(deps, grace.caller(), organization.id);
    expect(await deps.store.findMemberById(member.id)).toBeNull();
    expect(grace.active()).toBeNull();
  });

  it("delete: the session service down deletes nothing; the retry works and clears the organization everywhere", async () => {
    const deps = testRegistry();
    const { owner, organization, grace } = await withMember(deps);
    const restore = sessionsDown(deps, "clearActiveOrganization");
    expect(await errorCode(deleteOrganization(deps, owner.caller(), organization.id))).toBe("SERVICE_UNAVAILABLE");
    expect(await deps.store.findOrganization(organization.id)).not.toBeNull();
    restore();
    await deleteOrganization(deps, owner.caller(), organization.id);
    expect(await deps.store.findOrganization(organization.id)).toBeNull();
    expect([owner.active(), grace.active()]).toEqual([null, null]);
  });
});
