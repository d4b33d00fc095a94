/**
 * The better-auth organizationClient, 1.1 and current, driving the gateway as a browser app would: create,
 * list, setActive, getFullOrganization, inviteMember, acceptInvitation, rejectInvitation, cancelInvitation,
 * updateMemberRole, removeMember and leave (the current client's leave; a 1.1 app removes itself), checking
 * the `data` and `error` each hands back; and what only the current client reads or sends
 * (listUserInvitations' organizationName, create's keepCurrentActiveOrganization).
 */
import { describe, expect, it } from "vitest";
import { createAuthClient as createLegacyClient } from "better-auth/client";
import { organizationClient as legacyOrganizationClient } from "better-auth/client/plugins";
import { createAuthClient as createCurrentClient } from "better-auth-1.7/client";
import { organizationClient as currentOrganizationClient } from "better-auth-1.7/client/plugins";
import { browserFetch } from "../../testing/browser.js";
import { backendLabel } from "../../testing/databases.js";
import { uniqueEmail } from "../../testing/http.js";
import { linkIn } from "../../testing/smtp.js";
import { usePlatform } from "../../testing/use-platform.js";
import { tokenOf } from "./better-auth-browser.js";
import { uniqueSlug } from "./organization-fixtures.js";

type CustomFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
const current = (baseURL: string, customFetchImpl: CustomFetch) => createCurrentClient({ baseURL, plugins: [currentOrganizationClient()], fetchOptions: { customFetchImpl } });
type OrgClient = ReturnType<typeof current>;
const legacy = (baseURL: string, customFetchImpl: CustomFetch) =>
  createLegacyClient({ baseURL, plugins: [legacyOrganizationClient()], fetchOptions: { customFetchImpl } }) as unknown as OrgClient;

/** Both generations, typed through the current client's declared API (the calls used here are shared). */
const GENERATIONS = [
  { version: "1.1.9", make: legacy, hasLeave: false, current: false },
  { version: "1.7.25", make: current, hasLeave: true, current: true },
];

const platform = usePlatform({ smtp: true });

