/** Organization use cases on the memory store: creation rules, update/delete permissions, the active organization. */
import { describe, expect, it } from "vitest";
import { acceptInvitation, inviteMember } from "./invitations.js";
import { checkSlug, createOrganization, deleteOrganization, getFullOrganization, setActiveOrganization, updateOrganization } from "./organizations.js";
import { aUser, type TestRegistry, testRegistry } from "../../test/test-registry.js";
import { errorCode } from "../../../../testing/error-code.js";

async function anOrganization(deps: TestRegistry, owner = aUser(deps), slug = `org-${Math.random().toString(36).slice(2)}`) {
  const full = await createOrganization(deps, { caller: owner.caller(), name: "Engines", slug, metadata: {} });
  return { owner, organization: full.organization, full };
}

/** A member with a role, through an accepted invitation. */
async function aMemberOf(deps: TestRegistry, organizationId: string, inviter: ReturnType<typeof aUser>, role = "member") {
  const user = aUser(deps, "Grace");
  const invitation = await inviteMember(deps, inviter.caller(), { email: user.user.email, role, organizationId, resend: false });
  await acceptInvitation(deps, user.caller(), invitation.id);
  return user;
}

describe("create organization", () => {
  it("makes the creator owner, the organization active, and serves the creator's user fields", async () => {
    const deps = testRegistry();
    const { owner, organization, full } = await anOrganization(deps);
    expect(full.members).toEqual([expect.objectContaining({ userId: owner.user.id, role: "owner", user: owner.user })]);
    expect(owner.active()).toBe(organization.id);
  });

  it("with keepActiveOrganization leaves the session's active organization as it is, the current one or none", async () => {
    const deps = testRegistry();
    const owner = aUser(deps);
    const kept = await createOrganization(deps, { caller: owner.caller(), name: "Second", slug: "second", metadata: {}, keepActiveOrganization: true });
    expect(kept.members).toEqual([expect.objectContaining({ userId: owner.user.id, role: "owner" })]);
    expect(owner.active()).toBeNull();
    const { organization: first } = await anOrganization(deps, owner);
    expect(owner.active()).toBe(first.id);
    await createOrganization(deps, { caller: owner.caller(), name: "Third", slug: "third", metadata: {}, keepActiveOrganization: true });
    expect(owner.active()).toBe(first.id);
  });

  it("refuses a taken slug, creation switched off, and the per-user limit", async () => {
    const deps = testRegistry({ ORGANIZATION_LIMIT: "1" });
    const { owner, organization } = await anOrganization(deps);
    const other = aUser(deps);
    expect(await errorCode(createOrganization(deps, { caller: other.caller(), name: "x", slug: organization.slug, metadata: {} }))).toBe("ORGANIZATION_ALREADY_EXISTS");
    expect(await errorCode(checkSlug(deps, organization.slug))).toBe("ORGANIZATION_ALREADY_EXISTS");
    expect(await errorCode(createOrganization(deps, { caller: owner.caller(), name: "x", slug: "second", metadata: {} }))).toBe(
      "YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS",
    );
    const closed = testRegistry({ ORGANIZATION_ALLOW_CREATION: "false" });
    expect(await errorCode(createOrganization(closed, { caller: aUser(closed).caller(), name: "x", slug: "x", metadata: {} }))).toBe(
      "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION",
    );
  });

  it("slugs differing only in case are one slug: stored lower-cased, a create or update conflicts, check-slug and lookups fold", async () => {
    const deps = testRegistry();
    const owner = aUser(deps);
    const { organization } = await createOrganization(deps, { caller: owner.caller(), name: "Axes", slug: "A-x", metadata: {} });
    expect(organization.slug).toBe("a-x");
    const other = aUser(deps);
    expect(await errorCode(createOrganization(deps, { caller: other.caller(), name: "x", slug: "a-x", metadata: {} }))).toBe("ORGANIZATION_ALREADY_EXISTS");
    expect(await errorCode(createOrganization(deps, { caller: other.caller(), name: "x", slug: "A-X", metadata: {} }))).toBe("ORGANIZATION_ALREADY_EXISTS");
    for (const slug of ["a-x", "A-x", "A-X"]) expect(await errorCode(checkSlug(deps, slug)), slug).toBe("ORGANIZATION_ALREADY_EXISTS");
    for (const slug of ["a-x", "A-X"]) expect((await getFullOrganization(deps, owner.caller(), { organizationSlug: slug }))!.organization.id, slug).toBe(organization.id);
    const second = await createOrganization(deps, { caller: other.caller(), name: "Ys", slug: "Y-z", metadata: {} });
    expect(await errorCode(updateOrganization(deps, other.caller(), { organizationId: second.organization.id, patch: { slug: "a-X" } }))).toBe("ORGANIZATION_ALREADY_EXISTS");
    expect((await updateOrganization(deps, other.caller(), { organizationId: second.organization.id, patch: { slug: "Y-Renamed" } })).slug).toBe("y-renamed");
  });

  it("without a caller needs a userId (server-side), and sets no active organization", async () => {
    const deps = testRegistry();
    expect(await errorCode(createOrganization(deps, { name: "x", slug: "x", metadata: {} }))).toBe("UNAUTHORIZED");
    const user = aUser(deps);
    const full = await createOrganization(deps, { userId: user.user.id, name: "x", slug: "x", metadata: {} });
    expect(full.members[0]!.userId).toBe(user.user.id);
    expect(user.active()).toBeNull();
  });
});

