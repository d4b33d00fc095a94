/** The OrganizationStore contract: one suite, run on every backend (memory, SQLite, PostgreSQL). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthError } from "@auth-platform/proto/errors";
import { newId } from "@auth-platform/runtime/random";
import type { InvitationRecord, MemberRecord, OrganizationRecord, OrganizationStore } from "./organization-store.js";

const T0 = Date.UTC(2030, 0, 1, 2, 3, 4, 567);
const at = (ms: number) => new Date(T0 + ms);

export function anOrganization(overrides: Partial<OrganizationRecord> = {}): OrganizationRecord {
  const id = newId();
  return { id, name: "Analytical Engines", slug: `engines-${id}`, logo: null, metadata: {}, createdAt: at(0), ...overrides };
}

export function aMember(organizationId: string, overrides: Partial<MemberRecord> = {}): MemberRecord {
  return { id: newId(), organizationId, userId: newId(), role: "member", createdAt: at(0), ...overrides };
}

export function anInvitation(organizationId: string, overrides: Partial<InvitationRecord> = {}): InvitationRecord {
  return { id: newId(), organizationId, email: `${newId()}@example.com`, role: "member", status: "pending", inviterId: newId(), expiresAt: at(172_800_000), createdAt: at(0), ...overrides };
}

const code = (promise: Promise<unknown>) => promise.then(() => "resolved", (e: unknown) => (e instanceof AuthError ? e.code : String(e)));

export function organizationStoreContract(backend: string, open: () => Promise<OrganizationStore>): void {
  describe(`OrganizationStore contract (${backend})`, () => {
    let store: OrganizationStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    async function created(overrides: Partial<OrganizationRecord> = {}, ownerId = newId()) {
      const organization = anOrganization(overrides);
      const owner = aMember(organization.id, { userId: ownerId, role: "owner" });
      await store.createOrganization(organization, owner);
      return { organization, owner };
    }

    it("creates an organization with its creator, every field intact, found by id and slug", async () => {
      const { organization, owner } = await created({ logo: "https://example.com/logo.png", metadata: { plan: "pro", region: "eu" } });
      expect(await store.findOrganization(organization.id)).toEqual(organization);
      expect(await store.findOrganizationBySlug(organization.slug)).toEqual(organization);
      expect(await store.findMember(organization.id, owner.userId)).toEqual(owner);
      expect(await store.findMemberById(owner.id)).toEqual(owner);
      expect(await store.findOrganization(newId())).toBeNull();
    });

    it("refuses a taken slug on create and on update, leaving nothing behind", async () => {
      const { organization } = await created();
      const clash = anOrganization({ slug: organization.slug });
      const creator = aMember(clash.id, { role: "owner" });
      expect(await code(store.createOrganization(clash, creator))).toBe("ORGANIZATION_ALREADY_EXISTS");
      expect(await store.findOrganization(clash.id)).toBeNull();
      expect(await store.countMemberships(creator.userId)).toBe(0);
      const { organization: other } = await created();
      expect(await code(store.updateOrganization(other.id, { slug: organization.slug }))).toBe("ORGANIZATION_ALREADY_EXISTS");
    });

    it("updates fields it is given, clears the logo with null, and answers null for a gone organization", async () => {
      const { organization } = await created({ logo: "https://example.com/a.png", metadata: { a: "1" } });
      const updated = await store.updateOrganization(organization.id, { name: "Difference Engines", logo: null, metadata: { b: "2" } });
      expect(updated).toEqual({ ...organization, name: "Difference Engines", logo: null, metadata: { b: "2" } });
      expect(await store.updateOrganization(newId(), { name: "x" })).toBeNull();
    });

    it("lists a user's organizations by membership age and counts them", async () => {
      const userId = newId();
      const { organization: first } = await created({ createdAt: at(0) }, userId);
      const { organization: second } = await created({ createdAt: at(1) });
      await store.addMember(aMember(second.id, { userId, createdAt: at(5) }));
      expect((await store.listOrganizationsOfUser(userId)).map((o) => o.id)).toEqual([first.id, second.id]);
      expect(await store.countMemberships(userId)).toBe(2);
      expect(await store.listOrganizationsOfUser(newId())).toEqual([]);
    });

    it("refuses a second membership of one user", async () => {
      const { organization, owner } = await created();
      expect(await code(store.addMember(aMember(organization.id, { userId: owner.userId })))).toBe("USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION");
    });

    it("pages members oldest first with the total, and finds them by user ids", async () => {
      const { organization, owner } = await created();
      const added = [];
      for (let i = 1; i <= 5; i++) {
        const member = aMember(organization.id, { createdAt: at(i * 1000) });
        await store.addMember(member);
        added.push(member);
      }
      const page = await store.listMembers(organization.id, { limit: 2, offset: 1 });
      expect(page).toEqual({ members: added.slice(0, 2), total: 6 });
      expect((await store.listMembers(organization.id, { limit: 100, offset: 0 })).members[0]).toEqual(owner);
      const found = await store.findMembersByUserIds(organization.id, [added[2]!.userId, newId()]);
      expect(found).toEqual([added[2]]);
    });

    it("counts members by role, comma-separated roles included, and changes and deletes members", async () => {
      const { organization } = await created();
      const both = aMember(organization.id, { role: "admin,owner" });
      const owners = aMember(organization.id, { role: "owners" });
      await store.addMember(both);
      await store.addMember(owners);
      expect(await store.countMembersWithRole(organization.id, "owner")).toBe(2);
      expect(await store.updateMemberRole(both.id, "member")).toEqual({ ...both, role: "member" });
      expect(await store.countMembersWithRole(organization.id, "owner")).toBe(1);
      expect(await store.deleteMember(both.id)).toBe(true);
      expect(await store.deleteMember(both.id)).toBe(false);
      expect(await store.updateMemberRole(both.id, "admin")).toBeNull();
    });

    it("keeps invitations: pending lookups by address, lists newest first, answers only pending ones", async () => {
      const { organization } = await created();
      const older = anInvitation(organization.id, { email: "grace@example.com", createdAt: at(0) });
      const newer = anInvitation(organization.id, { email: "grace@example.com", createdAt: at(10) });
      await store.createInvitation(older);
      await store.createInvitation(newer);
      expect(await store.findInvitation(older.id)).toEqual(older);
      expect(await store.findPendingInvitation(organization.id, "grace@example.com")).toEqual(newer);
      expect((await store.listInvitations(organization.id)).map((i) => i.id)).toEqual([newer.id, older.id]);
      expect(await store.answerInvitation(newer.id, "rejected")).toBe(true);
      expect(await store.answerInvitation(newer.id, "canceled")).toBe(false);
      expect(await store.findPendingInvitation(organization.id, "grace@example.com")).toEqual(older);
      expect((await store.listPendingInvitationsTo("grace@example.com")).map((i) => i.id)).toEqual([older.id]);
      expect(await store.answerInvitation(older.id, "pending", at(999))).toBe(true);
      expect((await store.findInvitation(older.id))!.expiresAt).toEqual(at(999));
    });

    it("accepts an invitation once: the member is added; a second accept changes nothing", async () => {
      const { organization } = await created();
      const invitation = anInvitation(organization.id);
      await store.createInvitation(invitation);
      const member = aMember(organization.id);
      expect(await store.acceptInvitation(invitation.id, member)).toBe(true);
      expect((await store.findInvitation(invitation.id))!.status).toBe("accepted");
      expect(await store.findMember(organization.id, member.userId)).toEqual(member);
      expect(await store.acceptInvitation(invitation.id, aMember(organization.id))).toBe(false);
    });

    it("an accept by an existing member is refused and leaves the invitation pending", async () => {
      const { organization, owner } = await created();
      const invitation = anInvitation(organization.id);
      await store.createInvitation(invitation);
      expect(await code(store.acceptInvitation(invitation.id, aMember(organization.id, { userId: owner.userId })))).toBe("USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION");
      expect((await store.findInvitation(invitation.id))!.status).toBe("pending");
    });

    it("of two concurrent accepts of one invitation, exactly one adds a member", async () => {
      const { organization } = await created();
      const invitation = anInvitation(organization.id);
      await store.createInvitation(invitation);
      const userId = newId();
      const results = await Promise.allSettled([
        store.acceptInvitation(invitation.id, aMember(organization.id, { userId })),
        store.acceptInvitation(invitation.id, aMember(organization.id, { userId })),
      ]);
      expect(results.filter((r) => r.status === "fulfilled" && r.value === true)).toHaveLength(1);
      expect((await store.listMembers(organization.id, { limit: 10, offset: 0 })).total).toBe(2);
    });

    it("deletes an organization with its members and invitations", async () => {
      const { organization, owner } = await created();
      const invitation = anInvitation(organization.id);
      await store.createInvitation(invitation);
      expect(await store.deleteOrganization(organization.id)).toBe(true);
      expect(await store.findOrganization(organization.id)).toBeNull();
      expect(await store.findMemberById(owner.id)).toBeNull();
      expect(await store.findInvitation(invitation.id)).toBeNull();
      expect(await store.deleteOrganization(organization.id)).toBe(false);
    });

    it("removes a user's memberships and cancels their pending invitations, idempotently", async () => {
      const userId = newId();
      const { organization: a } = await created({}, userId);
      const { organization: b } = await created();
      await store.addMember(aMember(b.id, { userId }));
      const sent = anInvitation(b.id, { inviterId: userId });
      const answered = anInvitation(b.id, { inviterId: userId, status: "accepted" });
      await store.createInvitation(sent);
      await store.createInvitation(answered);
      expect((await store.removeUser(userId)).sort()).toEqual([a.id, b.id].sort());
      expect(await store.countMemberships(userId)).toBe(0);
      expect((await store.findInvitation(sent.id))!.status).toBe("canceled");
      expect((await store.findInvitation(answered.id))!.status).toBe("accepted");
      expect(await store.removeUser(userId)).toEqual([]);
    });
  });
}