describe.each(GENERATIONS)(`better-auth $version organizationClient (${backendLabel()})`, (generation) => {
  async function signedUp(name: string) {
    const { customFetchImpl } = browserFetch(platform.origin);
    const client = generation.make(platform.baseURL, customFetchImpl);
    const email = uniqueEmail(name.toLowerCase());
    const { data, error } = await client.signUp.email({ name, email, password: "password-123" });
    expect(error).toBeNull();
    return { client, email, user: data!.user };
  }
  const activeOf = async (client: OrgClient) => (await client.getSession()).data?.session.activeOrganizationId ?? null;
  /** Verifies the address by the mailed link: invitations are listed to a verified address only. */
  async function verified(who: Awaited<ReturnType<typeof signedUp>>) {
    const mail = await platform.smtp.waitFor(who.email, (m) => m.text.includes("/verify-email"));
    const { error } = await who.client.verifyEmail({ query: { token: tokenOf(linkIn(mail, "/verify-email")) } });
    expect(error).toBeNull();
  }

  it("create, list, setActive, getFullOrganization", async () => {
    const ada = await signedUp("Ada");
    const slug = uniqueSlug("client");
    const created = await ada.client.organization.create({ name: "Engines", slug });
    expect(created.error).toBeNull();
    expect(created.data).toMatchObject({ name: "Engines", slug, members: [expect.objectContaining({ userId: ada.user.id, role: "owner" })] });
    expect(created.data!.createdAt).toBeInstanceOf(Date);
    const id = created.data!.id;
    expect(await activeOf(ada.client)).toBe(id);

    const listed = await ada.client.organization.list();
    expect(listed.data!.map((o) => o.id)).toEqual([id]);

    expect((await ada.client.organization.setActive({ organizationId: null })).data).toBeNull();
    expect(await activeOf(ada.client)).toBeNull();
    const set = await ada.client.organization.setActive({ organizationId: id });
    expect(set.error).toBeNull();
    expect(set.data).toMatchObject({ id, slug });
    expect(await activeOf(ada.client)).toBe(id);

    const full = await ada.client.organization.getFullOrganization();
    expect(full.data).toMatchObject({ id, members: [expect.objectContaining({ user: expect.objectContaining({ email: ada.email, name: "Ada" }) })], invitations: [] });
    const bySlug = await ada.client.organization.getFullOrganization({ query: { organizationSlug: slug } });
    expect(bySlug.data!.id).toBe(id);
  });

  it("inviteMember, acceptInvitation, rejectInvitation, cancelInvitation", async () => {
    const ada = await signedUp("Ada");
    const grace = await signedUp("Grace");
    const { data: org } = await ada.client.organization.create({ name: "Engines", slug: uniqueSlug("client") });

    const invited = await ada.client.organization.inviteMember({ email: grace.email, role: "member" });
    expect(invited.error).toBeNull();
    expect(invited.data).toMatchObject({ email: grace.email, role: "member", status: "pending", organizationId: org!.id });
    const accepted = await grace.client.organization.acceptInvitation({ invitationId: invited.data!.id });
    expect(accepted.error).toBeNull();
    expect(accepted.data).toMatchObject({ invitation: { status: "accepted" }, member: { userId: grace.user.id, role: "member" } });
    expect(await activeOf(grace.client)).toBe(org!.id);

    const refused = await ada.client.organization.inviteMember({ email: grace.email, role: "member" });
    expect(refused.error).toMatchObject({ status: 400, code: "USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION", message: "User is already a member of this organization" });

    const other = await signedUp("Other");
    const toReject = await ada.client.organization.inviteMember({ email: other.email, role: "member" });
    const rejected = await other.client.organization.rejectInvitation({ invitationId: toReject.data!.id });
    expect(rejected.error).toBeNull();
    expect(rejected.data).toMatchObject({ invitation: { status: "rejected" }, member: null });

    const toCancel = await ada.client.organization.inviteMember({ email: other.email, role: "admin" });
    const canceled = await ada.client.organization.cancelInvitation({ invitationId: toCancel.data!.id });
    expect(canceled.error).toBeNull();
    expect(canceled.data).toMatchObject({ id: toCancel.data!.id, status: "canceled" });
    const late = await other.client.organization.acceptInvitation({ invitationId: toCancel.data!.id });
    expect(late.error).toMatchObject({ status: 400, code: "INVITATION_NOT_FOUND", message: "Invitation not found" });
  });

  it("updateMemberRole, removeMember, leave", async () => {
    const ada = await signedUp("Ada");
    const grace = await signedUp("Grace");
    const bob = await signedUp("Bob");
    const { data: org } = await ada.client.organization.create({ name: "Engines", slug: uniqueSlug("client") });
    for (const who of [grace, bob]) {
      const { data: invitation } = await ada.client.organization.inviteMember({ email: who.email, role: "member" });
      await who.client.organization.acceptInvitation({ invitationId: invitation!.id });
    }
    const full = (await ada.client.organization.getFullOrganization()).data!;
    const graceMember = full.members.find((m) => m.userId === grace.user.id)!;

    const promoted = await ada.client.organization.updateMemberRole({ memberId: graceMember.id, role: "admin" });
    expect(promoted.error).toBeNull();
    expect(promoted.data).toMatchObject({ id: graceMember.id, role: "admin" });
    const denied = await bob.client.organization.updateMemberRole({ memberId: graceMember.id, role: "member" });
    expect(denied.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER" });

    const removed = await grace.client.organization.removeMember({ memberIdOrEmail: bob.email });
    expect(removed.error).toBeNull();
    expect(removed.data).toMatchObject({ member: { userId: bob.user.id } });
    expect(await activeOf(bob.client)).toBeNull();

    const onlyOwner = generation.hasLeave
      ? await ada.client.organization.leave({ organizationId: org!.id })
      : await ada.client.organization.removeMember({ memberIdOrEmail: ada.email });
    expect(onlyOwner.error).toMatchObject({ status: 400, code: "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER" });
    const left = generation.hasLeave
      ? await grace.client.organization.leave({ organizationId: org!.id })
      : await grace.client.organization.removeMember({ memberIdOrEmail: grace.email });
    expect(left.error).toBeNull();
    expect(await activeOf(grace.client)).toBeNull();
    expect((await grace.client.organization.list()).data).toEqual([]);
  });

  it("removeMember answers the member with its user, named by member id or by email", async () => {
    const ada = await signedUp("Ada");
    const grace = await signedUp("Grace");
    const bob = await signedUp("Bob");
    const { data: org } = await ada.client.organization.create({ name: "Engines", slug: uniqueSlug("client") });
    const members = [];
    for (const who of [grace, bob]) {
      const { data: invitation } = await ada.client.organization.inviteMember({ email: who.email, role: "member" });
      members.push((await who.client.organization.acceptInvitation({ invitationId: invitation!.id })).data!.member);
    }
    const byId = await ada.client.organization.removeMember({ memberIdOrEmail: members[0]!.id });
    expect(byId.error).toBeNull();
    expect(byId.data!.member).toMatchObject({ id: members[0]!.id, organizationId: org!.id, userId: grace.user.id, role: "member" });
    expect(byId.data!.member.user).toEqual({ id: grace.user.id, name: "Grace", email: grace.email, image: null });
    const byEmail = await ada.client.organization.removeMember({ memberIdOrEmail: bob.email });
    expect(byEmail.error).toBeNull();
    expect(byEmail.data!.member).toMatchObject({ id: members[1]!.id, userId: bob.user.id, user: { id: bob.user.id, name: "Bob", email: bob.email, image: null } });
  });

  it("a non-member acting on an organization gets the 1.1 server's answers, the same whether it exists or not", async () => {
    const ada = await signedUp("Ada");
    const grace = await signedUp("Grace");
    const mallory = await signedUp("Mallory");
    const { data: org } = await ada.client.organization.create({ name: "Engines", slug: uniqueSlug("client") });
    const { data: invitation } = await ada.client.organization.inviteMember({ email: grace.email, role: "member" });
    const graceMember = (await grace.client.organization.acceptInvitation({ invitationId: invitation!.id })).data!.member;
    const { data: pending } = await ada.client.organization.inviteMember({ email: uniqueEmail("later"), role: "member" });
    const memberNotFound = { status: 400, code: "MEMBER_NOT_FOUND", message: "Member not found" };
    const notAMember = { status: 403, code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", message: "User is not a member of the organization" };
    const organizationNotFound = { status: 400, code: "ORGANIZATION_NOT_FOUND", message: "Organization not found" };

    // Mallory has no active organization: naming none is "Organization not found", as 1.1 answers.
    expect((await mallory.client.organization.inviteMember({ email: uniqueEmail("x"), role: "member" })).error).toMatchObject(organizationNotFound);
    expect((await mallory.client.organization.update({ data: { name: "Taken" } })).error).toMatchObject(organizationNotFound);
    // An organization she is not a member of, and one that does not exist, answer alike.
    for (const organizationId of [org!.id, "no-such-organization"]) {
      const m = mallory.client.organization;
      expect((await m.inviteMember({ email: uniqueEmail("x"), role: "member", organizationId })).error).toMatchObject(memberNotFound);
      expect((await m.updateMemberRole({ memberId: graceMember.id, role: "admin", organizationId })).error).toMatchObject(memberNotFound);
      expect((await m.removeMember({ memberIdOrEmail: grace.email, organizationId })).error).toMatchObject(memberNotFound);
      // 1.1 answers this message with 400; ours keeps the 403 it has on every read (docs/adr/0050-organization-refusals-of-non-members.md).
      expect((await m.update({ organizationId, data: { name: "Taken" } })).error).toMatchObject(notAMember);
    }
    expect((await mallory.client.organization.cancelInvitation({ invitationId: pending!.id })).error).toMatchObject(memberNotFound);

    // Nothing changed.
    const full = (await ada.client.organization.getFullOrganization()).data!;
    expect(full).toMatchObject({ name: "Engines", invitations: [expect.objectContaining({ id: pending!.id, status: "pending" })] });
    expect(full.members.find((m) => m.userId === grace.user.id)).toMatchObject({ role: "member" });
  });

  it.runIf(generation.current)("listUserInvitations: each invitation with its organization's name, the other fields as before", async () => {
    const ada = await signedUp("Ada");
    const grace = await signedUp("Grace");
    const { data: engines } = await ada.client.organization.create({ name: "Engines", slug: uniqueSlug("client") });
    const { data: looms } = await ada.client.organization.create({ name: "Looms", slug: uniqueSlug("client") });
    const toEngines = (await ada.client.organization.inviteMember({ email: grace.email, role: "member", organizationId: engines!.id })).data!;
    const toLooms = (await ada.client.organization.inviteMember({ email: grace.email, role: "admin", organizationId: looms!.id })).data!;
    await verified(grace);

    const { data, error } = await grace.client.organization.listUserInvitations();
    expect(error).toBeNull();
    const byId = new Map(data!.map((invitation) => [invitation.id, invitation]));
    expect(byId.get(toEngines.id)).toEqual({ ...toEngines, organizationName: "Engines" });
    expect(byId.get(toLooms.id)).toEqual({ ...toLooms, organizationName: "Looms" });
    expect(data).toHaveLength(2);
  });

  it.runIf(generation.current)("create with keepCurrentActiveOrganization leaves the active organization as it is", async () => {
    const ada = await signedUp("Ada");
    const kept = await ada.client.organization.create({ name: "Kept", slug: uniqueSlug("client"), keepCurrentActiveOrganization: true });
    expect(kept.error).toBeNull();
    expect(kept.data).toMatchObject({ name: "Kept", members: [expect.objectContaining({ userId: ada.user.id, role: "owner" })] });
    expect(await activeOf(ada.client)).toBeNull();

    const { data: first } = await ada.client.organization.create({ name: "First", slug: uniqueSlug("client") });
    expect(await activeOf(ada.client)).toBe(first!.id);
    const second = await ada.client.organization.create({ name: "Second", slug: uniqueSlug("client"), keepCurrentActiveOrganization: true });
    expect(second.error).toBeNull();
    expect(await activeOf(ada.client)).toBe(first!.id);
    expect((await ada.client.organization.list()).data!.map((o) => o.id).sort()).toEqual([kept.data!.id, first!.id, second.data!.id].sort());
  });
});