describe("update and delete", () => {
  it("owner and admin update; a member may not; a non-member is told so", async () => {
    const deps = testRegistry();
    const { owner, organization } = await anOrganization(deps);
    const admin = await aMemberOf(deps, organization.id, owner, "admin");
    const member = await aMemberOf(deps, organization.id, owner);
    expect((await updateOrganization(deps, admin.caller(), { organizationId: organization.id, patch: { name: "New" } })).name).toBe("New");
    expect(await errorCode(updateOrganization(deps, member.caller(), { organizationId: organization.id, patch: { name: "x" } }))).toBe(
      "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION",
    );
    expect(await errorCode(updateOrganization(deps, aUser(deps).caller(), { organizationId: organization.id, patch: { name: "x" } }))).toBe(
      "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
    );
    // An id no organization has gets the non-member's answer; none named or active is better-auth's "Organization not found".
    expect(await errorCode(updateOrganization(deps, aUser(deps).caller(), { organizationId: "no-such-organization", patch: { name: "x" } }))).toBe(
      "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
    );
    expect(await errorCode(updateOrganization(deps, aUser(deps).caller(), { patch: { name: "x" } }))).toBe("ORGANIZATION_NOT_FOUND");
  });

  it("only the owner deletes; deletion clears it as every member's active organization; it can be disabled", async () => {
    const deps = testRegistry();
    const { owner, organization } = await anOrganization(deps);
    const admin = await aMemberOf(deps, organization.id, owner, "admin");
    expect(admin.active()).toBe(organization.id);
    expect(await errorCode(deleteOrganization(deps, admin.caller(), organization.id))).toBe("YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION");
    expect((await deleteOrganization(deps, owner.caller(), organization.id)).id).toBe(organization.id);
    expect([owner.active(), admin.active()]).toEqual([null, null]);
    expect(await deps.store.findMember(organization.id, admin.user.id)).toBeNull();
    // Deleted, or never there: the same answer as for a non-member.
    expect(await errorCode(deleteOrganization(deps, owner.caller(), organization.id))).toBe("USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION");
    expect(await errorCode(deleteOrganization(deps, owner.caller(), "no-such-organization"))).toBe("USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION");
    const disabled = testRegistry({ ORGANIZATION_DELETE_ENABLED: "false" });
    const kept = await anOrganization(disabled);
    expect(await errorCode(deleteOrganization(disabled, kept.owner.caller(), kept.organization.id))).toBe("NOT_FOUND");
  });
});

describe("active organization", () => {
  it("sets by id or slug, reads the active one back, unsets with null", async () => {
    const deps = testRegistry();
    const { owner, organization } = await anOrganization(deps);
    await setActiveOrganization(deps, owner.caller(), { unset: true });
    expect(owner.active()).toBeNull();
    expect(await getFullOrganization(deps, owner.caller(), {})).toBeNull();
    expect((await setActiveOrganization(deps, owner.caller(), { organizationSlug: organization.slug }))!.organization.id).toBe(organization.id);
    expect(owner.active()).toBe(organization.id);
    expect((await getFullOrganization(deps, owner.caller(), {}))!.organization.id).toBe(organization.id);
  });

  it("setting one the user is not a member of clears the active one and fails", async () => {
    const deps = testRegistry();
    const { owner } = await anOrganization(deps);
    const { organization: theirs } = await anOrganization(deps);
    expect(await errorCode(setActiveOrganization(deps, owner.caller(), { organizationId: theirs.id }))).toBe("USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION");
    expect(owner.active()).toBeNull();
    expect(await errorCode(getFullOrganization(deps, owner.caller(), { organizationId: theirs.id }))).toBe("USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION");
    expect(await errorCode(setActiveOrganization(deps, owner.caller(), { organizationId: "nope" }))).toBe("USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION");
  });

  it("reads members with their users in one identity call", async () => {
    const deps = testRegistry();
    const { owner, organization } = await anOrganization(deps);
    for (let i = 0; i < 3; i++) await aMemberOf(deps, organization.id, owner);
    deps.userCalls = 0;
    const full = await getFullOrganization(deps, owner.caller(), { organizationId: organization.id });
    expect(full!.members).toHaveLength(4);
    expect(full!.members.every((m) => m.user?.id === m.userId)).toBe(true);
    expect(deps.userCalls).toBe(1);
  });
});
