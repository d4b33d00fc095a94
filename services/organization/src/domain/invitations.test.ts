/** Invitation use cases on the memory store and a test clock: expiry, recipients, answered invitations, resend. */
import { describe, expect, it } from "vitest";
import { acceptInvitation, cancelInvitation, getInvitation, inviteMember, listUserInvitations, rejectInvitation } from "./invitations.js";
import { removeUserMemberships } from "./members.js";
import { createOrganization } from "./organizations.js";
import { aUser, type TestRegistry, testRegistry } from "../../test/test-registry.js";
import { errorCode } from "../../../../testing/error-code.js";

const TWO_DAYS = 172_800_000;

async function setUp(deps: TestRegistry) {
  const owner = aUser(deps, "Ada");
  const { organization } = await createOrganization(deps, { caller: owner.caller(), name: "Engines", slug: "engines", metadata: {} });
  const invitee = aUser(deps, "Grace");
  const invite = (role = "member", by = owner) =>
    inviteMember(deps, by.caller(), { email: invitee.user.email.toUpperCase(), role, organizationId: organization.id, resend: false });
  return { owner, organization, invitee, invite };
}

describe("invitations", () => {
  it("mails the invitee a link to the app's invitation page naming the organization and the inviter", async () => {
    const deps = testRegistry();
    const { invitee, invite } = await setUp(deps);
    const invitation = await invite();
    expect(invitation).toMatchObject({ email: invitee.user.email, status: "pending", expiresAt: new Date(deps.now().getTime() + TWO_DAYS) });
    expect(await deps.deliverMail()).toEqual([
      expect.objectContaining({
        to: invitee.user.email,
        variables: expect.objectContaining({ url: `https://app.example.com/accept-invitation/${invitation.id}`, organization_name: "Engines", inviter_name: "Ada" }),
      }),
    ]);
  });

  it("refuses a second invitation unless resend, which renews it and mails again", async () => {
    const deps = testRegistry();
    const { owner, organization, invitee, invite } = await setUp(deps);
    const first = await invite();
    expect(await errorCode(invite())).toBe("USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION");
    deps.advance(1000);
    const again = await inviteMember(deps, owner.caller(), { email: invitee.user.email, role: "member", organizationId: organization.id, resend: true });
    expect(again.id).toBe(first.id);
    expect(again.expiresAt.getTime()).toBe(first.expiresAt.getTime() + 1000);
    // Both mails were queued before the worker ran: the first one, superseded by the renewal, is dropped.
    expect(await deps.deliverMail()).toHaveLength(1);
    deps.advance(1000);
    await inviteMember(deps, owner.caller(), { email: invitee.user.email, role: "member", organizationId: organization.id, resend: true });
    expect(await deps.deliverMail()).toHaveLength(2);
  });

  it("accept makes a member with the invited role and the organization active; then it is answered", async () => {
    const deps = testRegistry();
    const { organization, invitee, invite } = await setUp(deps);
    const invitation = await invite("admin");
    const { member } = await acceptInvitation(deps, invitee.caller(), invitation.id);
    expect(member).toMatchObject({ userId: invitee.user.id, role: "admin", organizationId: organization.id });
    expect(invitee.active()).toBe(organization.id);
    expect(await errorCode(acceptInvitation(deps, invitee.caller(), invitation.id))).toBe("INVITATION_NOT_FOUND");
    expect(await errorCode(rejectInvitation(deps, invitee.caller(), invitation.id))).toBe("INVITATION_NOT_FOUND");
    expect(await errorCode(invite())).toBe("USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION");
  });

  it("only the recipient reads, accepts or rejects; expired invitations are gone", async () => {
    const deps = testRegistry();
    const { owner, invitee, invite } = await setUp(deps);
    const invitation = await invite();
    const stranger = aUser(deps, "Mallory");
    expect(await errorCode(acceptInvitation(deps, stranger.caller(), invitation.id))).toBe("YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION");
    expect(await errorCode(getInvitation(deps, stranger.caller(), invitation.id))).toBe("YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION");
    expect(await getInvitation(deps, invitee.caller(), invitation.id)).toMatchObject({ organizationName: "Engines", organizationSlug: "engines", inviterEmail: owner.user.email });
    expect(await listUserInvitations(deps, invitee.caller())).toHaveLength(1);
    deps.advance(TWO_DAYS);
    expect(await errorCode(getInvitation(deps, invitee.caller(), invitation.id))).toBe("INVITATION_NOT_FOUND");
    expect(await errorCode(acceptInvitation(deps, invitee.caller(), invitation.id))).toBe("INVITATION_NOT_FOUND");
    expect(await listUserInvitations(deps, invitee.caller())).toEqual([]);
    // An expired invitation no longer blocks a new one.
    expect((await invite()).id).not.toBe(invitation.id);
  });

  it("lists invitations only to a verified address; the mailed id still works for an unverified one", async () => {
    const deps = testRegistry();
    const { invitee, invite } = await setUp(deps);
    const invitation = await invite();
    const unverified = aUser(deps, "Grace", false);
    const claimed = { ...unverified.caller(), email: invitee.user.email };
    expect(await listUserInvitations(deps, claimed)).toEqual([]);
    expect(await getInvitation(deps, claimed, invitation.id)).toMatchObject({ invitation: { id: invitation.id } });
    expect(await listUserInvitations(deps, invitee.caller())).toHaveLength(1);
  });

  it("lists the caller's invitations each with its organization's name, leaving out one whose organization is gone", async () => {
    const deps = testRegistry();
    const { owner, invitee, invite } = await setUp(deps);
    const engines = await invite();
    const { organization: looms } = await createOrganization(deps, { caller: owner.caller(), name: "Looms", slug: "looms", metadata: {} });
    deps.advance(1000);
    const loom = await inviteMember(deps, owner.caller(), { email: invitee.user.email, role: "admin", organizationId: looms.id, resend: false });
    const listed = await listUserInvitations(deps, invitee.caller());
    expect(listed).toEqual([
      { ...loom, organizationName: "Looms" },
      { ...engines, organizationName: "Engines" },
    ]);
    // The organization deleted between the two store reads: its invitation can no longer be accepted.
    const findOrganizations = deps.store.findOrganizations;
    deps.store.findOrganizations = async (ids) => (await findOrganizations(ids)).filter((o) => o.id !== looms.id);
    expect((await listUserInvitations(deps, invitee.caller())).map((i) => i.organizationName)).toEqual(["Engines"]);
  });

  it("reject answers it; cancel needs the cancel permission", async () => {
    const deps = testRegistry();
    const { owner, organization, invitee, invite } = await setUp(deps);
    const rejected = await invite();
    expect((await rejectInvitation(deps, invitee.caller(), rejected.id)).status).toBe("rejected");
    const member = aUser(deps, "Member");
    const memberInvite = await inviteMember(deps, owner.caller(), { email: member.user.email, role: "member", organizationId: organization.id, resend: false });
    await acceptInvitation(deps, member.caller(), memberInvite.id);
    const pending = await invite();
    expect(await errorCode(cancelInvitation(deps, member.caller(), pending.id))).toBe("YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION");
    expect(await errorCode(inviteMember(deps, member.caller(), { email: "x@example.com", role: "member", organizationId: organization.id, resend: false }))).toBe(
      "YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION",
    );
    expect((await cancelInvitation(deps, owner.caller(), pending.id)).status).toBe("canceled");
    expect(await errorCode(acceptInvitation(deps, invitee.caller(), pending.id))).toBe("INVITATION_NOT_FOUND");
  });

  it("answers a non-member as better-auth does: Member not found, whether the organization exists or not", async () => {
    const deps = testRegistry();
    const { organization, invite } = await setUp(deps);
    const pending = await invite();
    const stranger = aUser(deps, "Mallory");
    const inviteTo = (organizationId?: string) => inviteMember(deps, stranger.caller(), { email: "x@example.com", role: "member", organizationId, resend: false });
    expect(await errorCode(inviteTo(organization.id))).toBe("MEMBER_NOT_FOUND");
    expect(await errorCode(inviteTo("no-such-organization"))).toBe("MEMBER_NOT_FOUND");
    expect(await errorCode(inviteTo(undefined))).toBe("ORGANIZATION_NOT_FOUND");
    expect(await errorCode(cancelInvitation(deps, stranger.caller(), pending.id))).toBe("MEMBER_NOT_FOUND");
    expect((await deps.store.findInvitation(pending.id))?.status).toBe("pending");
  });

  it("refuses unknown roles, the owner role from a non-owner, and an inviter who left", async () => {
    const deps = testRegistry();
    const { owner, organization, invitee, invite } = await setUp(deps);
    expect(await errorCode(invite("wizard"))).toBe("ROLE_NOT_FOUND");
    const admin = aUser(deps, "Admin");
    await acceptInvitation(
      deps,
      admin.caller(),
      (await inviteMember(deps, owner.caller(), { email: admin.user.email, role: "admin", organizationId: organization.id, resend: false })).id,
    );
    expect(await errorCode(invite("owner", admin))).toBe("YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE");
    const invitation = await invite("member", admin);
    await deps.store.deleteMember((await deps.store.findMember(organization.id, admin.user.id))!.id);
    expect(await errorCode(acceptInvitation(deps, invitee.caller(), invitation.id))).toBe("INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION");
  });

  it("refuses an invitation whose inviter was demoted since, until someone who may give the role resends it", async () => {
    const deps = testRegistry();
    const { owner, organization, invitee, invite } = await setUp(deps);
    const admin = aUser(deps, "Admin");
    await acceptInvitation(
      deps,
      admin.caller(),
      (await inviteMember(deps, owner.caller(), { email: admin.user.email, role: "admin", organizationId: organization.id, resend: false })).id,
    );
    const invitation = await invite("admin", admin);
    const adminMember = (await deps.store.findMember(organization.id, admin.user.id))!;
    await deps.store.updateMemberRole(adminMember.id, "member");
    expect(await errorCode(acceptInvitation(deps, invitee.caller(), invitation.id))).toBe("INVITER_MAY_NO_LONGER_GIVE_THIS_ROLE");
    expect(await deps.store.findMember(organization.id, invitee.user.id)).toBeNull();

    // The owner renews it and becomes its inviter: it is accepted with the role.
    const resent = await inviteMember(deps, owner.caller(), { email: invitee.user.email, role: "admin", organizationId: organization.id, resend: true });
    expect(resent.inviterId).toBe(owner.user.id);
    expect((await acceptInvitation(deps, invitee.caller(), invitation.id)).member.role).toBe("admin");
  });

  it("refuses an invitation past ORGANIZATION_INVITATION_LIMIT pending ones, and mails nothing for it; resend still works", async () => {
    const deps = testRegistry({ ORGANIZATION_INVITATION_LIMIT: "2" });
    const { owner, organization, invite } = await setUp(deps);
    const to = (email: string, resend = false) => inviteMember(deps, owner.caller(), { email, role: "member", organizationId: organization.id, resend });
    await invite();
    await to("second@example.com");
    const mailed = (await deps.deliverMail()).length;
    expect(await errorCode(to("third@example.com"))).toBe("INVITATION_LIMIT_REACHED");
    expect(await deps.deliverMail()).toHaveLength(mailed);
    deps.advance(1000);
    await to("second@example.com", true);
    expect(await deps.deliverMail()).toHaveLength(mailed + 1);
    deps.advance(TWO_DAYS);
    await to("third@example.com");
  });

  it("a deleted user's memberships go and the invitations they sent are canceled, idempotently", async () => {
    const deps = testRegistry();
    const { owner, organization, invitee, invite } = await setUp(deps);
    const invitation = await invite();
    await removeUserMemberships(deps, owner.user.id);
    await removeUserMemberships(deps, owner.user.id);
    expect(await deps.store.findMember(organization.id, owner.user.id)).toBeNull();
    expect(await errorCode(acceptInvitation(deps, invitee.caller(), invitation.id))).toBe("INVITATION_NOT_FOUND");
  });
});
